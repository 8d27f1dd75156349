// kbla_bench_tall_skinny: the tall & skinny benchmark (kbla::inner / kbla::update against cuBLAS), in one GPU run.
//
// Measures the read and copy bandwidth (the probe shared with kbla_driver), then times, on the same device buffers,
//   kbla        the public calls kbla::inner (TSMTTSM, C = A^H B) and kbla::update (TSMM, B = A C) on unmanaged
//               Kokkos::Views over the buffers (what a user gets, argument checks and dispatch included),
//   cublas      cublasDgemm / cublasZgemm called directly,
//   kokkosblas  KokkosBlas::gemm("C","N", A, B -> C) and ("N","N", A, C -> B) on the same Views,
// in D (double) and Z (Kokkos::complex<double>), LayoutRight (row-major, "R") and LayoutLeft (column-major, "C").
// Sections (--sections, run in the order given):
//   square   M = N = w for w = 1..64 (all), 96, 128, 256, 512; K = 2^29 / w rows (D), 2^28 / w (Z)
//   krylov   the block-Krylov shapes with M != N: TSMTTSM A: K x p, B: K x n, C: p x n, and TSMM A: K x p,
//            C: p x n, B: K x n, for p in {16,32,48,64,96,128}, n in {8,16}, K = 2^20 and 10^6; D, LayoutLeft
//   ramp     K = 2^10 .. 2^27 at w = 4, 16, 64 (cases with K w > 2^29 (D) / 2^28 (Z) do not fit the buffers)
//
//   kbla_bench_tall_skinny [--json FILE] [--quick] [--types D,Z] [--sections krylov,square,ramp]
//                          [--impls kbla,cublas,kokkosblas] [--widths 1,2,8] [--max-seconds S] [--reps N]
//                          [--interleave] [--no-rotate] [--tuning model|measure] [--tuning-cache FILE]
//
// Roofline: P = min(intensity x measured read bandwidth, 67 TFLOP/s FP64 tensor-core peak (H100/H200 SXM)),
// intensity = flops / bytes of A, B and C moved once (beta = 0: the output is only written).
// Times: CUDA events on the Kokkos::Cuda stream around each call (host-side dispatch included). Reps rule:
// a first warm-up call; if it takes more than 1 s it is the only measurement (reps 1, warmups 0); else a second
// warm-up, and if that takes more than 0.2 s, the median of 3 runs, otherwise the median of --reps (10) runs
// (40 in the ramp for K < 2^20), each implementation's calls back to back, cuBLAS's first. --interleave: the warm-ups
// as before, then the timed runs rep by rep across the implementations (run i of each before run i + 1 of any), so
// that a drift of the clocks or the power state over a case falls on all of them alike. Each entry records its reps
// and warm-ups. The inputs rotate through the 4 GiB allocations so that small cases do not run from L2 twice in a row
// (with --interleave every call of a case takes the next offset). --no-rotate: every call at offset 0, as the
// kernel selection times its candidates on one scratch buffer (to tell whether the rotation, i.e. fresh pages for
// every call, is what makes some own kernels slower here than in the selection's measurement).
// Correctness: the first (warm-up) output of kbla and KokkosBlas is compared with cuBLAS's (C, or the first 2^20
// elements of B): check_rel_diff.
// --max-seconds: once the budget is spent, the remaining cases are skipped and the JSON says so ("skipped").
// Kernel choice (docs/tall_skinny.md, "How a kernel is chosen"): --tuning measure (default) lets the library time
// its candidates on the first call of each class, model takes the model's pick (InnerOptions::tuning for kbla::inner,
// UpdateOptions::tuning for kbla::update); --tuning-cache FILE is the choice cache (TuningOptions::cache_path of
// both). Each case records how
// kbla's kernel was chosen ("tuning": "measure" when its first call timed candidates, with "tuning_ms", else
// "cache" or "model"); the top level holds the classes measured and the milliseconds spent per class.
#include <kbla.hpp>

#include <KokkosBlas3_gemm.hpp>
#include <Kokkos_Core.hpp>
#ifdef KOKKOSKERNELS_ENABLE_TPL_CUBLAS
#include <KokkosBlas_tpl_spec.hpp>  // KokkosBlas' cuBLAS handle: put on the same stream as the rest
#endif

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "kbla_cuda_tall_skinny.hpp"  // tall_skinny_tuning_stats: the cost of the kernel selection

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>
#include "../common/kbla_cuda_check.hpp"
#include "../common/kbla_hash_fill.cuh"
#include "../common/kbla_measured_bandwidth.hpp"

namespace {

#define CB(x)                                                                          \
  do {                                                                                 \
    cublasStatus_t s_ = (x);                                                           \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                 \
      std::fprintf(stderr, "cuBLAS error %d at %s:%d\n", int(s_), __FILE__, __LINE__); \
      std::exit(2);                                                                    \
    }                                                                                  \
  } while (0)

