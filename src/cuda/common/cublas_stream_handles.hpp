// cuBLAS handles for the library's own cuBLAS calls (tall & skinny routes, Strassen leaves on the caller's stream).
// One handle per (device, caller stream), bound to that stream once when it is created and never re-bound, so
// two host threads calling on two streams never race on cublasSetStream or on one handle's internal workspace.
// cudaStreamPerThread is a different stream in each host thread, so for it the host thread is part of the key.
// Math mode is pinned to CUBLAS_DEFAULT_MATH (no TF32 in SGEMM). Handles live until
// cublas_release_stream_handles (strassen_release_cached_resources calls it too); the first call on a stream
// must not be inside stream capture (cublasCreate allocates).
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime.h>

namespace kbla {
namespace cuda {

// The handle for `stream` on the current device (created on first use).
cudaError_t cublas_handle_for_stream(cudaStream_t stream, cublasHandle_t* out);

// A new handle, not cached, bound to `stream` with the math mode pinned as above (the Strassen helper streams
// own theirs); on failure nothing is left allocated and *out is null.
cudaError_t cublas_create_bound_handle(cudaStream_t stream, cublasHandle_t* out);

// Destroys every cached handle (synchronizes nothing: call it when no library work is in flight).
cudaError_t cublas_release_stream_handles();

}  // namespace cuda
}  // namespace kbla
