// kbla_tune: fills the kernel choice cache (docs/tall_skinny.md, "How a kernel is chosen") on the current GPU for the
// classes of the tall & skinny benchmark: square widths 1-64 (D and Z, inner and update, row- and column-major,
// alpha 1, beta 0) at the benchmark's square row counts (2^29 / w rows D, 2^28 / w Z) and the ramp's 2^10..2^27
// rows at widths 4, 16 and 64, plus the block-Krylov shapes (D column-major, p in {16, ..., 128} x n in {8, 16},
// K = 2^20 and 10^6). Each class is called once through the raw API with TuningMode::measure: the selection times
// its candidates on its own scratch buffers and records the winner in the file. Classes already in the file are
// not measured again (delete the file to start afresh).
//
//   kbla_tune --cache FILE [--types D,Z] [--widths 1,2,8] [--no-ramp] [--no-krylov]
//
// Prints one line per class (the choice, and the milliseconds the measurement took) and a summary: classes
// measured, milliseconds per class, how many chose each candidate. Raw API only, no Kokkos.
#include <cuda_runtime.h>

#include <chrono>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "kbla_cuda_tall_skinny.hpp"
#include "../common/kbla_cuda_check.hpp"

using kbla::cuda::Layout;
using kbla::cuda::TallSkinnyOptions;
using kbla::cuda::TallSkinnyTuningStats;
using Zd = std::complex<double>;

namespace {

struct Buffers {
  void* A = nullptr;
  void* B = nullptr;
  void* C = nullptr;
};

int g_own = 0, g_cublas = 0;

// One call of the class through the raw API; prints what the selection did.
template <class T>
void tune_one(const Buffers& buf, const TallSkinnyOptions& options, bool inner, std::int64_t K, int M, int N,
              bool row) {
  const Layout l = row ? Layout::RowMajor : Layout::ColMajor;
  const std::int64_t lda = row ? M : K, ldb = row ? N : K, ldc = row ? N : M;
  T* A = static_cast<T*>(buf.A);
  T* B = static_cast<T*>(buf.B);
  T* C = static_cast<T*>(buf.C);
  const TallSkinnyTuningStats before = kbla::cuda::tall_skinny_tuning_stats();
  if (inner)
    CK(kbla::cuda::tsmttsm<T>(0, K, M, N, T(1), A, lda, l, B, ldb, l, T(0), C, ldc, l, options));
  else
    CK(kbla::cuda::tsmm<T>(0, K, M, N, T(1), A, lda, l, C, ldc, l, T(0), B, ldb, l, options));
  CK(cudaDeviceSynchronize());
  const TallSkinnyTuningStats after = kbla::cuda::tall_skinny_tuning_stats();
  const bool cublas = after.cublas_chosen > before.cublas_chosen;
  const bool chosen = cublas || after.own_chosen > before.own_chosen;  // widths above 64 are not chosen
  if (chosen) ++(cublas ? g_cublas : g_own);
  std::printf("%c %-6s %c %3d x %-3d K=%-10lld %-7s %s\n", std::is_same<T, double>::value ? 'D' : 'Z',
              inner ? "inner" : "update", row ? 'R' : 'C', M, N, (long long)K,
              chosen ? (cublas ? "cublas" : "own") : "-",
              after.classes_measured > before.classes_measured
                  ? (std::to_string(1e3 * (after.seconds_measuring - before.seconds_measuring)) + " ms measured").c_str()
                  : "(cached)");
  std::fflush(stdout);
}

std::vector<int> parse_list(const std::string& s) {
  std::vector<int> v;
  std::stringstream in(s);
  for (std::string x; std::getline(in, x, ',');)
    if (!x.empty()) v.push_back(std::atoi(x.c_str()));
  return v;
}

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "kbla_tune: %s\nusage: kbla_tune --cache FILE [--types D,Z] [--widths 1,2,8] [--no-ramp] "
               "[--no-krylov]\n",
               why);
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  std::string cache;
  bool types[2] = {true, true}, ramp = true, krylov = true;
  std::vector<int> widths;
  for (int w = 1; w <= 64; ++w) widths.push_back(w);
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(("missing value after " + a).c_str());
      return argv[++i];
    };
    if (a == "--cache") cache = value();
    else if (a == "--types") {
      const std::string t = value();
      types[0] = t.find('D') != std::string::npos;
      types[1] = t.find('Z') != std::string::npos;
    } else if (a == "--widths") widths = parse_list(value());
    else if (a == "--no-ramp") ramp = false;
    else if (a == "--no-krylov") krylov = false;
    else usage(("unknown argument " + a).c_str());
  }
  if (cache.empty()) usage("--cache FILE is required (the file the library then reads, e.g. via KBLA_TUNING_CACHE)");
  for (int w : widths)
    if (w < 1 || w > 64) usage("widths must be in 1..64");

  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("# kbla_tune on %s (%d SMs), cache %s\n", prop.name, prop.multiProcessorCount, cache.c_str());
  const std::size_t big = std::size_t(1) << 32;  // 4 GiB per tall operand, as the benchmark
  Buffers buf;
  CK(cudaMalloc(&buf.A, big));
  CK(cudaMalloc(&buf.B, big));
  CK(cudaMalloc(&buf.C, 128 * 128 * sizeof(Zd)));
  CK(cudaMemset(buf.A, 0, big));
  CK(cudaMemset(buf.B, 0, big));
  CK(cudaMemset(buf.C, 0, 128 * 128 * sizeof(Zd)));

  TallSkinnyOptions options;  // cuBLAS allowed, measure
  options.choice_cache_path = cache;
  const auto start = std::chrono::steady_clock::now();
  for (int t = 0; t < 2; ++t) {
    if (!types[t]) continue;
    const int log2_elems = t == 0 ? 29 : 28;  // operand size of the benchmark: K w = 2^29 (D), 2^28 (Z)
    for (bool inner : {true, false})
      for (bool row : {true, false})
        for (int w : widths) {
          std::vector<std::int64_t> rows{(std::int64_t(1) << log2_elems) / w};
          if (ramp && (w == 4 || w == 16 || w == 64))
            for (int e = 10; e <= 27; ++e)
              if ((std::int64_t(1) << e) * w <= (std::int64_t(1) << log2_elems)) rows.push_back(std::int64_t(1) << e);
          for (std::int64_t K : rows) {
            if (t == 0) tune_one<double>(buf, options, inner, K, w, w, row);
            else tune_one<Zd>(buf, options, inner, K, w, w, row);
          }
        }
  }
  if (krylov && types[0])
    for (bool inner : {true, false})
      for (std::int64_t K : {std::int64_t(1) << 20, std::int64_t(1000000)})
        for (int n : {8, 16})
          for (int p : {16, 32, 48, 64, 96, 128}) tune_one<double>(buf, options, inner, K, p, n, false);

  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const TallSkinnyTuningStats s = kbla::cuda::tall_skinny_tuning_stats();
  std::printf("# %lld classes measured, %.2f ms per class (%.1f s measuring, %.1f s in all); chosen: own %d, "
              "cublas %d\n",
              s.classes_measured, s.classes_measured ? 1e3 * s.seconds_measuring / s.classes_measured : 0.0,
              s.seconds_measuring, seconds, g_own, g_cublas);
  cudaFree(buf.A);
  cudaFree(buf.B);
  cudaFree(buf.C);
  return 0;
}
