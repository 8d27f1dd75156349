// Raw test of the kernel selection of kbla::cuda::tsmttsm / tsmm (src/cuda/tall_skinny/tall_skinny_select.cu).
// No Kokkos.
//  - measure: the first call of a class times the candidates once (the stats count one class, the cache file gets
//    one record), the result is right although the caller's output had beta != 0 (scratch buffers only), and the
//    second call of the class measures nothing;
//  - forced choices: the recorded choice is rewritten to "own" and to "cublas" in two more cache files; calls that
//    read them run that candidate (the stats count the choice; cuBLAS where it applies) with right results, so
//    both paths are covered whatever the measurement picks on the GPU at hand;
//  - model_only and deterministic calls never measure and never record.
// Usage: kbla_tall_skinny_select_raw_tests [scratch directory, default /tmp]. Prints "N passed, N failed".
#include <cuda_runtime.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <tuning/kbla_choice_cache.hpp>

#include "kbla_cuda_tall_skinny.hpp"
#include "raw_test_support.hpp"

using kbla::cuda::Layout;
using kbla::cuda::TallSkinnyOptions;
using kbla::cuda::TallSkinnyTuningStats;
using kbla::tuning::TuningMode;

namespace {

std::mt19937_64 rng(2024);

template <class T>
T random_value() {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  if constexpr (std::is_same<T, std::complex<double>>::value) return T(u(rng), u(rng));
  else return T(u(rng));
}
template <class T>
T conj_of(const T& v) {
  if constexpr (std::is_same<T, std::complex<double>>::value) return std::conj(v);
  else return v;
}
const char* name_of(Layout l) { return l == Layout::RowMajor ? "R" : "C"; }

std::int64_t at(Layout l, std::int64_t ld, std::int64_t i, std::int64_t j) {
  return l == Layout::RowMajor ? i * ld + j : i + j * ld;
}

void check(bool ok, const std::string& what) {
  if (ok) {
    ++g_pass;
  } else {
    ++g_fail;
    std::printf("FAIL: %s\n", what.c_str());
  }
}

// The one operation of a test case on device buffers, with a host reference.
template <class T>
struct Case {
  bool inner;  // C = alpha A^H B + beta C; else B = alpha A C + beta B
  std::int64_t K;
  int M, N;
  Layout layout;  // of every operand
  T alpha = T(0.75), beta = T(-0.5);
  std::vector<T> A, B, C;  // host copies of the inputs (the output's initial value included)
  T *dA = nullptr, *dB = nullptr, *dC = nullptr;
  std::int64_t lda() const { return layout == Layout::RowMajor ? M : K; }
  std::int64_t ldb() const { return layout == Layout::RowMajor ? N : K; }
  std::int64_t ldc() const { return layout == Layout::RowMajor ? N : M; }

