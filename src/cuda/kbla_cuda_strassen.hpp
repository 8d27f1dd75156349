// Raw-pointer API of the CUDA GEMM base kernel and the Strassen / Winograd paths (no Kokkos in here: the kernels
// can be read, built and tested alone; src/tpls turns Views into these arguments).
//
// All calls compute C = alpha * op(A) * op(B) + beta * C, op in {'N', 'T', 'C'} (for real T, 'C' == 'T'),
// with BLAS conventions: column-major, op(A) is m x k, op(B) is k x n, C is m x n, element (i, j) of a matrix
// at p[i + j * ld]. Row-major callers compute C^T = op(B)^T op(A)^T instead (the tpls layer does this).
// beta == 0 never reads C (NaN there must not spread). T is float or double. Calls are asynchronous on
// `stream`; errors are returned, never thrown. m, n, k may be anything >= 0 (odd, prime, 0).
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace kbla {
namespace cuda {

// Which product a Strassen-type call runs. Numerically risky fast paths: never chosen silently.
enum class StrassenAlgorithm {
  conventional,  // classical Strassen over cuBLAS leaves, unfused additions, workspace (the reference to beat)
  fused,         // 1 level, operand sums folded into the tile packing, results added to C: zero extra bytes
  hybrid,        // 2 levels: one conventional level (workspace) over the fused 1-level kernel
  winograd,      // Winograd's variant (15 additions), recursion by the thresholds below, cuBLAS leaves
};

struct StrassenConfig {
  StrassenAlgorithm algorithm = StrassenAlgorithm::fused;
  // conventional / winograd: recursion levels (0 = classical leaf only). Ignored by fused (1) and hybrid (2).
  int levels = 1;
  // winograd: recurse only while min(m, n, k) of the sub-problem >= tau (Li et al.'s tau_1 / tau_2 idea:
  // below it the leaf GEMM is faster than the saved multiplication is worth). 0 = the library's default.
  std::int64_t tau = 0;
  // Leaves of conventional / winograd: true = cuBLAS (FP64 tensor cores on Hopper), false = simt_gemm.
  bool cublas_leaves = true;
  // conventional / hybrid / winograd: false (default) = batched additions: all operand sums of a level in one
  // pass and (conventional) all combinations in one pass, workspace per level 5 (mk + kn + mn) / 4 elements
  // (conventional, hybrid) or (4 mk + 4 kn + 2 mn) / 4 (winograd). true = the product-by-product schedule,
  // (mk + kn + mn) / 4 resp. (mk + kn + 2 mn) / 4 per level, more memory traffic. Same arithmetic either way.
  bool low_memory = false;
  // conventional / hybrid / winograd, batched schedule only (ignored when low_memory): the 7 independent products
  // of the innermost Strassen level (the one whose products are leaf GEMMs) run on this many helper streams
  // (round robin, at most 7 used), forked from and joined back into `stream` by events: no host synchronisation,
  // the call stays asynchronous and ordered on `stream`. 0 or 1 = all products one after another on `stream` (the
  // serial schedule, bit for bit). Small leaves (e.g. the 1024^3 leaves of a 2048 problem) leave SMs
  // idle in their wave tails and launch gaps; concurrent leaves fill them. Outer levels stay serial (their
  // products share one inner workspace). Winograd's concurrent level keeps all 4 products that feed several
  // quadrants, so its workspace grows from (4 mk + 4 kn + 2 mn) / 4 to (4 mk + 4 kn + 4 mn) / 4 at that level
  // (strassen_workspace_bytes accounts for it); conventional / hybrid need no extra workspace.
  // Resources: per (device, caller stream) the library creates, on first use, leaf_streams non-blocking helper
  // streams (caller's priority), one cuBLAS handle per helper stream (own internal cuBLAS workspace: one handle
  // shared by concurrent streams would race on it) and leaf_streams + 1 events; they are cached for the life of
  // the process (strassen_release_cached_resources frees them). Host threads must not share one caller stream
  // concurrently (the same holds for a reused workspace). The first call must not be inside stream capture
  // (cublasCreate allocates); later calls can be captured (the fork / join are plain event dependencies).
  int leaf_streams = 4;
  // Tile shape of the library's SIMT kernels (simt_gemm, the fused kernel of fused / hybrid, simt leaves) for
  // T = float: 0 = default, 1 = classic 128x128x8 (8x8 per thread, 2 blocks / SM), 2 = wide 256x128x8 (8x16 per
  // thread, 1 block / SM), 3 = wide_async (wide's tiles; operands that are not Strassen sums are copied into a
  // 3-stage shared-memory ring by cp.async instead of through registers; sm_80+; measured slower than wide).
  // 0 resolves to set_simt_tile's setting, else the built-in default, wide (measured faster than classic on an
  // H100; docs/strassen.md). FP64 always runs its one shape. Same result either way up to rounding order.
  int simt_tile = 0;
};

// Winograd's default recursion threshold (StrassenConfig::tau == 0) for T = float / double.
template <class Scalar>
std::int64_t strassen_default_tau();

// Classical GEMM by the library's own SIMT kernel (threadblock tile -> warp tile -> thread tile, double-buffered
// shared memory, fringes zero-padded while packing). The base the fused Strassen kernel is built from.
template <class Scalar>
cudaError_t simt_gemm(cudaStream_t stream, char transA, char transB, std::int64_t m, std::int64_t n, std::int64_t k,
                      Scalar alpha, const Scalar* A, std::int64_t lda, const Scalar* B, std::int64_t ldb, Scalar beta,
                      Scalar* C, std::int64_t ldc);

// The same with an explicit tile shape (StrassenConfig::simt_tile: 0 default, 1 classic, 2 wide, 3 wide_async;
// FP32 only).
template <class Scalar>
cudaError_t simt_gemm(cudaStream_t stream, char transA, char transB, std::int64_t m, std::int64_t n, std::int64_t k,
                      Scalar alpha, const Scalar* A, std::int64_t lda, const Scalar* B, std::int64_t ldb, Scalar beta,
                      Scalar* C, std::int64_t ldc, int simt_tile);

// Process-wide SIMT tile shape for calls that leave it at 0 (the overloads without simt_tile, and
// StrassenConfig::simt_tile == 0): 1 classic, 2 wide, 3 wide_async, 0 (or anything else) = back to the built-in
// default. Thread-safe; applies to calls issued after it returns. For benchmarks and tests.
void set_simt_tile(int simt_tile);

// The shape (1 classic, 2 wide, 3 wide_async) a call for T with this simt_tile runs now (FP64: always 1).
template <class Scalar>
int simt_tile_resolved(int simt_tile);

// One Strassen level fused into the SIMT kernel (Huang et al. 2018): the 7 products run concurrently and add
// their results into the C quadrants with atomics; C is scaled by beta first. No workspace.
template <class Scalar>
cudaError_t strassen_fused(cudaStream_t stream, char transA, char transB, std::int64_t m, std::int64_t n,
                           std::int64_t k, Scalar alpha, const Scalar* A, std::int64_t lda, const Scalar* B,
                           std::int64_t ldb, Scalar beta, Scalar* C, std::int64_t ldc);

// The same with an explicit tile shape (see simt_gemm above).
template <class Scalar>
cudaError_t strassen_fused(cudaStream_t stream, char transA, char transB, std::int64_t m, std::int64_t n,
                           std::int64_t k, Scalar alpha, const Scalar* A, std::int64_t lda, const Scalar* B,
                           std::int64_t ldb, Scalar beta, Scalar* C, std::int64_t ldc, int simt_tile);

// Bytes of device workspace `strassen_gemm` needs for this configuration and shape (0 for fused).
template <class Scalar>
std::size_t strassen_workspace_bytes(const StrassenConfig& config, std::int64_t m, std::int64_t n, std::int64_t k);

// Levels of Strassen recursion `strassen_gemm` runs for this configuration and shape (0: one GEMM; the fused
// kernel counts as one level): below Winograd's threshold, for example, it is the classical product.
template <class Scalar>
int strassen_levels(const StrassenConfig& config, std::int64_t m, std::int64_t n, std::int64_t k);

// Any of the algorithms above. `workspace` must hold strassen_workspace_bytes(...) bytes (nullptr when 0);
// returns cudaErrorInvalidValue when it is too small.
template <class Scalar>
cudaError_t strassen_gemm(cudaStream_t stream, const StrassenConfig& config, char transA, char transB, std::int64_t m,
                          std::int64_t n, std::int64_t k, Scalar alpha, const Scalar* A, std::int64_t lda,
                          const Scalar* B, std::int64_t ldb, Scalar beta, Scalar* C, std::int64_t ldc, void* workspace,
                          std::size_t workspace_bytes);

// Destroys what strassen_gemm caches (the per-device cuBLAS handle, the helper streams / events / cuBLAS handles
// of leaf_streams) after synchronising the helper streams. Optional (without it they live until the process
// ends); needed before cudaDeviceReset. Must not run while another host thread is inside strassen_gemm; the next
// strassen_gemm creates them again.
cudaError_t strassen_release_cached_resources();

}  // namespace cuda
}  // namespace kbla
