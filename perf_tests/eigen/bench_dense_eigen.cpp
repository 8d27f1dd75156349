// kbla_bench_dense_eigen: the host dense Hermitian eigen-solver kbla::dense::hermitian_eigen (the Rayleigh-Ritz step
// of kbla::eigen) over sizes, scalar types and spectra, against the same-run baseline LAPACK dsyevd / zheevd where
// LAPACK was found at configure time. Prints a table and optionally writes JSON.
//
//   kbla_bench_dense_eigen [--sizes 16,32,48,64,88,96,128] [--seconds 0.2] [--json FILE]
//
// Spectra: "random" (Gaussian Hermitian), "planted" (a random unitary times eigenvalues with multiplicities 3 and 6
// and a cluster 1e-12 apart, like the Laplacian's), "banded" (bandwidth 8, shaped like the block Lanczos T).
// Candidates: all eigenvectors (kbla), the top `kept` only (kbla_kept: kbla::eigen's Rayleigh-Ritz call, which forms
// the wanted and kept Ritz vectors, here for k = 16 wanted values and block size 8 as the eigen driver runs it), and
// LAPACK. They are called in turn, each call timed alone (steady clock); the median and the minimum over as many
// rounds as fit in --seconds per candidate (at least 5).
// Residual: ||A Z - Z diag(w)||_F / max|w|; orthogonality: ||Z^H Z - I||_F.
#include <solvers/kbla_dense_host.hpp>
#include <solvers/kbla_eigen.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#if KBLA_BENCH_HAVE_LAPACK
extern "C" {
void dsyevd_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* w, double* work,
             const int* lwork, int* iwork, const int* liwork, int* info);
void zheevd_(const char* jobz, const char* uplo, const int* n, void* a, const int* lda, double* w, void* work,
             const int* lwork, double* rwork, const int* lrwork, int* iwork, const int* liwork, int* info);
}
#endif

namespace {

using Complex = Kokkos::complex<double>;
template <class T>
using Matrix = kbla::dense::Matrix<T>;

template <class T>
T random_entry(std::mt19937_64& g);
template <>
double random_entry<double>(std::mt19937_64& g) {
  return std::normal_distribution<double>()(g);
}
template <>
Complex random_entry<Complex>(std::mt19937_64& g) {
  std::normal_distribution<double> d;
  const double re = d(g), im = d(g);
  return Complex(re, im);
}

template <class T>
void make_hermitian(Matrix<T>& A) {
  for (int j = 0; j < A.cols(); ++j)
    for (int i = 0; i <= j; ++i) {
      const T h = (A(i, j) + kbla::dense::conj(A(j, i))) / T(2);
      A(i, j) = h;
      A(j, i) = kbla::dense::conj(h);
    }
}

// A random unitary by modified Gram-Schmidt (twice) of a Gaussian matrix.
template <class T>
Matrix<T> random_unitary(int n, std::mt19937_64& g) {
  Matrix<T> Q(n, n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) Q(i, j) = random_entry<T>(g);
  for (int j = 0; j < n; ++j)
    for (int pass = 0; pass < 2; ++pass) {
      for (int k = 0; k < j; ++k) {
        T h(0);
        for (int i = 0; i < n; ++i) h += kbla::dense::conj(Q(i, k)) * Q(i, j);
        for (int i = 0; i < n; ++i) Q(i, j) -= Q(i, k) * h;
      }
      double norm = 0;
      for (int i = 0; i < n; ++i) norm += kbla::dense::abs2(Q(i, j));
      norm = std::sqrt(norm);
      for (int i = 0; i < n; ++i) Q(i, j) /= T(norm);
    }
  return Q;
}

template <class T>
Matrix<T> test_matrix(const std::string& kind, int n, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  Matrix<T> A(n, n);
  if (kind == "random") {
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) A(i, j) = random_entry<T>(g);
  } else if (kind == "banded") {
    for (int j = 0; j < n; ++j)
      for (int i = std::max(0, j - 8); i <= std::min(n - 1, j + 8); ++i) A(i, j) = random_entry<T>(g);
  } else {  // planted: groups of 6 and 3 equal eigenvalues, a tight cluster, the rest distinct
    std::vector<double> lambda;
    for (int group = 0; int(lambda.size()) < n; ++group) {
      const int multiplicity = group % 3 == 0 ? 6 : group % 3 == 1 ? 3 : 1;
      const double value = 1.0 + 0.37 * group;
      for (int m = 0; m < multiplicity && int(lambda.size()) < n; ++m)
        lambda.push_back(group % 5 == 4 ? value * (1 + 1e-12 * m) : value);
    }
    const Matrix<T> U = random_unitary<T>(n, g);
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        T s(0);
        for (int k = 0; k < n; ++k) s += U(i, k) * T(lambda[k]) * kbla::dense::conj(U(j, k));
        A(i, j) = s;
      }
  }
  make_hermitian(A);
  return A;
}