  Case(bool inner_, std::int64_t K_, int M_, int N_, Layout l) : inner(inner_), K(K_), M(M_), N(N_), layout(l) {
    A.resize(K * M);
    B.resize(K * N);
    C.resize(std::size_t(M) * N);
    for (auto* v : {&A, &B, &C})
      for (T& x : *v) x = random_value<T>();
    for (auto p : {std::make_pair(&dA, &A), std::make_pair(&dB, &B), std::make_pair(&dC, &C)})
      CK(cudaMalloc(p.first, p.second->size() * sizeof(T)));
  }
  ~Case() {
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
  }
  void upload() {
    CK(cudaMemcpy(dA, A.data(), A.size() * sizeof(T), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dB, B.data(), B.size() * sizeof(T), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dC, C.data(), C.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
  cudaError_t run(const TallSkinnyOptions& options) {
    upload();
    const cudaError_t e =
        inner ? kbla::cuda::tsmttsm<T>(0, K, M, N, alpha, dA, lda(), layout, dB, ldb(), layout, beta, dC, ldc(),
                                       layout, options)
              : kbla::cuda::tsmm<T>(0, K, M, N, alpha, dA, lda(), layout, dC, ldc(), layout, beta, dB, ldb(),
                                    layout, options);
    if (e != cudaSuccess) return e;
    return cudaDeviceSynchronize();
  }
  // Largest error of the output against the reference, relative to sum |terms| (the usual bound's scale).
  double error() const {
    const std::vector<T>& out_host = inner ? C : B;
    std::vector<T> out(out_host.size());
    CK(cudaMemcpy(out.data(), inner ? dC : dB, out.size() * sizeof(T), cudaMemcpyDeviceToHost));
    double worst = 0;
    const std::int64_t rows = inner ? M : K;
    for (std::int64_t i = 0; i < rows; ++i)
      for (int j = 0; j < N; ++j) {
        T sum = T(0);
        double scale = 0;
        const std::int64_t terms = inner ? K : M;
        for (std::int64_t k = 0; k < terms; ++k) {
          const T t = inner ? conj_of(A[at(layout, lda(), k, i)]) * B[at(layout, ldb(), k, j)]
                            : A[at(layout, lda(), i, k)] * C[at(layout, ldc(), k, j)];
          sum += t;
          scale += std::abs(t);
        }
        const std::int64_t o = inner ? at(layout, ldc(), i, j) : at(layout, ldb(), i, j);
        const T expected = alpha * sum + beta * out_host[o];
        const double e = std::abs(out[o] - expected) / (std::abs(alpha) * scale + std::abs(beta * out_host[o]));
        worst = std::max(worst, e);
      }
    return worst;
  }
  std::string label() const {
    std::ostringstream s;
    s << (inner ? "inner " : "update ") << (std::is_same<T, double>::value ? "D " : "Z ") << M << 'x' << N
      << " K=" << K << ' ' << name_of(layout);
    return s.str();
  }
};

std::vector<std::string> read_lines(const std::string& path) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The cache file `from` with every record's choice replaced by `kernel`.
void write_forced(const std::string& from, const std::string& to, const std::string& kernel) {
  std::ofstream out(to, std::ios::trunc);
  bool header = true;
  for (const std::string& line : read_lines(from)) {
    if (header) {
      out << line << '\n';
      header = false;
      continue;
    }
    std::vector<std::string> fields;
    std::stringstream split(line);
    for (std::string f; std::getline(split, f, '\t');) fields.push_back(f);
    if (fields.size() != 4) continue;
    out << fields[0] << '\t' << fields[1] << '\t' << kernel << '\t' << fields[3] << '\n';
  }
}

template <class T>
void test_class(bool inner, Layout layout, const std::string& dir, int id) {
  // Relative to alpha sum |terms| + |beta out|: rounding stays far below this, a wrong kernel or touched output is O(1).
  const double tolerance = 1e-11;
  Case<T> c(inner, 20000, 8, 8, layout);
  const std::string tag = dir + "/kbla_select_test_" + std::to_string(::getpid()) + "_" + std::to_string(id);
  const std::string measured = tag + "_measured", own = tag + "_own", cublas = tag + "_cublas";
  std::remove(measured.c_str());

  TallSkinnyOptions options;  // defaults: cuBLAS allowed, measure
  options.choice_cache_path = measured;
  const TallSkinnyTuningStats s0 = kbla::cuda::tall_skinny_tuning_stats();
  check(c.run(options) == cudaSuccess, c.label() + ": measured call runs");
  check(c.error() < tolerance, c.label() + ": measured call's result (caller's output untouched by the timing)");
  const TallSkinnyTuningStats s1 = kbla::cuda::tall_skinny_tuning_stats();
  check(s1.classes_measured == s0.classes_measured + 1, c.label() + ": the first call measures one class");
  check(kbla::tuning::ChoiceCache(measured).size() == 1, c.label() + ": one record in the cache file");
  check(c.run(options) == cudaSuccess && c.error() < tolerance, c.label() + ": second call");
  const TallSkinnyTuningStats s2 = kbla::cuda::tall_skinny_tuning_stats();
  check(s2.classes_measured == s1.classes_measured, c.label() + ": the second call measures nothing");

  write_forced(measured, own, "own");
  write_forced(measured, cublas, "cublas");
  for (const auto& forced : {std::make_pair(own, false), std::make_pair(cublas, true)}) {
    options.choice_cache_path = forced.first;
    const TallSkinnyTuningStats before = kbla::cuda::tall_skinny_tuning_stats();
    check(c.run(options) == cudaSuccess, c.label() + ": forced call runs");
    check(c.error() < tolerance, c.label() + (forced.second ? ": forced cublas result" : ": forced own result"));
    const TallSkinnyTuningStats after = kbla::cuda::tall_skinny_tuning_stats();
    check(after.classes_measured == before.classes_measured, c.label() + ": a cached choice is not measured");
    check(after.cublas_chosen - before.cublas_chosen == (forced.second ? 1 : 0) &&
              after.own_chosen - before.own_chosen == (forced.second ? 0 : 1),
          c.label() + (forced.second ? ": the cached cublas choice is taken" : ": the cached own choice is taken"));
  }

  // model_only and deterministic: nothing timed, nothing recorded (a fresh file stays absent).
  const std::string untouched = tag + "_model";
  std::remove(untouched.c_str());
  for (int variant = 0; variant < (inner ? 2 : 1); ++variant) {
    TallSkinnyOptions model;
    model.choice_cache_path = untouched;
    if (variant == 0) model.tuning = TuningMode::model_only;
    else model.deterministic = true;
    const TallSkinnyTuningStats before = kbla::cuda::tall_skinny_tuning_stats();
    check(c.run(model) == cudaSuccess && c.error() < tolerance, c.label() + ": model-only / deterministic result");
    const TallSkinnyTuningStats after = kbla::cuda::tall_skinny_tuning_stats();
    check(after.classes_measured == before.classes_measured && after.own_chosen == before.own_chosen + 1,
          c.label() + (variant == 0 ? ": model_only never measures" : ": deterministic never measures"));
    check(kbla::tuning::ChoiceCache(untouched).size() == 0, c.label() + ": nothing recorded without measuring");
  }
  for (const std::string& p : {measured, own, cublas, untouched, measured + ".lock", own + ".lock",
                               cublas + ".lock", untouched + ".lock"})
    std::remove(p.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : "/tmp";
  int id = 0;
  for (bool inner : {true, false})
    for (Layout layout : {Layout::RowMajor, Layout::ColMajor}) {
      test_class<double>(inner, layout, dir, id++);
      test_class<std::complex<double>>(inner, layout, dir, id++);
    }
  std::printf("%d passed, %d failed\n", g_pass, g_fail);
  return g_fail == 0 ? 0 : 1;
}
