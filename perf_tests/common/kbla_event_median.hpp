// mean_back_to_back_ms(f, warmups, n, stream): `warmups` untimed calls, then n calls launched back to back between one
// event pair, per call (launch latency hidden; at small sizes the inputs may stay in the L2 between calls).
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

template <class F>
double mean_back_to_back_ms(F&& f, int warmups, int n, cudaStream_t stream = 0) {
  for (int i = 0; i < warmups; ++i) f();
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  CK(cudaEventRecord(e0, stream));
  for (int i = 0; i < n; ++i) f();
  CK(cudaEventRecord(e1, stream));
  CK(cudaEventSynchronize(e1));
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, e0, e1));
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  return double(ms) / n;
}
