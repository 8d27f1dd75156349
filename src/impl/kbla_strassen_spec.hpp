// Dispatch point of kbla::strassen_gemm (Kokkos Kernels pattern): the primary template is the portable path
// (src/impl/kbla_strassen_impl.hpp); the specialisations for strassen_tpl_spec_avail == true live in
// src/tpls/kbla_strassen_tpl_spec_decl.hpp. StrassenTplWorkspace says how much workspace a vendor path needs.
#pragma once

#include <kbla_options.hpp>
#include <impl/kbla_strassen_impl.hpp>
#include <tpls/kbla_strassen_tpl_spec_avail.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace kbla {
namespace Impl {

// arguments already checked; m, n, k > 0, alpha != 0; tA, tB normalized to 'N', 'T', 'C'
template <class ExecSpace, class AView, class BView, class CView,
          bool tpl_spec_avail = strassen_tpl_spec_avail<ExecSpace, AView, BView, CView>::value>
struct Strassen {
  using Scalar = typename CView::non_const_value_type;
  static void run(const ExecSpace& exec, char tA, char tB, const Scalar& alpha, const AView& A, const BView& B,
                  const Scalar& beta, const CView& C, const GemmOptions& options, const char* call) {
    // Views the execution space cannot reach were rejected by the argument checks at run time; do not even
    // instantiate the recursion for them (KokkosBlas::gemm does not compile for such a pairing).
    constexpr bool reachable = Kokkos::SpaceAccessibility<ExecSpace, typename AView::memory_space>::accessible &&
                               Kokkos::SpaceAccessibility<ExecSpace, typename BView::memory_space>::accessible &&
                               Kokkos::SpaceAccessibility<ExecSpace, typename CView::memory_space>::accessible;
    if constexpr (reachable) {
      strassen_portable(exec, tA, tB, alpha, A, B, beta, C, options, call);
    } else {
      throw std::logic_error(std::string(call) + ": Views not accessible from the execution space got past the checks");
    }
  }
  // Which code runs these options (see portable_strassen_implementation).
  static int implementation(const GemmOptions& options, const AView&, const BView&, const CView&) {
    return portable_strassen_implementation(options);
  }
  // Levels of recursion run() takes for these operands and an m x n x k product (0: one classical product).
  static int levels_run(const GemmOptions& options, const AView&, const BView&, const CView&, std::int64_t m,
                        std::int64_t n, std::int64_t k) {
    return strassen_plan(options).levels_for(m, n, k);
  }
};

// Bytes of workspace the vendor path of (ExecSpace, Scalar) needs; 0 where there is none.
template <class ExecSpace, class Scalar>
struct StrassenTplWorkspace {
  static std::size_t bytes(const GemmOptions&, std::int64_t, std::int64_t, std::int64_t) { return 0; }
};

}  // namespace Impl
}  // namespace kbla

#include <tpls/kbla_strassen_tpl_spec_decl.hpp>
