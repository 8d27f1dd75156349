// See strassen_leaf_lanes.hpp.
#include "strassen_leaf_lanes.hpp"

#include <memory>
#include <mutex>
#include <vector>

#include "common/cublas_stream_handles.hpp"  // cublas_create_bound_handle

namespace kbla {
namespace cuda {
namespace strassen_detail {

namespace {
struct Registry {
  std::mutex mtx;
  std::vector<std::unique_ptr<LeafLanes>> lanes;  // few entries (one per caller stream): linear search
};

Registry& registry() {
  static Registry* r = new Registry();  // intentionally leaked, see above
  return *r;
}
}  // namespace

cudaError_t leaf_lanes(cudaStream_t caller, int want, const LeafLanes** out) {
  int dev = -1;
  cudaError_t e = cudaGetDevice(&dev);
  if (e != cudaSuccess) return e;
  const std::thread::id tid = caller == cudaStreamPerThread ? std::this_thread::get_id() : std::thread::id{};
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mtx);
  LeafLanes* L = nullptr;
  for (auto& p : r.lanes)
    if (p->dev == dev && p->caller == caller && p->thread == tid) L = p.get();
  if (!L) {
    r.lanes.push_back(std::make_unique<LeafLanes>());
    L = r.lanes.back().get();
    L->dev = dev, L->caller = caller, L->thread = tid;
  }
  if (!L->fork) {
    e = cudaEventCreateWithFlags(&L->fork, cudaEventDisableTiming);
    if (e != cudaSuccess) {
      L->fork = nullptr;
      return e;
    }
  }
  int prio = 0;  // helpers get the caller's priority
  if (L->n < want && cudaStreamGetPriority(caller, &prio) != cudaSuccess) {
    (void)cudaGetLastError();  // do not leave a stale error for the next launch check
    prio = 0;
  }
  while (L->n < want) {
    const int i = L->n;
    cudaStream_t s = nullptr;
    cudaEvent_t ev = nullptr;
    cublasHandle_t h = nullptr;
    e = cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, prio);
    if (e == cudaSuccess) e = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
    if (e == cudaSuccess) e = cublas_create_bound_handle(s, &h);
    if (e != cudaSuccess) {  // undo the partial helper; the entry keeps its complete ones
      if (h) cublasDestroy(h);
      if (ev) cudaEventDestroy(ev);
      if (s) cudaStreamDestroy(s);
      (void)cudaGetLastError();
      return e;
    }
    L->s[i] = s, L->join[i] = ev, L->h[i] = h;
    L->n = i + 1;
  }
  *out = L;
  return cudaSuccess;
}

cudaError_t release_leaf_lanes() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mtx);
  int cur = -1;
  const cudaError_t ge = cudaGetDevice(&cur);
  cudaError_t err = ge;
  for (auto& p : r.lanes) {
    LeafLanes& L = *p;
    if (cudaSetDevice(L.dev) != cudaSuccess && err == cudaSuccess) err = cudaErrorInvalidDevice;
    for (int i = 0; i < L.n; ++i) {
      const cudaError_t e = cudaStreamSynchronize(L.s[i]);
      if (err == cudaSuccess) err = e;
      if (cublasDestroy(L.h[i]) != CUBLAS_STATUS_SUCCESS && err == cudaSuccess) err = cudaErrorUnknown;
      cudaEventDestroy(L.join[i]);
      cudaStreamDestroy(L.s[i]);
    }
    if (L.fork) cudaEventDestroy(L.fork);
  }
  r.lanes.clear();
  if (ge == cudaSuccess) cudaSetDevice(cur);
  return err;
}

}  // namespace strassen_detail
}  // namespace cuda
}  // namespace kbla