struct Accuracy {
  double residual = 0, orthogonality = 0;
};

// Z's column j belongs to w[first + j] (first > 0: a range of eigenvectors).
template <class T>
Accuracy accuracy(const Matrix<T>& A, const std::vector<double>& w, const Matrix<T>& Z, int first = 0) {
  const int n = A.rows(), cols = Z.cols();
  Accuracy acc;
  double wmax = 0;
  for (double x : w) wmax = std::max(wmax, std::abs(x));
  Matrix<T> R = kbla::dense::multiply(A, Z);
  double r2 = 0;
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < n; ++i) r2 += kbla::dense::abs2(R(i, j) - Z(i, j) * T(w[first + j]));
  acc.residual = std::sqrt(r2) / std::max(wmax, 1e-300);
  const Matrix<T> G = kbla::dense::multiply(Z, Z, true);
  double o2 = 0;
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < cols; ++i) o2 += kbla::dense::abs2(G(i, j) - T(i == j ? 1 : 0));
  acc.orthogonality = std::sqrt(o2);
  return acc;
}

struct Timing {
  double median_us = 0, min_us = 0;
};

Timing summary(std::vector<double> t) {
  std::sort(t.begin(), t.end());
  return {t[t.size() / 2], t.front()};
}

// The candidates called in turn (after 2 untimed rounds), each call timed alone, for as many rounds as fit in
// `seconds` per candidate (at least 5): on a shared machine all of them see the same load.
std::vector<Timing> time_interleaved(const std::vector<std::function<void()>>& candidates, double seconds) {
  using Clock = std::chrono::steady_clock;
  for (int round = 0; round < 2; ++round)
    for (const auto& f : candidates) f();
  std::vector<std::vector<double>> t(candidates.size());
  const auto start = Clock::now();
  const double budget = seconds * double(candidates.size());
  while (t[0].size() < 5 ||
         (std::chrono::duration<double>(Clock::now() - start).count() < budget && t[0].size() < 5000))
    for (std::size_t c = 0; c < candidates.size(); ++c) {
      const auto t0 = Clock::now();
      candidates[c]();
      t[c].push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    }
  std::vector<Timing> out;
  for (auto& times : t) out.push_back(summary(times));
  return out;
}

#if KBLA_BENCH_HAVE_LAPACK
// LAPACK's divide and conquer (all eigenvalues and vectors), workspace sized once; the copy of A into the work
// matrix is part of every call (LAPACK overwrites it), as kbla's copy is part of its call.
struct LapackEigen {
  std::vector<double> work, rwork;
  std::vector<int> iwork;
  std::vector<double> w;

  bool run(const Matrix<double>& A, Matrix<double>& Z) {
    const int n = A.rows(), lda = std::max(1, n);
    Z = A;
    w.resize(n);
    int info = 0;
    if (work.empty()) {
      int lwork = -1, liwork = -1, iw = 0;
      double wq = 0;
      dsyevd_("V", "L", &n, Z.data(), &lda, w.data(), &wq, &lwork, &iw, &liwork, &info);
      work.resize(std::size_t(wq) + 1);
      iwork.resize(std::size_t(iw) + 1);
      Z = A;
    }
    const int lwork = int(work.size()), liwork = int(iwork.size());
    dsyevd_("V", "L", &n, Z.data(), &lda, w.data(), work.data(), &lwork, iwork.data(), &liwork, &info);
    return info == 0;
  }
  bool run(const Matrix<Complex>& A, Matrix<Complex>& Z) {
    const int n = A.rows(), lda = std::max(1, n);
    Z = A;
    w.resize(n);
    int info = 0;
    if (work.empty()) {
      int lwork = -1, lrwork = -1, liwork = -1, iw = 0;
      double wq[2] = {0, 0}, rq = 0;
      zheevd_("V", "L", &n, Z.data(), &lda, w.data(), wq, &lwork, &rq, &lrwork, &iw, &liwork, &info);
      work.resize(2 * (std::size_t(wq[0]) + 1));
      rwork.resize(std::size_t(rq) + 1);
      iwork.resize(std::size_t(iw) + 1);
      Z = A;
    }
    const int lwork = int(work.size() / 2), lrwork = int(rwork.size()), liwork = int(iwork.size());
    zheevd_("V", "L", &n, Z.data(), &lda, w.data(), work.data(), &lwork, rwork.data(), &lrwork, iwork.data(), &liwork,
            &info);
    return info == 0;
  }
};
#endif

