// median_event_ms(f, warmups, reps, stream): the raw perf tools' timing rule - `warmups` untimed calls, then the
// median of `reps` calls, each timed alone by a CUDA event pair on `stream` (launch latency included, as a
// user sees it). No Kokkos.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "kbla_cuda_check.hpp"

template <class F>
double median_event_ms(F&& f, int warmups, int reps, cudaStream_t stream = 0) {
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  for (int i = 0; i < warmups; ++i) f();
  std::vector<float> t(reps);
  for (auto& x : t) {
    CK(cudaEventRecord(e0, stream));
    f();
    CK(cudaEventRecord(e1, stream));
    CK(cudaEventSynchronize(e1));
    CK(cudaEventElapsedTime(&x, e0, e1));
  }
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}
