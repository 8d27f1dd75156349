// The selection between the own tall & skinny kernels and cuBLAS (tall_skinny_select.hpp) for the running GPU.
//
// Model (no per-GPU table): the own kernels ("own") for every class that reaches the selection, i.e. widths up to
// 64 and the narrow shapes. They were written for exactly these bandwidth-bound shapes and reach the read
// roofline at most of them on the GPUs measured, while cuBLAS's gemm heuristics aim at compute-bound shapes; the
// exceptions (classes where cuBLAS's kernel choice happens to fit, which change with the GPU, the cuBLAS release
// and within an octave of the row count) are not predicted by any device property we have, so they are left to
// the measurement rather than guessed.
//
// Measurement (TuningMode::measure): the first call of a class on a device runs each candidate once to warm up,
// then times 4 calls (1 when a call takes over a millisecond) with CUDA events on the caller's stream (a candidate
// whose call on 1/64 of the rows is already 4x slower than the best so far stops there), on scratch operands of
// the class, filled with varied values (fill_varied): the caller's layouts, leading dimensions and pointer offsets
// (mod 256 bytes), and the caller's K. K is only clamped (keeping K mod 32) when A and B together would exceed a
// quarter of the free device memory or 16 GB: a smaller K is a different regime (cuBLAS changes its split of K and its
// kernel with the row count, and an own kernel's fixed costs weigh more), and choices measured on 256 MB stand-ins of
// 4-8 GB operands picked the slower candidate for some inner classes on an H200. The caller's buffers are never read or
// written. Scratch up to kKeptScratch bytes is one buffer per device and stream, grown as needed and kept (workspace
// slot kScratchSlot); a larger one is allocated for the measurement and freed after it. Cost per class: about a dozen
// calls on the caller's sizes (at 4-5 TB/s about 10 ms for 8 GB of operands), plus the first launch of each (cuBLAS's
// heuristics, module loading). Only the caller's stream is waited for (and the device, when a large scratch buffer is
// allocated or freed). A candidate that returns an error is skipped; when nothing could be timed (no memory for the
// scratch operands, stream capture under way) the model's pick is used and nothing is recorded. Two candidates
// within 1.5x of each other are timed four more times, A B B A, and decided on their means (tuning::choose_kernel);
// those timings run warm, 4 calls each (1 over a millisecond), with no probe or warm-up.
#include <cublas_v2.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cmath>
#include <map>
#include <mutex>
#include <sstream>
#include <vector>

#include <tuning/kbla_kernel_choice.hpp>

#include "tall_skinny_common.cuh"
#include "tall_skinny_cublas.hpp"
#include "tall_skinny_select.hpp"

#ifndef KBLA_LIBRARY_VERSION
#define KBLA_LIBRARY_VERSION "unversioned"  // the CMake build passes the project version (src/cuda/CMakeLists.txt)
#endif

