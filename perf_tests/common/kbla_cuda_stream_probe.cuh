// The streaming-bandwidth probe on NVIDIA GPUs, shared by kbla_driver, kbla_eigen_driver and the tall & skinny
// benchmark (through kbla_measured_bandwidth.hpp): the roofline every "% of bandwidth" figure is held to.
//
// It must reach the best rate the GPU streams at, or the library's own kernels would appear to beat it. No single
// kernel shape does that on every GPU, so the probe times a few plain forms (grid-stride or one contiguous range
// per block; one to eight streams read side by side; 2 to 8 loads in flight per stream; with or without the 256-byte L2
// prefetch hint; two occupancies; on sm_90 and later also bulk copies (the TMA engine) into rings of shared memory,
// which keep the most bytes in flight per SM) and keeps the fastest. No Kokkos.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace kbla_perf {
namespace cuda_probe {

enum class Walk { grid_stride, block_range };

// 16-byte read-only load; with prefetch, the L2 fetches the whole 256-byte line pair at once.
template <bool Prefetch>
__device__ __forceinline__ double2 load16(const double2* p) {
  if constexpr (Prefetch) {
    double2 v;
    asm("ld.global.nc.L2::256B.v2.f64 {%0, %1}, [%2];" : "=d"(v.x), "=d"(v.y) : "l"(p));
    return v;
  } else {
    return __ldg(p);
  }
}

// [begin, end) of the n items this block walks, and the stride between one thread's items.
template <Walk walk>
__device__ __forceinline__ void block_span(std::size_t n, std::size_t& first, std::size_t& end, std::size_t& step) {
  if constexpr (walk == Walk::grid_stride) {
    first = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    end = n;
    step = std::size_t(gridDim.x) * blockDim.x;
  } else {
    const std::size_t per_block = (n + gridDim.x - 1) / gridDim.x;
    first = blockIdx.x * per_block + threadIdx.x;
    const std::size_t last = (blockIdx.x + 1) * per_block;
    end = last < n ? last : n;
    step = blockDim.x;
  }
}

// Sums n 16-byte items as `streams` equal parts walked side by side (an inner product reads A and B, and a
// column-major one each column, as separate streams), `unroll` loads per stream in flight per thread; the store practically never happens but keeps the loads.
template <Walk walk, bool Prefetch, int streams, int unroll>
__global__ void read_kernel(const double2* __restrict__ x, std::size_t n, double* sink) {
  const std::size_t part = n / streams;
  std::size_t i, end, step;
  block_span<walk>(part, i, end, step);
  double s = 0;
  for (; i + (unroll - 1) * step < end; i += unroll * step) {
    double2 v[streams][unroll];
#pragma unroll
    for (int u = 0; u < unroll; ++u)
#pragma unroll
      for (int p = 0; p < streams; ++p) v[p][u] = load16<Prefetch>(x + p * part + i + u * step);
#pragma unroll
    for (int u = 0; u < unroll; ++u)
#pragma unroll
      for (int p = 0; p < streams; ++p) s += v[p][u].x + v[p][u].y;
  }
  for (; i < end; i += step)
#pragma unroll
    for (int p = 0; p < streams; ++p) {
      const double2 a = load16<Prefetch>(x + p * part + i);
      s += a.x + a.y;
    }
  if (s == 1.2345e-300) sink[blockIdx.x] = s;
}

template <Walk walk, bool Prefetch>
__global__ void copy_kernel(const double2* __restrict__ x, double2* __restrict__ y, std::size_t n) {
  std::size_t i, end, step;
  block_span<walk>(n, i, end, step);
  for (; i + step < end; i += 2 * step) {
    const double2 a = load16<Prefetch>(x + i), b = load16<Prefetch>(x + i + step);
    y[i] = a;
    y[i + step] = b;
  }
  for (; i < end; i += step) y[i] = load16<Prefetch>(x + i);
}

// Bulk-copy form: one thread per block streams `chunk`-byte pieces (chunks blockIdx.x, + gridDim.x, ...) into a ring
// of `stages` shared-memory stages with cp.async.bulk, each completing on its own mbarrier; a piece is consumed
// (one word summed) before its stage is refilled. Up to stages * chunk bytes per block are in flight without
// holding a register, which is how the library's own bulk-copy kernels read.
constexpr int kMaxBulkStages = 16;
__global__ void bulk_read_kernel(const char* __restrict__ x, std::size_t chunks, unsigned chunk, int stages,
                                 double* sink) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  extern __shared__ __align__(128) unsigned char ring[];
  __shared__ __align__(8) unsigned long long full[kMaxBulkStages];
  if (threadIdx.x != 0) return;
  const unsigned ring0 = static_cast<unsigned>(__cvta_generic_to_shared(ring));
  const unsigned bar0 = static_cast<unsigned>(__cvta_generic_to_shared(full));
  for (int s = 0; s < stages; ++s) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar0 + 8 * s) : "memory");
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  auto issue = [&](int s, std::size_t c) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar0 + 8 * s), "r"(chunk) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                     ring0 + s * chunk),
                 "l"(x + c * chunk), "r"(chunk), "r"(bar0 + 8 * s)
                 : "memory");
  };
  std::size_t next = blockIdx.x;
  for (int s = 0; s < stages && next < chunks; ++s, next += gridDim.x) issue(s, next);
  double sum = 0;
  std::size_t i = 0;
  for (std::size_t c = blockIdx.x; c < chunks; c += gridDim.x, ++i) {
    const int s = int(i % stages);
    const unsigned parity = unsigned(i / stages) & 1u;
    unsigned done = 0;
    do {
      asm volatile(
          "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
          : "=r"(done)
          : "r"(bar0 + 8 * s), "r"(parity)
          : "memory");
    } while (!done);
    sum += *reinterpret_cast<const volatile double*>(ring + std::size_t(s) * chunk);
    // the read above (generic proxy) before the refill (async proxy) of the same stage
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    if (next < chunks) {
      issue(s, next);
      next += gridDim.x;
    }
  }
  if (sum == 1.2345e-300) sink[blockIdx.x] = sum;
