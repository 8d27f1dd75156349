// Helper streams ("lanes") for the concurrent leaf products of the workspace Strassen paths
// (StrassenConfig::leaf_streams, strassen_workspace.cu). One registry for the process, created on first use and never
// destroyed by a static destructor (the CUDA runtime may be gone by then); strassen_release_cached_resources frees
// it explicitly through release_leaf_lanes.
//  * per (device, caller stream) the lanes: helper streams, each with its own cuBLAS handle bound to it once (a
//    cuBLAS handle has one internal workspace; two streams running GEMMs from one handle at the same time could
//    share it and race), a join event per helper and one fork event. The key includes the host thread when the
//    caller passes cudaStreamPerThread (a different stream per thread). Events are per caller stream, so two host
//    threads working on two streams never touch each other's fork / join.
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <thread>

namespace kbla {
namespace cuda {
namespace strassen_detail {

constexpr int kMaxLanes = 7;  // a Strassen level has 7 products

struct LeafLanes {
  int dev = -1;
  cudaStream_t caller = nullptr;
  std::thread::id thread{};  // set only for cudaStreamPerThread
  int n = 0;                 // helpers created so far (all of s, h, join valid for i < n)
  cudaStream_t s[kMaxLanes] = {};
  cublasHandle_t h[kMaxLanes] = {};
  cudaEvent_t join[kMaxLanes] = {};
  cudaEvent_t fork = nullptr;
};

// The lanes of `caller` on the current device with at least `want` helpers (want <= kMaxLanes).
cudaError_t leaf_lanes(cudaStream_t caller, int want, const LeafLanes** out);

// Synchronizes and destroys every lane of every caller stream (all devices); the first error is returned.
cudaError_t release_leaf_lanes();

}  // namespace strassen_detail
}  // namespace cuda
}  // namespace kbla