namespace kbla {
namespace cuda {
namespace detail {
namespace {

constexpr int kScratchSlot = 3;                              // workspace() slots 0-2 are the kernels' own
constexpr std::size_t kKeptScratch = std::size_t(512) << 20;  // larger scratch is freed after the measurement
constexpr std::size_t kScratchLimit = std::size_t(16) << 30;  // bytes of the scratch A and B together, at most
constexpr double kLongCallSeconds = 1e-3;                    // a candidate this slow is timed once
constexpr int kTimedCalls = 4;
constexpr double kProbeSlack = 4;  // a candidate whose probe is this much slower than the best has lost

const std::string& own_name() {
  static const std::string name = "own";
  return name;
}
const std::string& cublas_name() {
  static const std::string name = "cublas";
  return name;
}

struct Counters {
  std::mutex mutex;  // guards classes_measured and seconds_measuring
  long long classes_measured = 0;
  double seconds_measuring = 0;
  std::atomic<long long> own_chosen{0};
  std::atomic<long long> cublas_chosen{0};
};
Counters& counters() {
  static Counters* c = new Counters();  // never destroyed: calls may come from static destructors
  return *c;
}

template <class Scalar>
char type_letter() {
  if (std::is_same<Scalar, float>::value) return 'S';
  if (std::is_same<Scalar, double>::value) return 'D';
  if (std::is_same<Scalar, std::complex<float>>::value) return 'C';
  return 'Z';
}
char layout_letter(Layout l) { return l == Layout::RowMajor ? 'R' : 'C'; }

// One matrix operand of a call as the own dispatch sees it.
struct Operand {
  const void* pointer;
  std::int64_t ld;
  Layout layout;
  std::int64_t rows, cols;
};

// The parts of a tall operand the own dispatch depends on: column-major ld mod 32 (the tables test ld mod 4 and
// mod 32; with a dense operand it is K mod 32 as well), row-major ld against the column count (staged runs need
// them equal), the address mod 16 bytes (vector and bulk loads).
std::string tall_operand_class(const Operand& o) {
  std::ostringstream s;
  s << layout_letter(o.layout);
  if (o.layout == Layout::RowMajor) {
    if (o.ld == o.cols)
      s << ",ld=cols";
    else
      s << ",ld=" << o.ld;
  } else {
    s << ",ld%32=" << o.ld % 32;
  }
  s << ",at%16=" << reinterpret_cast<std::uintptr_t>(o.pointer) % 16;
  return s.str();
}

// The same class as numbers, with the device and the cache: the key of the per-process memo of settled choices,
// so that repeated calls of a class skip formatting the class and the cache's string lookup.
using MemoKey = std::array<long long, 16>;
long long ld_code(const Operand& o) {
  if (o.layout == Layout::RowMajor) return o.ld == o.cols ? -1 : o.ld;
  return o.ld % 32;
}
template <class Scalar>
MemoKey memo_key(const void* cache, bool inner, std::int64_t K, int M, int N, const Operand& a, const Operand& b,
                 const Operand& c, bool beta_zero, bool complex_3m) {
  return MemoKey{current_device(),
                 static_cast<long long>(reinterpret_cast<std::uintptr_t>(cache)),
                 inner,
                 type_letter<Scalar>(),
                 M,
                 N,
                 row_bucket(K),
                 a.layout == Layout::RowMajor,
                 b.layout == Layout::RowMajor,
                 c.layout == Layout::RowMajor,
                 ld_code(a),
                 ld_code(b),
                 static_cast<long long>(reinterpret_cast<std::uintptr_t>(a.pointer) % 16),
                 static_cast<long long>(reinterpret_cast<std::uintptr_t>(b.pointer) % 16),
                 beta_zero,
                 complex_3m};
}
struct Memo {
  std::mutex mutex;
  std::map<MemoKey, bool> takes_cublas;  // only choices the cache holds (measured or read from its file)
};
Memo& memo() {
  static Memo* m = new Memo();  // never destroyed, as the counters
  return *m;
}

// In place calls never reach the selection (cuBLAS cannot run them), so "in place" is not part of the key.
template <class Scalar>
std::string call_class(const char* op, std::int64_t K, int M, int N, const Operand& a, const Operand& b,
                       const Operand& c, bool beta_zero, bool complex_3m) {
  std::ostringstream s;
  s << op << ' ' << type_letter<Scalar>() << ' ' << M << 'x' << N << " rows=b" << row_bucket(K)
    << " A:" << tall_operand_class(a) << " B:" << tall_operand_class(b) << " C:" << layout_letter(c.layout)
    << (beta_zero ? " beta=0" : " beta!=0");
  if (complex_3m) s << " 3m";
  return s.str();
}

// Fills the scratch operands with varied values in [-1, 1) (a hash of the index; finite in every type), the kind of
// data callers have, so that the timed calls see the bit patterns (and the power draw) of real operands rather
// than one repeated byte as cudaMemset writes. Every mantissa bit varies: with values of 16 significant bits (an
// earlier form of this fill) complex inner at widths 63-64, bound by the FP64 tensor cores under the power limit on
// an H200, ran its own kernel faster on the scratch than on random data, and the selection took it where cuBLAS
// was 6-10 % faster.
template <class Real>
__global__ void fill_varied_kernel(Real* data, std::size_t count) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    std::uint64_t h = std::uint64_t(i) + 0x9e3779b97f4a7c15ull;  // splitmix64 of the index
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
    h ^= h >> 31;
    const double unit = double(h >> 11) * 0x1.0p-53;  // 53 random bits in [0, 1)
    data[i] = Real(2.0 * unit - 1.0);
  }
}
template <class Real>
cudaError_t fill_varied(cudaStream_t stream, void* buffer, std::size_t bytes) {
  const std::size_t count = bytes / sizeof(Real);
  if (count == 0) return cudaSuccess;
  int device = 0, sms = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess)
    return cudaErrorUnknown;
  constexpr int threads = 256;
  const std::size_t wanted = (count + threads - 1) / threads;
  const unsigned blocks = unsigned(std::min<std::size_t>(wanted, std::size_t(sms) * 8));
  fill_varied_kernel<Real><<<blocks, threads, 0, stream>>>(static_cast<Real*>(buffer), count);
  return cudaGetLastError();
}

// Where the scratch copies of A, B and C sit in the scratch buffer, and the K and leading dimensions they have.
struct ScratchPlan {
  std::int64_t K = 0, lda = 0, ldb = 0;
  std::size_t a = 0, b = 0, c = 0, bytes = 0;
};

std::size_t bytes_of(const Operand& o, std::int64_t rows, std::int64_t ld, std::size_t elem) {
  return std::size_t(o.layout == Layout::RowMajor ? rows * ld : ld * o.cols) * elem;
}

// Bytes the scratch A and B may take: a quarter of the free device memory, at most kScratchLimit.
std::size_t scratch_cap() {
  std::size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) return kKeptScratch / 2;
  return std::min(kScratchLimit, std::max(kKeptScratch / 2, free_bytes / 4));
}

