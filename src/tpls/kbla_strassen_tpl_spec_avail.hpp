// Which (execution space, View types) of kbla::strassen_gemm have a vendor / hand-written path (Kokkos Kernels
// style). Everything else takes the portable recursion in src/impl.
#pragma once

#include <KokkosBlockLA_config.hpp>
#include <tpls/kbla_cuda_view_traits.hpp>

#include <type_traits>

namespace kbla {
namespace Impl {

template <class ExecSpace, class AView, class BView, class CView>
struct strassen_tpl_spec_avail {
  enum : bool { value = false };
};

#if KBLA_ENABLE_CUDA
// src/cuda/kbla_cuda_strassen.hpp: real scalars only (float, double), Views in CudaSpace / CudaUVMSpace. Whether
// each View has a unit-stride direction is known only at run time: the decl falls back to the portable path.
template <class View>
struct cuda_strassen_view {
  using T = typename View::non_const_value_type;
  enum : bool {
    value = cuda_kernel_view<View>::value && (std::is_same<T, float>::value || std::is_same<T, double>::value)
  };
};

template <class AView, class BView, class CView>
struct strassen_tpl_spec_avail<Kokkos::Cuda, AView, BView, CView> {
  enum : bool {
    value = cuda_strassen_view<AView>::value && cuda_strassen_view<BView>::value &&
            cuda_strassen_view<CView>::value && same_scalar<AView, BView, CView>::value
  };
};
#endif

}  // namespace Impl
}  // namespace kbla