#endif
}

inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("bandwidth probe: ") + what + ": " + cudaGetErrorString(e));
}

// Median over reps samples of the time per launch, each sample timing kLaunchesPerSample launches back to back
// (as the library's calls run in an application: the gaps between launches are not the memory's).
constexpr int kLaunchesPerSample = 4;

template <class Launch>
double median_ms(int reps, Launch&& launch) {
  cudaEvent_t e0, e1;
  check(cudaEventCreate(&e0), "cudaEventCreate");
  check(cudaEventCreate(&e1), "cudaEventCreate");
  launch();  // warm-up
  std::vector<float> t(std::max(reps, 1));
  for (float& ms : t) {
    check(cudaEventRecord(e0, 0), "cudaEventRecord");
    for (int i = 0; i < kLaunchesPerSample; ++i) launch();
    check(cudaEventRecord(e1, 0), "cudaEventRecord");
    check(cudaEventSynchronize(e1), "cudaEventSynchronize");
    check(cudaEventElapsedTime(&ms, e0, e1), "cudaEventElapsedTime");
    ms /= kLaunchesPerSample;
  }
  check(cudaGetLastError(), "kernel launch");
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

struct Rate {
  double GBs = 0;
  std::string form;
};

template <Walk walk, bool Prefetch>
std::string form_name(int blocks_per_sm) {
  return std::string(walk == Walk::grid_stride ? "grid-stride" : "block-range") + (Prefetch ? "+L2::256B" : "") +
         ", " + std::to_string(blocks_per_sm) + " blocks of 256 per SM";
}

// Best read and copy rates over the probe's forms, on two buffers of n doubles each (n even).
inline void measure(std::size_t n, int reps, Rate& read, Rate& copy) {
  int device = 0, sms = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
  double *x = nullptr, *y = nullptr, *sink = nullptr;
  check(cudaMalloc(&x, n * sizeof(double)), "cudaMalloc");
  check(cudaMalloc(&y, n * sizeof(double)), "cudaMalloc");
  check(cudaMalloc(&sink, 64 * std::size_t(sms) * sizeof(double)), "cudaMalloc");
  check(cudaMemset(x, 0x3f, n * sizeof(double)), "cudaMemset");  // finite, non-zero doubles
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  const std::size_t items = n / 2;  // 16-byte items
  const double bytes = double(n) * sizeof(double);
  const auto* in = reinterpret_cast<const double2*>(x);
  auto* out = reinterpret_cast<double2*>(y);
  // Every form runs on the same bytes (items / streams * streams of them).
  auto try_read = [&](auto walk_tag, auto prefetch_tag, auto streams_tag, auto unroll_tag, int blocks_per_sm) {
    constexpr Walk walk = decltype(walk_tag)::value;
    constexpr bool prefetch = decltype(prefetch_tag)::value;
    constexpr int streams = decltype(streams_tag)::value, unroll = decltype(unroll_tag)::value;
    const int blocks = blocks_per_sm * sms;
    const double ms =
        median_ms(reps, [&] { read_kernel<walk, prefetch, streams, unroll><<<blocks, 256>>>(in, items, sink); });
    const double GBs = double(items / streams * streams) * 16 / (ms * 1e-3) * 1e-9;
    if (GBs > read.GBs)
      read = {GBs, form_name<walk, prefetch>(blocks_per_sm) + ", " + std::to_string(streams) + " stream(s), " +
                       std::to_string(unroll) + " loads in flight each"};
  };
  auto try_copy = [&](auto walk_tag, auto prefetch_tag, int blocks_per_sm) {
    constexpr Walk walk = decltype(walk_tag)::value;
    constexpr bool prefetch = decltype(prefetch_tag)::value;
    const int blocks = blocks_per_sm * sms;
    const double ms = median_ms(reps, [&] { copy_kernel<walk, prefetch><<<blocks, 256>>>(in, out, items); });
    const double GBs = 2 * bytes / (ms * 1e-3) * 1e-9;
    if (GBs > copy.GBs) copy = {GBs, form_name<walk, prefetch>(blocks_per_sm)};
  };
  // Bulk copies (sm_90+): pieces of 8-32 KB, one or two blocks per SM, rings filling most of the shared memory.
  int major = 0, smem_per_block = 0;
  check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), "cudaDeviceGetAttribute");
  check(cudaDeviceGetAttribute(&smem_per_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
        "cudaDeviceGetAttribute");
  auto try_bulk = [&](unsigned chunk, int blocks_per_sm) {
    const int stages = std::min<int>(kMaxBulkStages, (smem_per_block / blocks_per_sm - 1024) / int(chunk));
    if (stages < 2) return;
    const std::size_t smem = std::size_t(stages) * chunk;
    check(cudaFuncSetAttribute(bulk_read_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)),
          "cudaFuncSetAttribute");
    const std::size_t chunks = std::size_t(bytes) / chunk;
    const int blocks = blocks_per_sm * sms;
    const double ms = median_ms(reps, [&] {
      bulk_read_kernel<<<blocks, 32, smem>>>(reinterpret_cast<const char*>(x), chunks, chunk, stages, sink);
    });
    const double GBs = double(chunks) * chunk / (ms * 1e-3) * 1e-9;
    if (GBs > read.GBs)
      read = {GBs, "bulk copy, " + std::to_string(blocks_per_sm) + " block(s) per SM, " + std::to_string(stages) +
                       " stages of " + std::to_string(chunk / 1024) + " KB"};
  };
  // An idle GPU starts below its top clocks and its streaming rate keeps rising for a while: stream for about
  // half a second (on an H200) before anything is timed.
  for (int i = 0; i < 30; ++i) median_ms(8, [&] { read_kernel<Walk::grid_stride, false, 1, 4><<<4 * sms, 256>>>(in, items, sink); });
  using GridStride = std::integral_constant<Walk, Walk::grid_stride>;
  using BlockRange = std::integral_constant<Walk, Walk::block_range>;
  using One = std::integral_constant<int, 1>;
  using Two = std::integral_constant<int, 2>;
  using Four = std::integral_constant<int, 4>;
  using Eight = std::integral_constant<int, 8>;
  for (int blocks_per_sm : {4, 8}) {
    auto walks = [&](auto walk) {
      for (bool prefetch : {false, true}) {
        auto run = [&](auto prefetch_tag) {
          try_read(walk, prefetch_tag, One{}, Four{}, blocks_per_sm);
          try_read(walk, prefetch_tag, One{}, Eight{}, blocks_per_sm);
          try_read(walk, prefetch_tag, Two{}, Two{}, blocks_per_sm);
          try_read(walk, prefetch_tag, Two{}, Four{}, blocks_per_sm);
          try_read(walk, prefetch_tag, Four{}, Two{}, blocks_per_sm);
          try_read(walk, prefetch_tag, Four{}, Four{}, blocks_per_sm);
          try_read(walk, prefetch_tag, Eight{}, Two{}, blocks_per_sm);
          try_copy(walk, prefetch_tag, blocks_per_sm);
        };
        if (prefetch) run(std::true_type{});
        else run(std::false_type{});
      }
    };
    walks(GridStride{});
    walks(BlockRange{});
  }
  if (major >= 9)
    for (unsigned chunk : {8192u, 16384u, 32768u})
      for (int blocks_per_sm : {1, 2}) try_bulk(chunk, blocks_per_sm);
  cudaFree(x);
  cudaFree(y);
  cudaFree(sink);
}

}  // namespace cuda_probe
}  // namespace kbla_perf
