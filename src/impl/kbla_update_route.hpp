// kbla::update on the portable path: the portable kernel (UpdatePortable), or KokkosBlas::gemm (A C) where the
// route (kbla_portable_route.hpp) measured it faster for the call's class on this device. In place (B is A) always
// takes the portable kernel: gemm cannot overwrite its input.
#pragma once

#include <kbla_options.hpp>
#include <impl/kbla_portable_route.hpp>
#include <impl/kbla_portable_route_keys.hpp>
#include <impl/kbla_portable_route_timing.hpp>
#include <impl/kbla_portable_route_views.hpp>
#include <impl/kbla_route_kokkosblas_gemm.hpp>
#include <impl/kbla_update_impl.hpp>

#include <impl/kbla_arith_traits.hpp>
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <tuple>

namespace kbla {
namespace Impl {

template <class ExecSpace, class AView, class CView, class BView>
struct UpdateRoute {
  using Scalar = typename BView::non_const_value_type;
  using ATS = kbla::Impl::ArithTraits<Scalar>;
  static constexpr bool has_choice = route_kokkosblas_gemm_avail<ExecSpace, AView, CView, BView>::value;

  static void run(const ExecSpace& exec, const Scalar& alpha, const AView& A, const CView& C, const Scalar& beta,
                  const BView& B, const UpdateOptions& options) {
    if constexpr (has_choice) {
      routed(exec, alpha, A, C, beta, B, options);
    } else {
      UpdatePortable<ExecSpace, AView, CView, BView>::run(exec, alpha, A, C, beta, B);
    }
  }

  // The class of a call, as the cache file spells it (tests record choices under it).
  static std::string call_class(std::int64_t K, int M, int N, bool beta_zero) {
    const std::string layouts = std::string("A") + route_layout_letter<typename AView::array_layout>::value + " C" +
                                route_layout_letter<typename CView::array_layout>::value + " B" +
                                route_layout_letter<typename BView::array_layout>::value;
    return route_call_class("update", route_scalar_letter<Scalar>::value, layouts, M, N, K, beta_zero);
  }

 private:
  using ARoute = route_view_t<AView, const Scalar>;
  using CRoute = route_view_t<CView, const Scalar>;
  using BRoute = route_view_t<BView, Scalar>;
  using Portable = UpdatePortable<ExecSpace, ARoute, CRoute, BRoute>;

  static void run_kernel(PortableRouteKernel kernel, const ExecSpace& exec, const Scalar& alpha, const ARoute& A,
                         const CRoute& C, const Scalar& beta, const BRoute& B) {
    if (kernel == PortableRouteKernel::kokkosblas) {
      route_kokkosblas_gemm(exec, 'N', 'N', alpha, A, C, beta, B);
    } else {
      Portable::run(exec, alpha, A, C, beta, B);
    }
  }

  static void routed(const ExecSpace& exec, const Scalar& alpha, const ARoute& A, const CRoute& C,
                     const Scalar& beta, const BRoute& B, const UpdateOptions& options) {
    const std::int64_t K = B.extent(0);
    const int M = A.extent(1), N = B.extent(1);
    const bool in_place = static_cast<const void*>(A.data()) == static_cast<const void*>(B.data());
    // In place, empty shapes, M = 0 and alpha = 0: the portable kernel (nothing to choose, or no gemm can do it).
    if (in_place || K == 0 || M == 0 || N == 0 || alpha == ATS::zero()) {
      Portable::run(exec, alpha, A, C, beta, B);
      return;
    }
    const bool beta_zero = beta == ATS::zero();
    RouteScratch<std::tuple<ScratchOf<AView>, ScratchOf<CView>, ScratchOf<BView>>> scratch;
    const auto time_seconds = [&](PortableRouteKernel kernel, double give_up_after) -> double {
      const auto* operands = scratch.get([&] {
        const std::int64_t rows = route_scratch_rows(K, M, N, sizeof(Scalar), runs_on_host<ExecSpace>::value);
        return std::make_tuple(route_scratch<AView>(exec, "kbla::update route scratch A", rows, M),
                               route_scratch<CView>(exec, "kbla::update route scratch C", M, N),
                               route_scratch<BView>(exec, "kbla::update route scratch B", rows, N));
      });
      if (!operands) return -1;
      const auto& a = std::get<0>(*operands);
      const auto& c = std::get<1>(*operands);
      const auto& b = std::get<2>(*operands);
      const Scalar one = ATS::one(), scratch_beta = beta_zero ? ATS::zero() : ATS::one();
      return route_seconds_per_call(
          exec, [&] { run_kernel(kernel, exec, one, a, c, scratch_beta, b); }, give_up_after);
    };
    static RouteDecisions decisions;
    const PortableRouteKernel kernel = choose_portable_route(
        decisions, exec, K, M, N, beta_zero, options.tuning, false, [&] { return call_class(K, M, N, beta_zero); },
        time_seconds);
    run_kernel(kernel, exec, alpha, A, C, beta, B);
  }
};

}  // namespace Impl
}  // namespace kbla