using Zd = Kokkos::complex<double>;
enum Impl { CUBLAS = 0, KBLA = 1, KOKKOSBLAS = 2, NIMPL = 3 };
const char* const kImplName[NIMPL] = {"cublas", "kbla", "kokkosblas"};
enum Op { TSMTTSM = 0, TSMM = 1 };
const char* const kOpName[2] = {"tsmttsm", "tsmm"};

const double kPeakFP64 = 67.0e12;  // FP64 tensor cores, H100/H200 SXM (the issue's "arithmetic peak")
const double kSlowRun = 0.2e3;     // ms: one run slower than this -> median of 3 runs
const double kVerySlowRun = 1.0e3; // ms: a first call slower than this is the only measurement
const double kCheckFlag = 1e-10;   // relative difference flagged in the output ("CHECK!")
const double kCheckFail = 1e-6;    // relative difference that makes the exit status nonzero

// ---- global state -------------------------------------------------------------------------------------------
double g_bw_read = 0, g_bw_copy = 0;
std::string g_bw_forms;  // which forms of the probe gave the rates
int g_reps = 10;
bool g_interleave = false;  // --interleave: timed runs rep by rep across the implementations
bool g_rotate = true;       // --no-rotate: every call at offset 0
kbla::InnerOptions g_inner_options;    // --tuning, --tuning-cache
kbla::UpdateOptions g_update_options;  // the same for kbla::update
cublasHandle_t g_handle;
cudaStream_t g_stream = nullptr;
const Kokkos::Cuda* g_exec = nullptr;  // the default instance, set in run()
cudaEvent_t g_e0, g_e1;
// A, B: 4 GiB each (2^29 doubles, 2^28 complex doubles); Cin: the small matrix TSMM reads (random, never
// written); Cout: TSMTTSM's output.
char *g_A = nullptr, *g_B = nullptr, *g_Cin = nullptr, *g_Cout = nullptr;
const std::size_t kBig = std::size_t(1) << 32;
const std::size_t kSmall = std::size_t(64) << 20;

// ---- timing ---------------------------------------------------------------------------------------------------
struct Timing {
  double ms = 0;
  int reps = 0, warmups = 0;
};

template <class F>
float timed_call(F&& f, int it) {
  CK(cudaEventRecord(g_e0, g_stream));
  f(it);
  CK(cudaEventRecord(g_e1, g_stream));
  CK(cudaEventSynchronize(g_e1));
  float t = 0;
  CK(cudaEventElapsedTime(&t, g_e0, g_e1));
  return t;
}

// The reps rule (see the header), in two steps so that the implementations' timed runs can interleave:
// warm_up makes the first (untimed) call at call index 0, runs `after_first` (the check reads that call's output),
// and decides the reps; measure_case then runs the timed calls, back to back or rep by rep (--interleave).
struct RepPlan {
  Timing t;
  bool timed = false;  // false: the first call was the only measurement
  std::vector<float> runs;
};
template <class F, class G>
RepPlan warm_up(F&& f, int reps, int& next_call, G&& after_first) {
  RepPlan p;
  const float t1 = timed_call(f, 0);
  CK(cudaGetLastError());
  after_first();
  if (t1 > kVerySlowRun) {  // e.g. cuBLAS Z TSMTTSM row-major at width 1 (18 s per call on the H100)
    p.t.ms = t1;
    p.t.reps = 1;
    p.t.warmups = 0;
    return p;
  }
  const float t2 = timed_call(f, next_call++);
  p.t.warmups = 2;
  p.t.reps = t2 > kSlowRun ? 3 : reps;
  p.timed = true;
  return p;
}
void finish(RepPlan& p) {
  if (!p.timed) return;
  std::sort(p.runs.begin(), p.runs.end());
  const int n = int(p.runs.size());
  p.t.ms = n % 2 ? p.runs[n / 2] : 0.5 * (double(p.runs[n / 2 - 1]) + p.runs[n / 2]);
}

// ---- the three implementations ----------------------------------------------------------------------------------
cublasStatus_t gemm(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const double* A, int lda,
                    const double* B, int ldb, double* C, int ldc) {
  const double a = 1, b = 0;
  return cublasDgemm(g_handle, ta, tb, m, n, k, &a, A, lda, B, ldb, &b, C, ldc);
}
cublasStatus_t gemm(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const Zd* A, int lda,
                    const Zd* B, int ldb, Zd* C, int ldc) {
  const cuDoubleComplex a = make_cuDoubleComplex(1, 0), b = make_cuDoubleComplex(0, 0);
  return cublasZgemm(g_handle, ta, tb, m, n, k, &a, reinterpret_cast<const cuDoubleComplex*>(A), lda,
                     reinterpret_cast<const cuDoubleComplex*>(B), ldb, &b, reinterpret_cast<cuDoubleComplex*>(C), ldc);
}

