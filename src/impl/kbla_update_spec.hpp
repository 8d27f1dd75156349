// Dispatch point of kbla::update (Kokkos Kernels pattern): the primary template is the portable path (the portable
// kernel or KokkosBlas::gemm, as the route measured, kbla_update_route.hpp); the specialisations for
// tpl_spec_avail == true live in src/tpls/kbla_update_tpl_spec_decl.hpp.
#pragma once

#include <kbla_options.hpp>
#include <impl/kbla_update_route.hpp>
#include <tpls/kbla_update_tpl_spec_avail.hpp>

namespace kbla {
namespace Impl {

template <class ExecSpace, class AView, class CView, class BView,
          bool tpl_spec_avail = update_tpl_spec_avail<ExecSpace, AView, CView, BView>::value>
struct Update {
  using Scalar = typename BView::non_const_value_type;
  static void update(const ExecSpace& exec, const Scalar& alpha, const AView& A, const CView& C, const Scalar& beta,
                     const BView& B, const UpdateOptions& options) {
    UpdateRoute<ExecSpace, AView, CView, BView>::run(exec, alpha, A, C, beta, B, options);
  }
};

}  // namespace Impl
}  // namespace kbla

#include <tpls/kbla_update_tpl_spec_decl.hpp>