bool plan_scratch(std::int64_t K, const Operand& a, const Operand& b, const Operand& c, std::size_t elem,
                  ScratchPlan& plan) {
  auto per_row = [&](const Operand& o) { return std::size_t(o.layout == Layout::RowMajor ? o.ld : o.cols) * elem; };
  const std::size_t cap = scratch_cap();
  const std::int64_t cap_rows = std::int64_t(cap / (per_row(a) + per_row(b)));
  std::int64_t Kc = K;
  if (K > cap_rows) Kc = K - 32 * ((K - cap_rows + 31) / 32);  // same K mod 32
  if (Kc < 1) return false;
  plan.K = Kc;
  auto ld_of = [&](const Operand& o) { return o.layout == Layout::RowMajor ? o.ld : o.ld - (K - Kc); };
  plan.lda = ld_of(a);
  plan.ldb = ld_of(b);
  std::size_t cursor = 0;
  auto place = [&](const Operand& o, std::size_t bytes) {  // the caller's offset within 256 bytes, kept
    const std::size_t at = (cursor + 255) / 256 * 256 + reinterpret_cast<std::uintptr_t>(o.pointer) % 256;
    cursor = at + bytes;
    return at;
  };
  plan.a = place(a, bytes_of(a, Kc, plan.lda, elem));
  plan.b = place(b, bytes_of(b, Kc, plan.ldb, elem));
  plan.c = place(c, bytes_of(c, c.rows, c.ld, elem));
  plan.bytes = cursor;
  return plan.bytes <= 2 * cap;  // a huge ld (operands far apart) is not worth the memory
}