// One call of `impl` on the case (op, layout L, K, M, N) with A and B starting at byte offset `o`.
template <class T, class L>
void call(int op, int impl, std::int64_t K, int M, int N, std::size_t o) {
  constexpr bool row = std::is_same<L, Kokkos::LayoutRight>::value;
  constexpr bool cplx = std::is_same<T, Zd>::value;
  const T* A = reinterpret_cast<const T*>(g_A + o);
  T* B = reinterpret_cast<T*>(g_B + o);
  const T* Cin = reinterpret_cast<const T*>(g_Cin);
  T* Cout = reinterpret_cast<T*>(g_Cout);
  const T one(1), zero(0);
  if (impl == CUBLAS) {
    const cublasOperation_t H = cplx ? CUBLAS_OP_C : CUBLAS_OP_T;
    const int k = int(K);
    if (op == TSMTTSM) {
      if (row) CB(gemm(CUBLAS_OP_N, H, N, M, k, B, N, A, M, Cout, N));
      else CB(gemm(H, CUBLAS_OP_N, M, N, k, A, k, B, k, Cout, M));
    } else {
      if (row) CB(gemm(CUBLAS_OP_N, CUBLAS_OP_N, N, k, M, Cin, N, A, M, B, N));
      else CB(gemm(CUBLAS_OP_N, CUBLAS_OP_N, k, N, M, A, k, Cin, M, B, k));
    }
    return;
  }
  using Traits = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  using ConstView = Kokkos::View<const T**, L, Kokkos::CudaSpace, Traits>;
  using View = Kokkos::View<T**, L, Kokkos::CudaSpace, Traits>;
  const ConstView a(A, K, M);
  if (op == TSMTTSM) {
    const ConstView b(B, K, N);
    const View c(Cout, M, N);
    if (impl == KBLA) kbla::inner(*g_exec, one, a, b, zero, c, g_inner_options);
    else KokkosBlas::gemm("C", "N", one, a, b, zero, c);
  } else {
    const ConstView c(Cin, M, N);
    const View b(B, K, N);
    if (impl == KBLA) kbla::update(*g_exec, one, a, c, zero, b, g_update_options);
    else KokkosBlas::gemm("N", "N", one, a, c, zero, b);
  }
}

double magnitude(double x) { return std::fabs(x); }
double magnitude(const Zd& z) { return std::hypot(z.real(), z.imag()); }

struct Measured {
  bool done = false;
  Timing t;
  double gbs = 0, gfs = 0, pct = 0, check = -1;  // check < 0: not compared (cuBLAS itself, or no cuBLAS run)
};

struct CaseResult {
  Measured m[NIMPL];
  const char* tuning = "model";  // how kbla's kernel was chosen: measure (its first call timed), cache or model
  double tuning_ms = 0;          // time its first call spent measuring
};

// Measures one case for every selected implementation (cuBLAS first: its first output is the reference).
template <class T, class L>
CaseResult measure_case(int op, std::int64_t K, int M, int N, int reps, const bool* impls) {
  constexpr bool cplx = std::is_same<T, Zd>::value;
  const std::size_t es = sizeof(T);
  const std::size_t needA = std::size_t(K) * M * es, needB = std::size_t(K) * N * es;
  // rotate the start so that consecutive calls touch different memory (>= 128 MiB apart)
  const std::size_t need = std::max(needA, needB);
  const std::size_t span = kBig - need;
  const std::size_t step = ((std::max<std::size_t>(need, std::size_t(128) << 20)) + 4095) / 4096 * 4096;
  auto base = [&](int it) -> std::size_t {
    return span == 0 || !g_rotate ? 0 : (std::size_t(it) * step) % (span + 1) / 4096 * 4096;
  };
  // output compared: C (M x N), or the first 2^20 elements of B (at offset base(0) = 0)
  const std::size_t nout = op == TSMTTSM ? std::size_t(M) * N : std::min<std::size_t>(std::size_t(K) * N, 1 << 20);
  const T* out = reinterpret_cast<const T*>(op == TSMTTSM ? g_Cout : g_B);
  std::vector<T> ref, got(nout);
  const double flops = (cplx ? 8.0 : 2.0) * double(M) * N * double(K);
  const double bytes = double(es) * (double(K) * M + double(K) * N + double(M) * N);
  const double roof = std::min(flops / bytes * g_bw_read, kPeakFP64);
  CaseResult res;
  RepPlan plan[NIMPL];
  // input rotation: call 0 (each implementation's first, checked) at base(0); then call index 1, 2, ... per
  // implementation (back to back) or across all of them (--interleave)
  int next_call = 1;
  auto f_of = [&](int impl) { return [&, impl](int it) { call<T, L>(op, impl, K, M, N, base(it)); }; };
  for (int impl = 0; impl < NIMPL; ++impl) {
    if (!impls[impl]) continue;
    if (!g_interleave) next_call = 1;
    Measured& m = res.m[impl];
    auto after_first = [&] {
      if (impl == CUBLAS) {
        ref.resize(nout);
        CK(cudaMemcpy(ref.data(), out, nout * sizeof(T), cudaMemcpyDeviceToHost));
      } else if (!ref.empty()) {
        CK(cudaMemcpy(got.data(), out, nout * sizeof(T), cudaMemcpyDeviceToHost));
        double num = 0, den = 0;
        bool bad = false;  // NaN or Inf in either output
        for (std::size_t i = 0; i < nout; ++i) {
          const double d = magnitude(got[i] - ref[i]), r = magnitude(ref[i]);
          bad |= !std::isfinite(d) || !std::isfinite(r);
          num = std::max(num, d);
          den = std::max(den, r);
        }
        m.check = bad ? 1e300 : den > 0 ? num / den : num;
      }
    };
    const kbla::cuda::TallSkinnyTuningStats before = kbla::cuda::tall_skinny_tuning_stats();
    plan[impl] = warm_up(f_of(impl), reps, next_call, after_first);
    if (impl == KBLA) {
      const kbla::cuda::TallSkinnyTuningStats after = kbla::cuda::tall_skinny_tuning_stats();
      res.tuning_ms = 1e3 * (after.seconds_measuring - before.seconds_measuring);
      res.tuning = after.classes_measured > before.classes_measured ? "measure"
                   : g_inner_options.tuning.mode == kbla::tuning::TuningMode::model_only ? "model"
                                                                                           : "cache";
    }
    if (!g_interleave && plan[impl].timed)
      for (int i = 0; i < plan[impl].t.reps; ++i) plan[impl].runs.push_back(timed_call(f_of(impl), next_call++));
  }
  // --interleave: rep i of every implementation before rep i + 1 of any
  for (int i = 0; g_interleave; ++i) {
    bool any = false;
    for (int impl = 0; impl < NIMPL; ++impl) {
      if (!impls[impl] || !plan[impl].timed || i >= plan[impl].t.reps) continue;
      plan[impl].runs.push_back(timed_call(f_of(impl), next_call++));
      any = true;
    }
    if (!any) break;
  }
  CK(cudaGetLastError());
  for (int impl = 0; impl < NIMPL; ++impl) {
    if (!impls[impl]) continue;
    Measured& m = res.m[impl];
    finish(plan[impl]);
    m.t = plan[impl].t;
    m.t.ms = std::max(m.t.ms, 1e-6);  // (event resolution ~0.5 us: never 0, so the JSON never holds inf)
    m.done = true;
    m.gbs = bytes / (m.t.ms * 1e-3) / 1e9;
    m.gfs = flops / (m.t.ms * 1e-3) / 1e9;
    m.pct = 100.0 * (flops / (m.t.ms * 1e-3)) / roof;
  }
  return res;
}

