// Which (execution space, View types) of kbla::inner have a vendor / hand-written path (Kokkos Kernels style).
// The primary template says "none": everything takes the portable path in src/impl.
#pragma once

#include <KokkosBlockLA_config.hpp>
#include <tpls/kbla_cuda_view_traits.hpp>

namespace kbla {
namespace Impl {

template <class ExecSpace, class AView, class BView, class CView>
struct inner_tpl_spec_avail {
  enum : bool { value = false };
};

#if KBLA_ENABLE_CUDA
// Hand-written CUDA kernels (src/cuda/tall_skinny, inner_*): CUDA memory, Left/Right/Stride layouts, the four scalar types,
// A, B and C of one scalar type. Strided Views without a unit stride fall back at run time (decl file).
template <class AView, class BView, class CView>
struct inner_tpl_spec_avail<Kokkos::Cuda, AView, BView, CView> {
  enum : bool {
    value = cuda_kernel_view<AView>::value && cuda_kernel_view<BView>::value && cuda_kernel_view<CView>::value &&
            same_scalar<AView, BView, CView>::value
  };
};
#endif

}  // namespace Impl
}  // namespace kbla