// Seconds per call of run(K) on `stream`, or -1 when it fails. With a budget (the best time so far times
// kProbeSlack), a candidate first runs on K / 64 rows: when that alone exceeds the budget, the candidate has lost
// (the time grows with K) and its probe time is returned, which bounds the cost of a pathological candidate (cuBLAS
// takes seconds on some complex width-1 shapes) to two calls on 1/64 of the rows.
//
// A candidate timed again (a close race's A B B A rounds) is warm and known not to have lost: `repeat_calls` > 0
// times that many calls straight away, without the probe, the warm-up or the single call that sorts out long ones
// (a close race of large classes cost as much as the first pass twice over).
template <class Run>
double time_calls(cudaStream_t stream, std::int64_t K, double budget, int repeat_calls, Run&& run) {
  cudaEvent_t start = nullptr, stop = nullptr;
  if (cudaEventCreate(&start) != cudaSuccess) return -1;
  if (cudaEventCreate(&stop) != cudaSuccess) {
    cudaEventDestroy(start);
    return -1;
  }
  auto timed = [&](int calls, std::int64_t rows) -> double {  // seconds per call, -1 on failure
    if (cudaEventRecord(start, stream) != cudaSuccess) return -1;
    for (int i = 0; i < calls; ++i)
      if (run(rows) != cudaSuccess) return -1;
    float ms = 0;
    if (cudaEventRecord(stop, stream) != cudaSuccess || cudaEventSynchronize(stop) != cudaSuccess ||
        cudaEventElapsedTime(&ms, start, stop) != cudaSuccess)
      return -1;
    return 1e-3 * ms / calls;
  };
  double seconds = -1;
  if (repeat_calls > 0) {
    seconds = timed(repeat_calls, K);
  } else {
    const std::int64_t probe_rows = K / 64;
    bool lost = false;
    if (budget > 0 && probe_rows >= 1024 && run(probe_rows) == cudaSuccess) {  // warm-up, then the probe
      const double probe = timed(1, probe_rows);
      if (probe > budget) {
        seconds = probe;
        lost = true;
      }
    }
    if (!lost && run(K) == cudaSuccess) {  // warm-up (first launch, cuBLAS heuristics)
      seconds = timed(1, K);
      if (seconds >= 0 && seconds < kLongCallSeconds) seconds = timed(kTimedCalls, K);
    }
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return seconds;
}

// The selection for one call (both ops: A and B are the tall operands, C the small one; `inner` says which of B
// and C is written).
template <class Scalar>
bool takes_cublas(bool inner, cudaStream_t stream, std::int64_t K, int M, int N, Scalar alpha, Scalar beta,
                  const Operand& a, const Operand& b, const Operand& c, const TallSkinnyOptions& options) {
  Counters& count = counters();
  // Deterministic calls: the model's pick, so that the kernel (and so the bits) never depends on a measurement.
  if (options.deterministic) {
    ++count.own_chosen;
    return false;
  }
  tuning::TuningMode mode = options.tuning;
  if (mode == tuning::TuningMode::measure) {  // no allocation or waiting while a graph is being captured
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(stream, &capture) != cudaSuccess || capture != cudaStreamCaptureStatusNone)
      mode = tuning::TuningMode::model_only;
  }
  const bool beta_zero = beta == Scalar(0);
  const bool complex_3m = inner && options.complex_3m;
  tuning::ChoiceCache& cache = tuning::process_choice_cache(options.choice_cache_path);
  const MemoKey key = memo_key<Scalar>(&cache, inner, K, M, N, a, b, c, beta_zero, complex_3m);
  {
    Memo& m = memo();
    std::lock_guard<std::mutex> guard(m.mutex);
    const auto found = m.takes_cublas.find(key);
    if (found != m.takes_cublas.end()) {
      ++(found->second ? count.cublas_chosen : count.own_chosen);
      return found->second;
    }
  }
  const std::string cls = call_class<Scalar>(inner ? "inner" : "update", K, M, N, a, b, c, beta_zero, complex_3m);

  using Clock = std::chrono::steady_clock;
  Clock::time_point started;
  bool measuring = false, planned = false;
  double best = -1;  // the fastest candidate so far
  ScratchPlan plan;
  char* base = nullptr;
  void* temporary = nullptr;  // scratch above kKeptScratch, freed after the measurement
  std::map<std::string, double> first_seconds;  // each candidate's first timing in this measurement
  auto time_seconds = [&](const std::string& name) -> double {
    if (!measuring) {
      measuring = true;
      started = Clock::now();
      void* p = nullptr;
      planned = plan_scratch(K, a, b, c, sizeof(Scalar), plan);
      if (planned && plan.bytes > kKeptScratch) {
        planned = cudaMalloc(&temporary, plan.bytes) == cudaSuccess;
        if (!planned) (void)cudaGetLastError();  // out of memory: clear it, the model's pick is used
        p = temporary;
      } else if (planned) {
        planned = workspace(stream, kScratchSlot, plan.bytes, &p) == cudaSuccess;
      }
      planned = planned && fill_varied<typename ScalarOf<Scalar>::Real>(stream, p, plan.bytes) == cudaSuccess;
      base = static_cast<char*>(p);
    }
    if (!planned) return -1;
    Scalar* sa = reinterpret_cast<Scalar*>(base + plan.a);
    Scalar* sb = reinterpret_cast<Scalar*>(base + plan.b);
    Scalar* sc = reinterpret_cast<Scalar*>(base + plan.c);
    TallSkinnyOptions own = options;
    own.allow_cublas = false;
    const bool use_cublas = name == cublas_name();
    const auto earlier = first_seconds.find(name);
    const int repeat_calls =
        earlier == first_seconds.end() ? 0 : earlier->second >= kLongCallSeconds ? 1 : kTimedCalls;
    // rows <= plan.K: the leading dimensions of the plan hold for every shorter run
    const double t =
        time_calls(stream, plan.K, best > 0 ? kProbeSlack * best : -1, repeat_calls, [&](std::int64_t rows) {
          if (inner)
            return use_cublas ? cublas_tsmttsm(stream, rows, M, N, alpha, sa, plan.lda, a.layout, sb, plan.ldb,
                                               b.layout, beta, sc, c.ld, c.layout)
                              : tsmttsm<Scalar>(stream, rows, M, N, alpha, sa, plan.lda, a.layout, sb, plan.ldb,
                                                b.layout, beta, sc, c.ld, c.layout, own);
          return use_cublas ? cublas_tsmm(stream, rows, M, N, alpha, sa, plan.lda, a.layout, sc, c.ld, c.layout, beta,
                                          sb, plan.ldb, b.layout)
                            : tsmm<Scalar>(stream, rows, M, N, alpha, sa, plan.lda, a.layout, sc, c.ld, c.layout, beta,
                                           sb, plan.ldb, b.layout, own);
        });
    if (t >= 0 && (best < 0 || t < best)) best = t;
    if (t >= 0 && earlier == first_seconds.end()) first_seconds[name] = t;
    return t;
  };
  static const std::vector<std::string> candidates{own_name(), cublas_name()};
  const std::string device = device_key();
  const std::string pick = tuning::choose_kernel(cache, mode, device, cls, candidates, own_name(), time_seconds);
  if (temporary) {
    (void)cudaStreamSynchronize(stream);
    (void)cudaFree(temporary);
  }
  if (measuring && planned) {
    const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
    std::lock_guard<std::mutex> guard(count.mutex);
    ++count.classes_measured;
    count.seconds_measuring += seconds;
  }
  const bool cublas = pick == cublas_name();
  ++(cublas ? count.cublas_chosen : count.own_chosen);
  tuning::Choice settled;  // a model pick with nothing cached is not memoized: a measuring call may still come
  if (cache.find(device, cls, settled) && settled.kernel == pick) {
    Memo& m = memo();
    std::lock_guard<std::mutex> guard(m.mutex);
    m.takes_cublas[key] = cublas;
  }
  return cublas;
}

}  // namespace

