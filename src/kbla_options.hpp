// Options of the kbla calls. Defaults are the safe choice; fast or special paths are opt-in.
#pragma once

#include <tuning/kbla_tuning_mode.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace kbla {

// How kbla::inner and kbla::update choose among their kernels for a class of calls: on Cuda with the CUDA kernels,
// the own tall & skinny kernels or cuBLAS (docs/tall_skinny.md, "How a kernel is chosen"); on the portable path,
// the portable kernel or KokkosBlas::gemm (docs/portable.md, "The route to KokkosBlas::gemm").
struct TuningOptions {
  // measure: the first call of a class on a device times the candidates on scratch buffers (bounded cost, the
  // caller's buffers are never touched) and keeps the winner; model_only: the model's pick, nothing timed.
  tuning::TuningMode mode = tuning::TuningMode::measure;
  // The choice cache file shared across processes. Empty: the environment variable KBLA_TUNING_CACHE if set,
  // else the choices live in memory for this process only.
  std::string cache_path;
};

struct InnerOptions {
  // Bitwise-reproducible result: no atomics, partial sums combined in a fixed order (costs a second pass).
  bool deterministic = false;
  // Complex scalars: allow the three-real-product (Gauss, "3M") form of A^H B, as cuBLAS's opt-in cublasZgemm3m.
  // It saves a quarter of the multiplications but its error is only normwise: the real and the imaginary part
  // are each accurate to ~k u sum |a| |b| (the modulus), so a part that is small next to the modulus can lose
  // digits that the usual four-product form keeps. CUDA kernels only (today: widths 57-64); ignored elsewhere.
  bool complex_3m = false;
  TuningOptions tuning;
};

struct UpdateOptions {
  TuningOptions tuning;
};

// Which multiplication algorithm kbla::gemm uses.
//
// The Strassen-type algorithms trade accuracy for fewer multiplications and are never chosen silently. Their
// error is only normwise: with unit roundoff u, L levels over a classical leaf with inner dimension k0 = k / 2^L,
// and max-element norms (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., Thm. 23.2 / 23.3),
//     Strassen:  |C - C^|_max <= [12^L (k0^2 + 5 k0) - 5 k] u |A|_max |B|_max + O(u^2)
//     Winograd:  |C - C^|_max <= [18^L (k0^2 + 6 k0) - 6 k] u |A|_max |B|_max + O(u^2)
// against the classical componentwise k u |A| |B| — so an entry of C that is small next to |A| |B| can lose
// all of its digits, and the bound grows by ~3x (Strassen) or ~4.5x (Winograd) per level. Measured (Li, Ranka,
// Sahni 2011, A = I + u v^T, B = I - u v^T / (1 + v^T u), single precision, n = 16384): 1 level of Strassen
// ~13x the classical maximum error, 4 levels ~200x; Winograd ~7.6x worse than Strassen at 4 levels; in double
// (n = 8192) about one order of magnitude above dgemm. Use them where that is acceptable.
//
// The default, call_default, is the algorithm the call is named for: kbla::gemm computes a classical product,
// kbla::strassen_gemm one level of Strassen. Any other value is used as it is by both calls, so a classical
// product from kbla::strassen_gemm has to be asked for by name (GemmAlgorithm::classical).
enum class GemmAlgorithm {
  call_default,  // kbla::gemm: classical; kbla::strassen_gemm: strassen (the value of a plain GemmOptions{})
  classical,     // KokkosBlas::gemm (cuBLAS on CUDA) and the tall & skinny kernels; never changed silently
  strassen,      // 1 level of Strassen (7 products of half size, 18 additions); CUDA: the fused kernel, no workspace
  strassen2,     // 2 levels of Strassen; CUDA: one conventional level (workspace) over the fused 1-level kernel
  strassen_conventional,  // `levels` levels of Strassen, operand sums and products through a workspace, leaves
                          // on the vendor GEMM (CUDA: cuBLAS, so FP64 runs on the tensor cores). Elsewhere the
                          // same recursion as strassen / strassen2.
  winograd,      // Winograd's variant (7 products, 15 additions), up to `levels` levels; CUDA: cuBLAS leaves.
                 // Slightly less accurate than Strassen (see above).
  automatic,     // the fastest of classical, strassen, strassen2, strassen_conventional and winograd (each of the
                 // last two with 1 and 2 levels) for the shape, measured on the running device once per class of
                 // calls (GemmOptions::tuning; deterministic: classical); a Strassen type only when more than 3 %
                 // faster than classical. Opt-in like the others: where a Strassen type wins, its error bound
                 // applies.
};

struct GemmOptions {
  GemmAlgorithm algorithm = GemmAlgorithm::call_default;
  // Route op(A)^H*B and A*B with a long dimension to kbla::inner / kbla::update when the long dimension is at
  // least tall_skinny_ratio times the larger of the other two (and those are at most tall_skinny_max_width).
  // Only for a classical product: a Strassen-type algorithm, once asked for, gets every shape.
  bool route_tall_skinny = true;
  int tall_skinny_ratio = 16;
  int tall_skinny_max_width = 512;
  bool deterministic = false;  // passed on to kbla::inner when a shape is routed there; automatic: classical
  bool complex_3m = false;     // passed on to kbla::inner when a shape is routed there (see InnerOptions)

  // --- Strassen-type algorithms (ignored by classical) ---
  // Levels of recursion of winograd and strassen_conventional (>= 0; 0 = classical). strassen is always 1 level,
  // strassen2 always 2.
  int levels = 1;
  // Recursion threshold: a (sub-)product is split only while min(m, n, k) >= winograd_tau; below it the
  // classical leaf is faster than the saved multiplication is worth (Li et al.'s tau). 0 = library default
  // (portable path: 64; CUDA winograd: the CUDA library's default). On the portable path it applies to all
  // Strassen types; on CUDA only to winograd (the others recurse as many levels as they name).
  std::int64_t winograd_tau = 0;
  // Optional workspace: memory the execution space can access (device memory of its memory space, e.g.
  // CudaSpace; host memory on host spaces), at least kbla::strassen_workspace_bytes<...>(...) bytes, not
  // touched by anything else during the call. Absent (nullptr): the library allocates a Kokkos::View per call.
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
  // GemmAlgorithm::automatic: measuring or not, and the choice-cache file (see TuningOptions).
  TuningOptions tuning;
};

}  // namespace kbla
