// sm_90 PTX wrappers for the bulk-copy TSMM kernels of kbla::update (update_bulk.cuh, update_bulk_cplx.cuh): mbarriers,
// cp.async.bulk between global and shared memory, and the proxy fences between them; and the kernels' chunk
// schedule (BulkRuns: runs of consecutive chunks per block, so that a sector an odd column splits at a chunk boundary
// is read and written by one block). Used wherever the dispatch takes those kernels (tsmm_bulk_try). No Kokkos.
#pragma once
#include <cstdint>

namespace kbla {
namespace cuda {
namespace detail {

__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void mbar_init(unsigned bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_arrive(unsigned bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void mbar_arrive_expect_tx(unsigned bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity) {
  unsigned done = 0;
  do {
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
  } while (!done);
}
// one arrival on `bar` once every cp.async this thread issued so far has landed
__device__ __forceinline__ void cp_async_arrive_noinc(unsigned bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void bulk_to_shared(unsigned dst, const void* src, unsigned bytes, unsigned bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(dst),
               "l"(src), "r"(bytes), "r"(bar)
               : "memory");
}
__device__ __forceinline__ void bulk_to_global(void* dst, unsigned src, unsigned bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;\n" ::"l"(dst), "r"(src), "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void bulk_commit() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }
template <int PendingGroups>
__device__ __forceinline__ void bulk_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(PendingGroups) : "memory");
}
template <int PendingGroups>
__device__ __forceinline__ void bulk_wait() {
  asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(PendingGroups) : "memory");
}
// generic-proxy shared-memory writes before they are read by a bulk copy
__device__ __forceinline__ void fence_proxy_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}
__device__ __forceinline__ void fence_mbarrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

// A persistent block's chunks of ChunkRows rows: runs of RunLength consecutive chunks, run j = blockIdx.x + i
// gridDim.x; count() of them for this block, row0(i) the first row of its i-th.
template <int ChunkRows, int RunLength>
struct BulkRuns {
  std::int64_t my = 0;
  __device__ explicit BulkRuns(std::int64_t chunks) {
    const std::int64_t runs = (chunks + RunLength - 1) / RunLength;
    const std::int64_t myruns = runs > blockIdx.x ? (runs - blockIdx.x + gridDim.x - 1) / gridDim.x : 0;
    my = myruns * RunLength;
    if (myruns > 0 && blockIdx.x + (myruns - 1) * gridDim.x == runs - 1)
      my -= runs * RunLength - chunks;  // short last run
  }
  __device__ std::int64_t count() const { return my; }
  __device__ std::int64_t row0(std::int64_t i) const {
    return ((blockIdx.x + (i / RunLength) * gridDim.x) * RunLength + i % RunLength) * std::int64_t(ChunkRows);
  }
};

}  // namespace detail
}  // namespace cuda
}  // namespace kbla