int row_bucket(std::int64_t K) {
  if (K <= 1) return 0;
  return std::min(63, int(std::floor(2.0 * std::log2(double(K)))));
}

std::string device_key() {
  static std::mutex mutex;
  static std::map<int, std::string> keys;
  const int device = current_device();
  std::lock_guard<std::mutex> guard(mutex);
  const auto found = keys.find(device);
  if (found != keys.end()) return found->second;
  cudaDeviceProp prop{};
  int driver = 0, cublas_major = 0, cublas_minor = 0, cublas_patch = 0;
  const bool have_prop = device >= 0 && cudaGetDeviceProperties(&prop, device) == cudaSuccess;
  cudaDriverGetVersion(&driver);
  cublasGetProperty(MAJOR_VERSION, &cublas_major);
  cublasGetProperty(MINOR_VERSION, &cublas_minor);
  cublasGetProperty(PATCH_LEVEL, &cublas_patch);
  std::ostringstream s;
  s << (have_prop ? prop.name : "unknown GPU") << " sm=" << (have_prop ? prop.multiProcessorCount : 0)
    << " driver=" << driver << " cublas=" << cublas_major << '.' << cublas_minor << '.' << cublas_patch
    << " kbla=" << KBLA_LIBRARY_VERSION;
  std::string key = s.str();
  for (char& ch : key)
    if (ch == '\t' || ch == '\n' || ch == '\r') ch = ' ';  // the cache's field separators
  keys[device] = key;
  return key;
}

