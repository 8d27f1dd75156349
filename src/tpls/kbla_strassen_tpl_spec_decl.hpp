// kbla::strassen_gemm on Kokkos::Cuda through src/cuda/kbla_cuda_strassen.hpp, Kokkos Kernels style.
//
// The CUDA API is column-major (BLAS). Each View is seen as its column-major storage X_s: X_s = X for a
// column-major View, X_s = X^T for a row-major one. With C column-major the call computes C = op(A) op(B); with C
// row-major it computes C_s = C^T = op(B)^T op(A)^T (operands swapped, m and n swapped). Either way an operand
// op(X) (or op(X)^T) is X_s transposed iff [op transposes] xor [X row-major] xor [C row-major]; for real scalars
// 'C' is 'T', so every trans becomes 'N' or 'T'.
#pragma once

#include <kbla_options.hpp>
#include <impl/kbla_strassen_spec.hpp>
#include <tpls/kbla_cuda_view_traits.hpp>

#if KBLA_ENABLE_CUDA
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>

namespace kbla {
namespace Impl {

inline kbla::cuda::StrassenConfig cuda_strassen_config(const GemmOptions& options) {
  kbla::cuda::StrassenConfig config;
  switch (options.algorithm) {
    case GemmAlgorithm::strassen: config.algorithm = kbla::cuda::StrassenAlgorithm::fused; break;
    case GemmAlgorithm::strassen2: config.algorithm = kbla::cuda::StrassenAlgorithm::hybrid; break;
    case GemmAlgorithm::strassen_conventional: config.algorithm = kbla::cuda::StrassenAlgorithm::conventional; break;
    case GemmAlgorithm::winograd: config.algorithm = kbla::cuda::StrassenAlgorithm::winograd; break;
    default:  // classical through strassen_gemm: conventional with no level = one cuBLAS call
      config.algorithm = kbla::cuda::StrassenAlgorithm::conventional;
      config.levels = 0;
      config.cublas_leaves = true;
      return config;
  }
  config.levels = options.levels;
  config.tau = options.winograd_tau;
  config.cublas_leaves = true;
  return config;
}

inline char cuda_strassen_trans(char t, const RawMatrix& x, bool c_row_major) {
  const bool transposed =
      (t != 'N') != (x.layout == kbla::cuda::Layout::RowMajor);  // op(X) in terms of X_s
  return transposed != c_row_major ? 'T' : 'N';
}

template <class T>
struct StrassenTplWorkspace<Kokkos::Cuda, T> {
  static std::size_t bytes(const GemmOptions& options, std::int64_t m, std::int64_t n, std::int64_t k) {
    if constexpr (std::is_same<T, float>::value || std::is_same<T, double>::value) {
      const kbla::cuda::StrassenConfig config = cuda_strassen_config(options);
      // either orientation (row-major C swaps m and n)
      return std::max(kbla::cuda::strassen_workspace_bytes<T>(config, m, n, k),
                      kbla::cuda::strassen_workspace_bytes<T>(config, n, m, k));
    } else {
      return 0;
    }
  }
};

// Workspace kept between calls, one per CUDA stream, grown when a larger problem comes and released at
// Kokkos::finalize: allocating a View and fencing on every call costs a synchronisation per product. Calls on one
// stream are ordered, so reusing the buffer is safe; host threads sharing a stream must not call concurrently.
inline void* strassen_cached_workspace(const Kokkos::Cuda& exec, std::size_t bytes) {
  struct Cache {
    std::mutex mutex;
    std::map<cudaStream_t, Kokkos::View<char*, Kokkos::CudaSpace>> views;
    bool hooked = false;
  };
  static Cache* cache = new Cache();  // never destroyed: the Views are released by the finalize hook
  std::lock_guard<std::mutex> lock(cache->mutex);
  if (!cache->hooked) {
    Kokkos::push_finalize_hook([] {
      std::lock_guard<std::mutex> hook_lock(cache->mutex);
      cache->views.clear();
      cache->hooked = false;
    });
    cache->hooked = true;
  }
  Kokkos::View<char*, Kokkos::CudaSpace>& view = cache->views[exec.cuda_stream()];
  if (view.extent(0) < bytes) {
    exec.fence();  // earlier products on this stream may still read the old buffer
    view = Kokkos::View<char*, Kokkos::CudaSpace>();
    view = Kokkos::View<char*, Kokkos::CudaSpace>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "kbla::strassen workspace (cached per stream)"), bytes);
  }
  return view.data();
}

