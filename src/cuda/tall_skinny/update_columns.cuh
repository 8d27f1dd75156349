// kbla::update (B = alpha A C + beta B) for column-major A and B with a narrow output: N <= 8 columns of B,
// M <= 128 columns of A. The block Gram-Schmidt and block Lanczos steps run these shapes (a block of s vectors
// minus a basis of p vectors times p x s coefficients, or an s x s rotation in place) at K of 10^5-10^7 rows.
//
// One thread per row: alpha C sits in shared memory (every thread of a warp reads the same entry: a broadcast), a
// thread keeps its rows' N sums in registers and walks A's columns, consecutive threads on consecutive rows
// (a warp reads 32 consecutive values of a column: whole sectors). Loads of several columns and rows are issued
// before their multiply-adds so that enough bytes are in flight. A thread reads all of its rows of A (and B, for
// beta != 0) before it writes them, and no other thread touches those rows: B may be A (in place, M == N).
//
// On an H200 the staged narrow tables (update_kernel.cuh) ran a 16-column A into 8 columns of B at 47-54 % of the
// read bandwidth at 10^6-1.6 * 10^7 rows, cuBLAS alike; this kernel 67-88 %. Complex N = 2-4 went from 22-78 % to
// 87-96 % (docs/tall_skinny.md).
#pragma once
#include <cstdint>
#include "tall_skinny_common.cuh"
#include "inner_kernel.cuh"  // kLayCC, add_to
#include "update_kernel.cuh"  // TsmmArgs, fma_plain, scale

namespace kbla {
namespace cuda {
namespace detail {

constexpr int kUpdateColumnsMinM = 4;
constexpr int kUpdateColumnsMaxM = 128;  // alpha C of M x 8 elements: at most 16 KB of shared memory (complex)
constexpr int kUpdateColumnsMaxN = 8;

// OutputColumns: the output columns a thread sums (N rounded up to 1, 2, 4 or 8); RowsPerThread: rows per thread;
// ColumnsInFlight: columns of A loaded before their multiply-adds.
template <class Scalar, bool Complex, int OutputColumns, int RowsPerThread, int ColumnsInFlight>
__global__ void __launch_bounds__(256, 3) update_columns_kernel(TsmmArgs<Scalar, Complex> a) {
  using E = Elem<Scalar, Complex>;
  __shared__ E alpha_c[kUpdateColumnsMaxM][OutputColumns];
  const int M = a.M, N = a.N;
  E zero;
  set_zero(zero);
  for (int e = threadIdx.x; e < M * OutputColumns; e += blockDim.x) {
    const int i = e / OutputColumns, j = e % OutputColumns;
    alpha_c[i][j] = j < N ? scale(a.alpha, a.C[a.crow ? i * a.ldc + j : i + j * a.ldc]) : zero;
  }
  __syncthreads();
  const std::int64_t first = (std::int64_t(blockIdx.x) * RowsPerThread) * blockDim.x + threadIdx.x;
  std::int64_t row[RowsPerThread];
  bool live[RowsPerThread];
#pragma unroll
  for (int u = 0; u < RowsPerThread; ++u) {
    row[u] = first + std::int64_t(u) * blockDim.x;
    live[u] = row[u] < a.K;
    if (!live[u]) row[u] = a.K - 1;  // a valid row to read; its sums are dropped
  }
  E sum[RowsPerThread][OutputColumns];
#pragma unroll
  for (int u = 0; u < RowsPerThread; ++u)
#pragma unroll
    for (int j = 0; j < OutputColumns; ++j) sum[u][j] = zero;
  const E* const A = a.A;
  const std::int64_t lda = a.asm_;
  int i = 0;
  for (; i + ColumnsInFlight <= M; i += ColumnsInFlight) {
    E v[ColumnsInFlight][RowsPerThread];
#pragma unroll
    for (int c = 0; c < ColumnsInFlight; ++c)
#pragma unroll
      for (int u = 0; u < RowsPerThread; ++u) v[c][u] = A[row[u] + (i + c) * lda];
#pragma unroll
    for (int c = 0; c < ColumnsInFlight; ++c)
#pragma unroll
      for (int j = 0; j < OutputColumns; ++j) {
        const E w = alpha_c[i + c][j];
#pragma unroll
        for (int u = 0; u < RowsPerThread; ++u) fma_plain(sum[u][j], v[c][u], w);
      }
  }
  for (; i < M; ++i) {
    E v[RowsPerThread];
#pragma unroll
    for (int u = 0; u < RowsPerThread; ++u) v[u] = A[row[u] + i * lda];
#pragma unroll
    for (int j = 0; j < OutputColumns; ++j) {
      const E w = alpha_c[i][j];
#pragma unroll
      for (int u = 0; u < RowsPerThread; ++u) fma_plain(sum[u][j], v[u], w);
    }
  }
  E* const B = a.B;
  const std::int64_t ldb = a.bsn;
  if (!a.beta_zero) {
    E old[RowsPerThread][OutputColumns];
#pragma unroll
    for (int j = 0; j < OutputColumns; ++j)
#pragma unroll
      for (int u = 0; u < RowsPerThread; ++u) old[u][j] = j < N ? B[row[u] + j * ldb] : zero;
#pragma unroll
    for (int j = 0; j < OutputColumns; ++j)
#pragma unroll
      for (int u = 0; u < RowsPerThread; ++u) add_to(sum[u][j], scale(a.beta, old[u][j]));
  }
#pragma unroll
  for (int j = 0; j < OutputColumns; ++j)
#pragma unroll
    for (int u = 0; u < RowsPerThread; ++u)
      if (j < N && live[u]) B[row[u] + j * ldb] = sum[u][j];
}

// Takes column-major A and B (unit row stride) with N <= 8 and M <= 128; cudaErrorNotSupported otherwise. Two rows
// per thread for real data; complex sums take twice the registers, so one row per thread there.
template <class Scalar, bool Complex>
cudaError_t launch_update_columns(const TsmmArgs<Scalar, Complex>& a, int lay, cudaStream_t stream) {
  if (lay != kLayCC || a.ask != 1 || a.N > kUpdateColumnsMaxN || a.M > kUpdateColumnsMaxM || a.K <= 0)
    return cudaErrorNotSupported;
  constexpr int threads = 256, rows = Complex ? 1 : 2, cols_in_flight = 4;
  const std::int64_t blocks = (a.K + std::int64_t(threads) * rows - 1) / (std::int64_t(threads) * rows);
  if (blocks > 0x7fffffff) return cudaErrorNotSupported;
  const dim3 grid{static_cast<unsigned>(blocks)};
  if (a.N <= 1)
    update_columns_kernel<Scalar, Complex, 1, rows, cols_in_flight><<<grid, threads, 0, stream>>>(a);
  else if (a.N <= 2)
    update_columns_kernel<Scalar, Complex, 2, rows, cols_in_flight><<<grid, threads, 0, stream>>>(a);
  else if (a.N <= 4)
    update_columns_kernel<Scalar, Complex, 4, rows, cols_in_flight><<<grid, threads, 0, stream>>>(a);
  else
    update_columns_kernel<Scalar, Complex, 8, rows, cols_in_flight><<<grid, threads, 0, stream>>>(a);
  return cudaGetLastError();
}

}  // namespace detail
}  // namespace cuda
}  // namespace kbla
