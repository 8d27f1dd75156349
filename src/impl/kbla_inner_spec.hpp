// Dispatch point of kbla::inner (Kokkos Kernels pattern): the primary template is the portable path (the portable
// kernel or KokkosBlas::gemm, as the route measured, kbla_inner_route.hpp); the specialisations for
// tpl_spec_avail == true live in src/tpls/kbla_inner_tpl_spec_decl.hpp.
#pragma once

#include <impl/kbla_inner_route.hpp>
#include <tpls/kbla_inner_tpl_spec_avail.hpp>

namespace kbla {
namespace Impl {

template <class ExecSpace, class AView, class BView, class CView,
          bool tpl_spec_avail = inner_tpl_spec_avail<ExecSpace, AView, BView, CView>::value>
struct Inner {
  using Scalar = typename CView::non_const_value_type;
  static void inner(const ExecSpace& exec, bool conjA, const Scalar& alpha, const AView& A, const BView& B,
                    const Scalar& beta, const CView& C, const InnerOptions& options) {
    InnerRoute<ExecSpace, AView, BView, CView>::run(exec, conjA, alpha, A, B, beta, C, options);
  }
};

}  // namespace Impl
}  // namespace kbla

#include <tpls/kbla_inner_tpl_spec_decl.hpp>
