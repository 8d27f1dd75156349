// See cublas_stream_handles.hpp. The cache is a short list searched linearly (one entry per caller stream and
// device); it is never destroyed by a static destructor because the CUDA runtime may be gone by then.
#include "cublas_stream_handles.hpp"

#include <mutex>
#include <thread>
#include <vector>

namespace kbla {
namespace cuda {

namespace {
struct Entry {
  int dev;
  cudaStream_t stream;
  std::thread::id thread;  // set only for cudaStreamPerThread
  cublasHandle_t handle;
};
struct Cache {
  std::mutex mtx;
  std::vector<Entry> entries;
};
Cache& cache() {
  static Cache* c = new Cache();  // intentionally leaked, see above
  return *c;
}
}  // namespace

cudaError_t cublas_handle_for_stream(cudaStream_t stream, cublasHandle_t* out) {
  int dev = -1;
  const cudaError_t e = cudaGetDevice(&dev);
  if (e != cudaSuccess) return e;
  const std::thread::id tid = stream == cudaStreamPerThread ? std::this_thread::get_id() : std::thread::id{};
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mtx);
  for (const Entry& x : c.entries)
    if (x.dev == dev && x.stream == stream && x.thread == tid) {
      *out = x.handle;
      return cudaSuccess;
    }
  cublasHandle_t h = nullptr;
  const cudaError_t ce = cublas_create_bound_handle(stream, &h);
  if (ce != cudaSuccess) return ce;
  c.entries.push_back(Entry{dev, stream, tid, h});
  *out = h;
  return cudaSuccess;
}

cudaError_t cublas_create_bound_handle(cudaStream_t stream, cublasHandle_t* out) {
  *out = nullptr;
  cublasHandle_t h = nullptr;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return cudaErrorUnknown;
  if (cublasSetMathMode(h, CUBLAS_DEFAULT_MATH) != CUBLAS_STATUS_SUCCESS ||
      cublasSetStream(h, stream) != CUBLAS_STATUS_SUCCESS) {
    cublasDestroy(h);
    return cudaErrorUnknown;
  }
  *out = h;
  return cudaSuccess;
}

cudaError_t cublas_release_stream_handles() {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mtx);
  int cur = -1;
  const cudaError_t ge = cudaGetDevice(&cur);
  cudaError_t err = ge;
  for (const Entry& x : c.entries) {
    if (cudaSetDevice(x.dev) != cudaSuccess && err == cudaSuccess) err = cudaErrorInvalidDevice;
    if (cublasDestroy(x.handle) != CUBLAS_STATUS_SUCCESS && err == cudaSuccess) err = cudaErrorUnknown;
  }
  c.entries.clear();
  if (ge == cudaSuccess) cudaSetDevice(cur);
  return err;
}

}  // namespace cuda
}  // namespace kbla
