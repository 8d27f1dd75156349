// Which (execution space, View types) of kbla::update have a vendor / hand-written path (Kokkos Kernels style).
#pragma once

#include <KokkosBlockLA_config.hpp>
#include <tpls/kbla_cuda_view_traits.hpp>

namespace kbla {
namespace Impl {

template <class ExecSpace, class AView, class CView, class BView>
struct update_tpl_spec_avail {
  enum : bool { value = false };
};

#if KBLA_ENABLE_CUDA
// Hand-written CUDA kernels (src/cuda/tall_skinny, update_*), same View conditions as inner.
template <class AView, class CView, class BView>
struct update_tpl_spec_avail<Kokkos::Cuda, AView, CView, BView> {
  enum : bool {
    value = cuda_kernel_view<AView>::value && cuda_kernel_view<CView>::value && cuda_kernel_view<BView>::value &&
            same_scalar<AView, CView, BView>::value
  };
};
#endif

}  // namespace Impl
}  // namespace kbla
