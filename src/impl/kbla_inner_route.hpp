// kbla::inner on the portable path: the portable kernel (InnerPortable), or KokkosBlas::gemm (A^H B, or A^T B)
// where the route (kbla_portable_route.hpp) measured it faster for the call's class on this device.
#pragma once

#include <kbla_options.hpp>
#include <impl/kbla_inner_impl.hpp>
#include <impl/kbla_portable_route.hpp>
#include <impl/kbla_portable_route_keys.hpp>
#include <impl/kbla_portable_route_timing.hpp>
#include <impl/kbla_portable_route_views.hpp>
#include <impl/kbla_route_kokkosblas_gemm.hpp>

#include <impl/kbla_arith_traits.hpp>
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <tuple>

namespace kbla {
namespace Impl {

template <class ExecSpace, class AView, class BView, class CView>
struct InnerRoute {
  using Scalar = typename CView::non_const_value_type;
  using ATS = kbla::Impl::ArithTraits<Scalar>;
  static constexpr bool has_choice = route_kokkosblas_gemm_avail<ExecSpace, AView, BView, CView>::value;

  static void run(const ExecSpace& exec, bool conjA, const Scalar& alpha, const AView& A, const BView& B,
                  const Scalar& beta, const CView& C, const InnerOptions& options) {
    if constexpr (has_choice) {
      routed(exec, conjA, alpha, A, B, beta, C, options);
    } else {
      InnerPortable<ExecSpace, AView, BView, CView>::run(exec, conjA, alpha, A, B, beta, C, options);
    }
  }

  // The class of a call, as the cache file spells it (tests record choices under it).
  static std::string call_class(std::int64_t K, int M, int N, bool beta_zero) {
    const std::string layouts = std::string("A") + route_layout_letter<typename AView::array_layout>::value + " B" +
                                route_layout_letter<typename BView::array_layout>::value + " C" +
                                route_layout_letter<typename CView::array_layout>::value;
    return route_call_class("inner", route_scalar_letter<Scalar>::value, layouts, M, N, K, beta_zero);
  }

 private:
  using ARoute = route_view_t<AView, const Scalar>;
  using BRoute = route_view_t<BView, const Scalar>;
  using CRoute = route_view_t<CView, Scalar>;
  using Portable = InnerPortable<ExecSpace, ARoute, BRoute, CRoute>;

  static void run_kernel(PortableRouteKernel kernel, const ExecSpace& exec, bool conjA, const Scalar& alpha,
                         const ARoute& A, const BRoute& B, const Scalar& beta, const CRoute& C,
                         const InnerOptions& options) {
    if (kernel == PortableRouteKernel::kokkosblas) {
      route_kokkosblas_gemm(exec, conjA ? 'C' : 'T', 'N', alpha, A, B, beta, C);
    } else {
      Portable::run(exec, conjA, alpha, A, B, beta, C, options);
    }
  }

  static void routed(const ExecSpace& exec, bool conjA, const Scalar& alpha, const ARoute& A, const BRoute& B,
                     const Scalar& beta, const CRoute& C, const InnerOptions& options) {
    const std::int64_t K = A.extent(0);
    const int M = C.extent(0), N = C.extent(1);
    // Empty shapes, K = 0 and alpha = 0 only scale C: no product to choose a kernel for.
    if (K == 0 || M == 0 || N == 0 || alpha == ATS::zero()) {
      Portable::run(exec, conjA, alpha, A, B, beta, C, options);
      return;
    }
    const bool beta_zero = beta == ATS::zero();
    RouteScratch<std::tuple<ScratchOf<AView>, ScratchOf<BView>, ScratchOf<CView>>> scratch;
    const auto time_seconds = [&](PortableRouteKernel kernel, double give_up_after) -> double {
      const auto* operands = scratch.get([&] {
        const std::int64_t rows = route_scratch_rows(K, M, N, sizeof(Scalar), runs_on_host<ExecSpace>::value);
        return std::make_tuple(route_scratch<AView>(exec, "kbla::inner route scratch A", rows, M),
                               route_scratch<BView>(exec, "kbla::inner route scratch B", rows, N),
                               route_scratch<CView>(exec, "kbla::inner route scratch C", M, N));
      });
      if (!operands) return -1;
      const auto& a = std::get<0>(*operands);
      const auto& b = std::get<1>(*operands);
      const auto& c = std::get<2>(*operands);
      const Scalar one = ATS::one(), scratch_beta = beta_zero ? ATS::zero() : ATS::one();
      return route_seconds_per_call(
          exec, [&] { run_kernel(kernel, exec, conjA, one, a, b, scratch_beta, c, options); }, give_up_after);
    };
    static RouteDecisions decisions;
    const PortableRouteKernel kernel =
        choose_portable_route(decisions, exec, K, M, N, beta_zero, options.tuning, options.deterministic,
                              [&] { return call_class(K, M, N, beta_zero); }, time_seconds);
    run_kernel(kernel, exec, conjA, alpha, A, B, beta, C, options);
  }
};

}  // namespace Impl
}  // namespace kbla