template <class Scalar>
bool inner_takes_cublas(cudaStream_t stream, std::int64_t K, int M, int N, Scalar alpha, const Scalar* A,
                        std::int64_t lda, Layout la, const Scalar* B, std::int64_t ldb, Layout lb, Scalar beta,
                        const Scalar* C, std::int64_t ldc, Layout lc, const TallSkinnyOptions& options) {
  return takes_cublas<Scalar>(true, stream, K, M, N, alpha, beta, Operand{A, lda, la, K, M}, Operand{B, ldb, lb, K, N},
                         Operand{C, ldc, lc, M, N}, options);
}

template <class Scalar>
bool update_takes_cublas(cudaStream_t stream, std::int64_t K, int M, int N, Scalar alpha, const Scalar* A,
                         std::int64_t lda, Layout la, const Scalar* C, std::int64_t ldc, Layout lc, Scalar beta,
                         const Scalar* B, std::int64_t ldb, Layout lb, const TallSkinnyOptions& options) {
  return takes_cublas<Scalar>(false, stream, K, M, N, alpha, beta, Operand{A, lda, la, K, M}, Operand{B, ldb, lb, K, N},
                         Operand{C, ldc, lc, M, N}, options);
}

#define KBLA_TS_SELECT_INST(Scalar)                                                                                    \
  template bool inner_takes_cublas<Scalar>(cudaStream_t, std::int64_t, int, int, Scalar, const Scalar*, std::int64_t,  \
                                           Layout, const Scalar*, std::int64_t, Layout, Scalar, const Scalar*,         \
                                           std::int64_t, Layout, const TallSkinnyOptions&);                            \
  template bool update_takes_cublas<Scalar>(cudaStream_t, std::int64_t, int, int, Scalar, const Scalar*, std::int64_t, \
                                            Layout, const Scalar*, std::int64_t, Layout, Scalar, const Scalar*,        \
                                            std::int64_t, Layout, const TallSkinnyOptions&);
KBLA_TS_SELECT_INST(float)
KBLA_TS_SELECT_INST(double)
KBLA_TS_SELECT_INST(std::complex<float>)
KBLA_TS_SELECT_INST(std::complex<double>)
#undef KBLA_TS_SELECT_INST

}  // namespace detail

TallSkinnyTuningStats tall_skinny_tuning_stats() {
  detail::Counters& count = detail::counters();
  TallSkinnyTuningStats stats;
  {
    std::lock_guard<std::mutex> guard(count.mutex);
    stats.classes_measured = count.classes_measured;
    stats.seconds_measuring = count.seconds_measuring;
  }
  stats.own_chosen = count.own_chosen.load();
  stats.cublas_chosen = count.cublas_chosen.load();
  return stats;
}

}  // namespace cuda
}  // namespace kbla