struct Row {
  std::string scalar, kind;
  int n = 0;
  Timing kbla_time;
  Accuracy kbla;
  int kept = 0;  // eigenvectors formed by kbla_kept
  Timing kept_time;
  Accuracy kept_accuracy;
  bool have_lapack = false;
  Timing lapack_time;
  Accuracy lapack;
};

template <class T>
Row measure(const char* scalar, const std::string& kind, int n, double seconds) {
  Row row;
  row.scalar = scalar;
  row.kind = kind;
  row.n = n;
  const Matrix<T> A = test_matrix<T>(kind, n, 1000 + std::uint64_t(n));
  std::vector<double> w;
  Matrix<T> Z;
  // kbla::eigen's rule (Impl::kept_count) for an active basis of n columns, 16 wanted values, block size 8.
  const int wanted = std::min(16, n), kept = std::min(n, std::max(wanted, kbla::Impl::kept_count(n - 8, wanted)));
  row.kept = kept;
  std::vector<double> wk;
  Matrix<T> Zk;
  std::vector<std::function<void()>> candidates = {[&] { kbla::dense::hermitian_eigen(A, w, Z); },
                                                   [&] { kbla::dense::hermitian_eigen(A, wk, Zk, n - kept, kept); }};
#if KBLA_BENCH_HAVE_LAPACK
  LapackEigen lapack;
  Matrix<T> ZL;
  row.have_lapack = lapack.run(A, ZL);
  if (row.have_lapack) candidates.push_back([&] { lapack.run(A, ZL); });
#endif
  const std::vector<Timing> times = time_interleaved(candidates, seconds);
  row.kbla_time = times[0];
  row.kbla = accuracy(A, w, Z);
  row.kept_time = times[1];
  row.kept_accuracy = accuracy(A, wk, Zk, n - kept);
#if KBLA_BENCH_HAVE_LAPACK
  if (row.have_lapack) {
    row.lapack_time = times[2];
    row.lapack = accuracy(A, lapack.w, ZL);
  }
#endif
  return row;
}

std::string first_line_with(const char* path, const char* key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line))
    if (line.compare(0, std::string(key).size(), key) == 0) {
      const auto colon = line.find(':');
      std::string value = colon == std::string::npos ? line : line.substr(colon + 1);
      value.erase(0, value.find_first_not_of(" \t"));
      return value;
    }
  return "unknown";
}

std::string json_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) out += c;
  }
  return out;
}