// ---- output ------------------------------------------------------------------------------------------------------
std::string fmt(const char* f, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char* f, ...) {
  char b[1024];
  va_list ap;
  va_start(ap, f);
  std::vsnprintf(b, sizeof b, f, ap);
  va_end(ap);
  return b;
}

std::string json_safe(std::string s) {  // for strings written into the JSON between quotes
  for (char& c : s)
    if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20) c = '\'';
  return s;
}

std::string json_entry(const char* type, int op, const char* lay, std::int64_t K, int M, int N, const CaseResult& r,
                       const char* extra) {
  std::string s = fmt("{\"type\":\"%s\",\"op\":\"%s\",\"layout\":\"%s\",\"M\":%d,\"N\":%d,\"K\":%lld%s", type,
                      kOpName[op], lay, M, N, (long long)K, extra);
  const Measured& cu = r.m[CUBLAS];
  for (int i = 0; i < NIMPL; ++i) {
    const Measured& m = r.m[i];
    if (!m.done) continue;
    s += fmt(",\"%s\":{\"ms\":%.5g,\"GBs\":%.5g,\"GFs\":%.6g,\"pct_roof\":%.4g,\"reps\":%d,\"warmups\":%d", kImplName[i],
             m.t.ms, m.gbs, m.gfs, m.pct, m.t.reps, m.t.warmups);
    if (i != CUBLAS && cu.done) s += fmt(",\"ratio_vs_cublas\":%.4g", cu.t.ms / m.t.ms);
    if (m.check >= 0) s += fmt(",\"check_rel_diff\":%.3g", m.check);
    s += "}";
  }
  // top-level copies for kbla (the format of the earlier results files, read by plot.py)
  if (cu.done && r.m[KBLA].done) s += fmt(",\"ratio_vs_cublas\":%.4g", cu.t.ms / r.m[KBLA].t.ms);
  if (r.m[KBLA].check >= 0) s += fmt(",\"check_rel_diff\":%.3g", r.m[KBLA].check);
  if (r.m[KBLA].done) s += fmt(",\"tuning\":\"%s\",\"tuning_ms\":%.4g", r.tuning, r.tuning_ms);
  return s + "}";
}

std::string nvsmi(const char* q) {
  std::string cmd = std::string("nvidia-smi --query-gpu=") + q + " --format=csv,noheader 2>/dev/null";
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) return "";
  char buf[256] = {0};
  std::string s;
  while (fgets(buf, sizeof buf, f)) s += buf;
  pclose(f);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return json_safe(s);
}