template <class AView, class BView, class CView>
struct Strassen<Kokkos::Cuda, AView, BView, CView, true> {
  using Scalar = typename CView::non_const_value_type;
  static void run(const Kokkos::Cuda& exec, char tA, char tB, const Scalar& alpha, const AView& A, const BView& B,
                  const Scalar& beta, const CView& C, const GemmOptions& options, const char* call) {
    const RawMatrix a = raw_matrix(A), b = raw_matrix(B), c = raw_matrix(C);
    if (!(a.ok && b.ok && c.ok)) {  // no unit stride: portable path
      strassen_portable(exec, tA, tB, alpha, A, B, beta, C, options, call);
      return;
    }
    const bool c_row = c.layout == kbla::cuda::Layout::RowMajor;
    const std::int64_t m = C.extent(0), n = C.extent(1);
    const std::int64_t k = tA == 'N' ? A.extent(1) : A.extent(0);
    // column-major problem: first * second, rows x cols
    const std::int64_t rows = c_row ? n : m, cols = c_row ? m : n;
    const char t1 = c_row ? cuda_strassen_trans(tB, b, true) : cuda_strassen_trans(tA, a, false);
    const char t2 = c_row ? cuda_strassen_trans(tA, a, true) : cuda_strassen_trans(tB, b, false);
    const Scalar* p1 = c_row ? raw_pointer(B) : raw_pointer(A);
    const Scalar* p2 = c_row ? raw_pointer(A) : raw_pointer(B);
    const std::int64_t ld1 = c_row ? b.ld : a.ld, ld2 = c_row ? a.ld : b.ld;

    const kbla::cuda::StrassenConfig config = cuda_strassen_config(options);
    const std::size_t bytes = kbla::cuda::strassen_workspace_bytes<Scalar>(config, rows, cols, k);
    void* workspace = nullptr;
    std::size_t workspace_bytes = 0;
    if (bytes > 0) {
      if (options.workspace != nullptr) {
        if (options.workspace_bytes < bytes) throw_workspace_too_small(call, options.workspace_bytes, bytes);
        workspace = options.workspace;
        workspace_bytes = options.workspace_bytes;
      } else {
        workspace = strassen_cached_workspace(exec, bytes);
        workspace_bytes = bytes;
      }
    }
    throw_on_cuda_error(kbla::cuda::strassen_gemm<Scalar>(exec.cuda_stream(), config, t1, t2, rows, cols, k,
                                                          raw_value(alpha), p1, ld1, p2, ld2, raw_value(beta),
                                                          raw_pointer(C), c.ld, workspace, workspace_bytes),
                        "kbla::strassen_gemm (CUDA)");
  }

  // Which code runs these options (the CUDA library's algorithm; the portable recursion for operands without unit
  // stride): GemmAlgorithm::automatic times each only once.
  static int implementation(const GemmOptions& options, const AView& A, const BView& B, const CView& C) {
    if (!(raw_matrix(A).ok && raw_matrix(B).ok && raw_matrix(C).ok)) return portable_strassen_implementation(options);
    return 100 + static_cast<int>(cuda_strassen_config(options).algorithm);
  }

  // Levels of recursion run() takes (0: one cuBLAS product), as the CUDA library plans them; operands without unit
  // stride take the portable path and its rule.
  static int levels_run(const GemmOptions& options, const AView& A, const BView& B, const CView& C, std::int64_t m,
                        std::int64_t n, std::int64_t k) {
    if (!(raw_matrix(A).ok && raw_matrix(B).ok && raw_matrix(C).ok)) return strassen_plan(options).levels_for(m, n, k);
    return kbla::cuda::strassen_levels<Scalar>(cuda_strassen_config(options), m, n, k);
  }
};

}  // namespace Impl
}  // namespace kbla
#endif