[[noreturn]] void usage(const char* message) {
  std::fprintf(stderr, "kbla_bench_dense_eigen: %s\nusage: kbla_bench_dense_eigen [--sizes N,N,...] "
                       "[--seconds S] [--json FILE]\n", message);
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes = {16, 32, 48, 64, 88, 96, 128};
  double seconds = 0.2;
  std::string json;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    if (a + 1 >= argc) usage(("missing value after " + arg).c_str());
    const std::string value = argv[++a];
    if (arg == "--sizes") {
      sizes.clear();
      std::stringstream ss(value);
      std::string item;
      while (std::getline(ss, item, ',')) {
        const int n = std::atoi(item.c_str());
        if (n < 1) usage("sizes must be positive integers");
        sizes.push_back(n);
      }
    } else if (arg == "--seconds") {
      seconds = std::atof(value.c_str());
      if (!(seconds > 0)) usage("--seconds must be positive");
    } else if (arg == "--json") {
      json = value;
    } else {
      usage(("unknown option " + arg).c_str());
    }
  }

  const std::string cpu = first_line_with("/proc/cpuinfo", "model name");
  const std::string load = [] {
    std::ifstream in("/proc/loadavg");
    std::string a;
    in >> a;
    return a.empty() ? std::string("unknown") : a;
  }();
  std::printf("kbla::dense::hermitian_eigen on %s (%u hardware threads, load %s)%s\n", cpu.c_str(),
              std::thread::hardware_concurrency(), load.c_str(),
              KBLA_BENCH_HAVE_LAPACK ? "; LAPACK dsyevd/zheevd in the same run" : "; no LAPACK baseline");
  std::printf("%-8s %-8s %5s %9s %9s %8s %8s %5s %9s %9s %8s %9s %9s %8s %8s\n", "scalar", "spectrum", "n",
              "kbla_us", "kbla_min", "residual", "orth", "kept", "kept_us", "kept_min", "residual", "lapack_us",
              "lapack_min", "residual", "orth");
  std::vector<Row> rows;
  for (const char* scalar : {"double", "complex"})
    for (const std::string kind : {"random", "planted", "banded"})
      for (int n : sizes) {
        const Row r = std::string(scalar) == "double" ? measure<double>(scalar, kind, n, seconds)
                                                      : measure<Complex>(scalar, kind, n, seconds);
        rows.push_back(r);
        std::printf("%-8s %-8s %5d %9.1f %9.1f %8.1e %8.1e %5d %9.1f %9.1f %8.1e", r.scalar.c_str(), r.kind.c_str(),
                    r.n, r.kbla_time.median_us, r.kbla_time.min_us, r.kbla.residual, r.kbla.orthogonality, r.kept,
                    r.kept_time.median_us, r.kept_time.min_us, r.kept_accuracy.residual);
        if (r.have_lapack)
          std::printf(" %9.1f %9.1f %8.1e %8.1e", r.lapack_time.median_us, r.lapack_time.min_us, r.lapack.residual,
                      r.lapack.orthogonality);
        std::printf("\n");
        std::fflush(stdout);
      }

  if (!json.empty()) {
    std::ofstream out(json);
    if (!out) {
      std::fprintf(stderr, "kbla_bench_dense_eigen: cannot write %s\n", json.c_str());
      return 1;
    }
    out << "{\n  \"benchmark\": \"kbla_bench_dense_eigen\",\n  \"machine\": {\"cpu\": \"" << json_escape(cpu)
        << "\", \"hardware_threads\": " << std::thread::hardware_concurrency() << ", \"load_average_1min\": \""
        << load << "\"},\n  \"timing\": \"microseconds per call, each call timed alone: median (_us) and fastest "
        << "(_min_us)\",\n"
        << "  \"residual\": \"||A Z - Z diag(w)||_F / max|w|\",\n  \"orthogonality\": \"||Z^H Z - I||_F\",\n"
        << "  \"results\": [\n";
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const Row& r = rows[i];
      char buf[512];
      std::snprintf(buf, sizeof buf,
                    "    {\"scalar\": \"%s\", \"spectrum\": \"%s\", \"n\": %d, \"kbla_us\": %.2f, "
                    "\"kbla_min_us\": %.2f, \"kbla_residual\": %.3e, \"kbla_orthogonality\": %.3e",
                    r.scalar.c_str(), r.kind.c_str(), r.n, r.kbla_time.median_us, r.kbla_time.min_us,
                    r.kbla.residual, r.kbla.orthogonality);
      out << buf;
      std::snprintf(buf, sizeof buf,
                    ", \"kept_vectors\": %d, \"kbla_kept_us\": %.2f, \"kbla_kept_min_us\": %.2f, "
                    "\"kbla_kept_residual\": %.3e, \"kbla_kept_orthogonality\": %.3e",
                    r.kept, r.kept_time.median_us, r.kept_time.min_us, r.kept_accuracy.residual,
                    r.kept_accuracy.orthogonality);
      out << buf;
      if (r.have_lapack) {
        std::snprintf(buf, sizeof buf,
                      ", \"lapack_us\": %.2f, \"lapack_min_us\": %.2f, \"lapack_residual\": %.3e, "
                      "\"lapack_orthogonality\": %.3e",
                      r.lapack_time.median_us, r.lapack_time.min_us, r.lapack.residual, r.lapack.orthogonality);
        out << buf;
      }
      out << "}" << (i + 1 < rows.size() ? "," : "") << "\n";
    }
    out << "  ]\n}\n";
  }
  return 0;
}