struct Settings {
  std::string json = "tall_skinny.json";
  bool quick = false;
  bool types[2] = {true, true};  // D, Z
  std::vector<std::string> sections = {"krylov", "square", "ramp"};
  bool impls[NIMPL] = {true, true, true};
  std::vector<int> widths;  // empty: by --quick
  double max_seconds = 0;   // 0: no budget
  std::string args;
};

[[noreturn]] void usage(const std::string& why, int code = 2) {
  std::fprintf(code ? stderr : stdout,
               "kbla_bench_tall_skinny: %s\nusage: kbla_bench_tall_skinny [--json FILE] [--quick] [--types D,Z] "
               "[--sections krylov,square,ramp] [--impls kbla,cublas,kokkosblas] [--widths 1,2,8] "
               "[--max-seconds S] [--reps N] [--interleave] [--no-rotate] [--tuning model|measure] "
               "[--tuning-cache FILE]\n",
               why.c_str());
  std::exit(code);
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> v;
  std::stringstream in(s);
  for (std::string x; std::getline(in, x, ',');)
    if (!x.empty()) v.push_back(x);
  return v;
}

Settings parse(int argc, char** argv) {
  Settings s;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    s.args += (i > 1 ? " " : "") + json_safe(a);
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage("missing value after " + a);
      s.args += " " + json_safe(argv[i + 1]);
      return argv[++i];
    };
    try {
      if (a == "--help" || a == "-h") {
        usage("the tall & skinny benchmark; see the header of perf_tests/tall_skinny/bench_tall_skinny.cpp",
              0);
      } else if (a == "--quick") s.quick = true;
      else if (a == "--json" || a == "--out") s.json = value();
      else if (a == "--reps") {
        g_reps = std::stoi(value());
        if (g_reps < 1) usage("--reps must be at least 1");
      }
      else if (a == "--max-seconds") s.max_seconds = std::stod(value());
      else if (a == "--interleave") g_interleave = true;
      else if (a == "--no-rotate") g_rotate = false;
      else if (a == "--tuning") {
        const std::string m = value();
        if (m != "model" && m != "measure") usage("--tuning takes model or measure");
        g_inner_options.tuning.mode =
            m == "model" ? kbla::tuning::TuningMode::model_only : kbla::tuning::TuningMode::measure;
        g_update_options.tuning.mode = g_inner_options.tuning.mode;
      } else if (a == "--tuning-cache") {
        g_inner_options.tuning.cache_path = value();
        g_update_options.tuning.cache_path = g_inner_options.tuning.cache_path;
      }
      else if (a == "--no-ramp") s.sections.erase(std::remove(s.sections.begin(), s.sections.end(), "ramp"), s.sections.end());
      else if (a == "--types") {
        const std::string t = value();
        s.types[0] = t.find('D') != std::string::npos || t.find('d') != std::string::npos;
        s.types[1] = t.find('Z') != std::string::npos || t.find('z') != std::string::npos;
        if (!s.types[0] && !s.types[1]) usage("--types takes D, Z or D,Z");
      } else if (a == "--sections") {
        s.sections = split(value());
        for (const auto& x : s.sections)
          if (x != "square" && x != "krylov" && x != "ramp") usage("unknown section " + x);
      } else if (a == "--impls") {
        for (bool& b : s.impls) b = false;
        for (const auto& x : split(value())) {
          int k = 0;
          while (k < NIMPL && x != kImplName[k]) ++k;
          if (k == NIMPL) usage("unknown implementation " + x);
          s.impls[k] = true;
        }
      } else if (a == "--widths") {
        for (const auto& x : split(value())) s.widths.push_back(std::stoi(x));
        for (int w : s.widths)
          if (w < 1 || w > 512) usage("widths must be in 1..512");
      } else if (a.rfind("--kokkos", 0) == 0) continue;  // Kokkos' own flags
      else usage("unknown argument " + a);
    } catch (const std::logic_error&) {
      usage("bad value for " + a);
    }
  }
  return s;
}

}  // namespace


namespace {

const char* const kSmiFields = "clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,power.draw,temperature.gpu";

template <class F>
double median_of(int n, F&& f) {
  std::vector<float> t(n);
  f(0);
  for (int i = 0; i < n; ++i) t[i] = timed_call(f, i + 1);
  CK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  return n % 2 ? t[n / 2] : 0.5 * (double(t[n / 2 - 1]) + t[n / 2]);
}

// Calls f(T{}, L{}) with T = double / Kokkos::complex<double>, L = LayoutRight / LayoutLeft.
template <class F>
CaseResult dispatch(bool cplx, bool row, F&& f) {
  if (cplx) return row ? f(Zd(), Kokkos::LayoutRight()) : f(Zd(), Kokkos::LayoutLeft());
  return row ? f(double(), Kokkos::LayoutRight()) : f(double(), Kokkos::LayoutLeft());
}

int run(const Settings& s) {
  const auto t_start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count(); };
  int dev = 0;
  CK(cudaGetDevice(&dev));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, dev));
  int sm_clk = 0, mem_clk = 0, bus = 0;
  cudaDeviceGetAttribute(&sm_clk, cudaDevAttrClockRate, dev);
  cudaDeviceGetAttribute(&mem_clk, cudaDevAttrMemoryClockRate, dev);
  cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, dev);
  // Everything on the stream of the default Kokkos::Cuda instance (kbla's calls, KokkosBlas' portable kernels,
  // both cuBLAS handles), so that events on it time every implementation.
  const Kokkos::Cuda exec;
  g_exec = &exec;
  g_stream = exec.cuda_stream();
  CB(cublasCreate(&g_handle));
  CB(cublasSetStream(g_handle, g_stream));
  bool kokkosblas_cublas = false;
#ifdef KOKKOSKERNELS_ENABLE_TPL_CUBLAS
  CB(cublasSetStream(KokkosBlas::Impl::CudaBlasSingleton::singleton().handle, g_stream));
  kokkosblas_cublas = true;
#endif
  CK(cudaEventCreate(&g_e0));
  CK(cudaEventCreate(&g_e1));
  CK(cudaMalloc(&g_A, kBig));
  CK(cudaMalloc(&g_B, kBig));
  CK(cudaMalloc(&g_Cin, kSmall));
  CK(cudaMalloc(&g_Cout, kSmall));
  kbla_fill_hash_uniform<<<4096, 256, 0, g_stream>>>(reinterpret_cast<double*>(g_A), kBig / 8, 1u);
  kbla_fill_hash_uniform<<<4096, 256, 0, g_stream>>>(reinterpret_cast<double*>(g_B), kBig / 8, 7u);
  kbla_fill_hash_uniform<<<4096, 256, 0, g_stream>>>(reinterpret_cast<double*>(g_Cin), kSmall / 8, 3u);
  kbla_fill_hash_uniform<<<4096, 256, 0, g_stream>>>(reinterpret_cast<double*>(g_Cout), kSmall / 8, 5u);
  CK(cudaDeviceSynchronize());
  const std::string smi_before = nvsmi(kSmiFields);

  // bandwidths: the probe shared with kbla_driver and kbla_eigen_driver, two 2 GiB buffers of its own
  {
    const kbla_perf::Bandwidth bw = kbla_perf::measure_bandwidth(std::int64_t(1) << 28, 20);
    g_bw_read = bw.read_GBs * 1e9;
    g_bw_copy = bw.copy_GBs * 1e9;
    g_bw_forms = "read: " + bw.read_form + "; copy: " + bw.copy_form;
  }
  std::printf("device %s, %d SMs; read %.0f GB/s, copy %.0f GB/s; nvidia-smi (%s): %s\n", prop.name,
              prop.multiProcessorCount, g_bw_read / 1e9, g_bw_copy / 1e9, kSmiFields, smi_before.c_str());

  std::vector<int> widths = s.widths;
  if (widths.empty()) {
    if (s.quick) widths = {1, 2, 3, 4, 8, 16, 24, 32, 48, 64, 128, 512};
    else {
      for (int w = 1; w <= 64; ++w) widths.push_back(w);
      for (int w : {96, 128, 256, 512}) widths.push_back(w);
    }
  }

  std::vector<std::string> entries[3];  // square, krylov, ramp
  auto section_index = [](const std::string& n) { return n == "square" ? 0 : n == "krylov" ? 1 : 2; };
  int skipped = 0;
  std::string first_skipped;
  double ratio_min[NIMPL], ratio_max[NIMPL];
  for (int i = 0; i < NIMPL; ++i) ratio_min[i] = 1e300, ratio_max[i] = 0;
  int flagged = 0, failed = 0;
  std::string sections_run;
  for (const auto& x : s.sections) sections_run += (sections_run.empty() ? "\"" : ",\"") + x + "\"";

  auto write_json = [&](bool complete) {
    const std::string tmp = s.json + ".tmp";
    FILE* f = std::fopen(tmp.c_str(), "w");
    if (!f) {
      std::fprintf(stderr, "cannot write %s\n", tmp.c_str());
      return false;
    }
    std::fprintf(f, "{\n\"program\":\"kbla_bench_tall_skinny\",\"args\":\"%s\",\"complete\":%s,\"elapsed_s\":%.1f,\n",
                 s.args.c_str(), complete ? "true" : "false", elapsed());
    std::fprintf(f,
                 "\"device\":\"%s\",\"sm_count\":%d,\"sm_clock_khz_attr\":%d,\"mem_clock_khz_attr\":%d,"
                 "\"mem_bus_bits\":%d,\n\"nvidia_smi_fields\":\"%s\",\"nvidia_smi_before\":\"%s\",\n",
                 json_safe(prop.name).c_str(), prop.multiProcessorCount, sm_clk, mem_clk, bus, kSmiFields,
                 smi_before.c_str());
    std::fprintf(f,
                 "\"bw_read_GBs\":%.1f,\"bw_copy_GBs\":%.1f,\"bw_probe\":\"%s\",\"peak_fp64_TFLOPs\":%.1f,\"peak_note\":\"roofline = "
                 "min(flops/bytes(A,B,C once) * bw_read, 67 TFLOP/s FP64 tensor); pct_roof = achieved / roofline\","
                 "\n\"alpha\":1,\"beta\":0,\"reps\":%d,\"reps_rule\":\"first warm-up call; if > %.0f ms it is the "
                 "only measurement (reps 1, warmups 0); else a 2nd warm-up, then the median of 3 runs if it took > "
                 "%.0f ms, otherwise of reps runs (4 x reps in the ramp for K < 2^20)\",\"interleave\":%s,"
                 "\"rotate\":%s,\n"
                 "\"impls\":{\"kbla\":\"kbla::inner / kbla::update on unmanaged Kokkos::Views (Kokkos::Cuda)\","
                 "\"cublas\":\"cublasDgemm / cublasZgemm called directly\",\"kokkosblas\":\"KokkosBlas::gemm(C,N) / "
                 "(N,N) on the same Views (Kokkos Kernels %s cuBLAS TPL)\"},\n"
                 "\"check_note\":\"check_rel_diff: max |x - x_cublas| / max |x_cublas| over C (tsmttsm) or the first "
                 "2^20 elements of B (tsmm), from the first call\",\n"
                 "\"kokkos_stream\":\"%s\",\"sections\":[%s],\"skipped\":{\"count\":%d,\"reason\":\"%s\",\"first\":\"%s\"},\n"
                 "\"krylov_note\":\"block-Krylov shapes, M != N: tsmttsm C(p x n) = A(K x p)^H B(K x n); tsmm "
                 "B(K x n) = A(K x p) C(p x n); M = p, N = n; D, LayoutLeft\",\n",
                 g_bw_read / 1e9, g_bw_copy / 1e9, g_bw_forms.c_str(), kPeakFP64 / 1e12, g_reps, kVerySlowRun, kSlowRun,
                 g_interleave ? "true" : "false", g_rotate ? "true" : "false",
                 kokkosblas_cublas ? "with" : "without",
                 g_stream ? "a created stream (events, cuBLAS handles on it)" : "the legacy default stream 0",
                 sections_run.c_str(), skipped,
                 skipped ? fmt("--max-seconds %.0f spent", s.max_seconds).c_str() : "", first_skipped.c_str());
    const char* names[3] = {"cases", "krylov", "ramp"};
    for (int k = 0; k < 3; ++k) {
      std::fprintf(f, "\"%s\":[", names[k]);
      for (std::size_t i = 0; i < entries[k].size(); ++i)
        std::fprintf(f, "%s\n%s", i ? "," : "", entries[k][i].c_str());
      std::fprintf(f, "\n],\n");
    }
    for (int i = 1; i < NIMPL; ++i)
      if (ratio_max[i] > 0)
        std::fprintf(f, "\"%s_ratio_vs_cublas_min\":%.4g,\"%s_ratio_vs_cublas_max\":%.4g,\n", kImplName[i],
                     ratio_min[i], kImplName[i], ratio_max[i]);
    if (ratio_max[KBLA] > 0) std::fprintf(f, "\"ratio_min\":%.4g,\"ratio_max\":%.4g,\n", ratio_min[KBLA], ratio_max[KBLA]);
    const kbla::cuda::TallSkinnyTuningStats tuned = kbla::cuda::tall_skinny_tuning_stats();
    const bool model = g_inner_options.tuning.mode == kbla::tuning::TuningMode::model_only;
    std::fprintf(f,
                 "\"tuning\":\"%s\",\"tuning_mode\":\"%s\",\"tuning_cache\":\"%s\",\"tuning_classes_measured\":%lld,"
                 "\"tuning_ms_total\":%.4g,\"tuning_ms_per_class\":%.4g,\"tuning_note\":\"tuning: measure when any "
                 "class was timed in this run, else cache (measure mode) or model\",\n",
                 tuned.classes_measured > 0 ? "measure" : model ? "model" : "cache", model ? "model" : "measure",
                 json_safe(g_inner_options.tuning.cache_path).c_str(), tuned.classes_measured,
                 1e3 * tuned.seconds_measuring,
                 tuned.classes_measured ? 1e3 * tuned.seconds_measuring / tuned.classes_measured : 0.0);
    std::fprintf(f, "\"checks_flagged\":%d,\"checks_failed\":%d,\"nvidia_smi_after\":\"%s\"\n}\n", flagged, failed,
                 complete ? nvsmi(kSmiFields).c_str() : "");
    std::fclose(f);
    return std::rename(tmp.c_str(), s.json.c_str()) == 0;
  };
  double last_write = 0;

  std::printf("%-4s %-7s %-3s %4s %4s %10s |", "type", "op", "lay", "M", "N", "K");
  for (int i = 0; i < NIMPL; ++i)
    if (s.impls[i]) std::printf(" %10s%% %7s |", kImplName[i], "GF/s");
  std::printf(" ratio(kbla) ratio(kk) | check(kbla,kk) | reps | t\n");

  // one case: measure, print, record; false when the budget is spent (the case is skipped)
  auto one = [&](int sec, bool cplx, int op, bool row, std::int64_t K, int M, int N, int reps,
                 const std::string& extra) {
    const char* tn = cplx ? "Z" : "D";
    const char* ln = row ? "R" : "C";
    if (s.max_seconds > 0 && elapsed() > s.max_seconds) {
      if (!skipped++)
        first_skipped = fmt("%s %s %s %s M=%d N=%d K=%lld", sec == 0 ? "square" : sec == 1 ? "krylov" : "ramp", tn,
                            kOpName[op], ln, M, N, (long long)K);
      return;
    }
    const CaseResult r = dispatch(cplx, row, [&](auto t, auto l) {
      return measure_case<decltype(t), decltype(l)>(op, K, M, N, reps, s.impls);
    });
    std::printf("%-4s %-7s %-3s %4d %4d %10lld |", tn, kOpName[op], ln, M, N, (long long)K);
    for (int i = 0; i < NIMPL; ++i)
      if (s.impls[i]) std::printf(" %10.1f%% %7.0f |", r.m[i].pct, r.m[i].gfs);
    const Measured& cu = r.m[CUBLAS];
    for (int i : {KBLA, KOKKOSBLAS}) {
      if (cu.done && r.m[i].done) {
        const double q = cu.t.ms / r.m[i].t.ms;
        std::printf(" %10.2f", q);
        if (sec == 0) ratio_min[i] = std::min(ratio_min[i], q), ratio_max[i] = std::max(ratio_max[i], q);
      } else
        std::printf(" %10s", "-");
    }
    std::printf(" |");
    for (int i : {KBLA, KOKKOSBLAS}) {
      const double c = r.m[i].check;
      if (c < 0) std::printf("   -    ");
      else std::printf(" %.1e%s", c, c > kCheckFlag ? " CHECK!" : "");
      flagged += c > kCheckFlag;
      failed += c > kCheckFail;
    }
    std::printf(" | %d/%d/%d | %.1fs\n", r.m[CUBLAS].t.reps, r.m[KBLA].t.reps, r.m[KOKKOSBLAS].t.reps, elapsed());
    std::fflush(stdout);
    entries[sec].push_back(json_entry(tn, op, ln, K, M, N, r, extra.c_str()));
    if (elapsed() - last_write > 5) {
      write_json(false);
      last_write = elapsed();
    }
  };

  for (const std::string& sec : s.sections) {
    const int si = section_index(sec);
    std::printf("--- section %s (%.1f s)\n", sec.c_str(), elapsed());
    if (sec == "square") {
      for (int cplx = 0; cplx < 2; ++cplx)
        for (int op = 0; op < 2; ++op)
          for (bool row : {true, false})
            for (int w : widths) {
              if (!s.types[cplx]) continue;
              const std::int64_t K = (std::int64_t(1) << (cplx ? 28 : 29)) / w;
              one(si, cplx, op, row, K, w, w, g_reps, "");
            }
    } else if (sec == "krylov") {
      if (!s.types[0]) continue;  // D only
      for (int op = 0; op < 2; ++op)
        for (std::int64_t K : {std::int64_t(1) << 20, std::int64_t(1000000)})
          for (int n : {8, 16})
            for (int p : {16, 32, 48, 64, 96, 128}) one(si, false, op, false, K, p, n, g_reps, "");
    } else {
      for (int cplx = 0; cplx < 2; ++cplx)
        for (int op = 0; op < 2; ++op)
          for (bool row : {true, false})
            for (int w : {4, 16, 64})
              for (int e = 10; e <= 27; e += (s.quick ? 3 : 1)) {
                if (!s.types[cplx]) continue;
                // A and B must fit the 4 GiB buffers: K w <= 2^29 (D), 2^28 (Z)
                if ((std::int64_t(1) << e) * w > (std::int64_t(1) << (cplx ? 28 : 29))) continue;
                const std::int64_t K = std::int64_t(1) << e;
                one(si, cplx, op, row, K, w, w, e < 20 ? 4 * g_reps : g_reps, fmt(",\"w\":%d", w));
              }
    }
  }
  if (skipped)
    std::printf("BUDGET: --max-seconds %.0f spent, %d case(s) skipped from %s on\n", s.max_seconds, skipped,
                first_skipped.c_str());
  const bool ok = write_json(true);
  std::printf("kbla / cuBLAS speed (square): min %.3g max %.3g; KokkosBlas / cuBLAS: min %.3g max %.3g; checks "
              "flagged %d, failed %d; %.1f s\nwrote %s\n",
              ratio_min[KBLA], ratio_max[KBLA], ratio_min[KOKKOSBLAS], ratio_max[KOKKOSBLAS], flagged, failed,
              elapsed(), s.json.c_str());
  cublasDestroy(g_handle);
  cudaFree(g_A);
  cudaFree(g_B);
  cudaFree(g_Cin);
  cudaFree(g_Cout);
  return !ok ? 3 : failed ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Settings s = parse(argc, argv);  // before Kokkos: bad arguments are reported without a GPU
  Kokkos::initialize(argc, argv);
  const int rc = run(s);
  Kokkos::finalize();
  return rc;
}
