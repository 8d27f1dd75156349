// Portable kbla::update: B = alpha * A * C + beta * B   (A: K x M, C: M x N, B: K x N), also in place (B is A).
//
// Rows of A and B are independent, so the K rows are cut into blocks that never cross threads or teams and each
// block of A is read in full before the same rows of B are written: B may be the very same View as A
// (X <- X * C without a second K x M buffer), and every value of A is read from memory once.
//  - host execution spaces (kbla_update_portable_host.hpp): one team per hardware thread, blocks of A packed
//    into cache, register tiles of rows x columns that the compiler vectorises;
//  - device execution spaces: B column-major with at most 8 columns (kbla_update_device_direct.hpp): threads read
//    a few rows of A straight from device memory and write all columns of the same rows of B; any other B
//    (kbla_update_portable_device.hpp): a team per block of rows of A staged in scratch memory, then coalesced
//    stores of B.
#pragma once

#include <impl/kbla_scale.hpp>
#include <impl/kbla_update_device_direct.hpp>
#include <impl/kbla_update_portable_device.hpp>
#include <impl/kbla_update_portable_host.hpp>

#include <impl/kbla_arith_traits.hpp>
#include <Kokkos_Core.hpp>

#include <cstdint>

namespace kbla {
namespace Impl {

template <class ExecSpace, class AView, class CView, class BView>
struct UpdatePortable {
  using Scalar = typename BView::non_const_value_type;
  using ATS = kbla::Impl::ArithTraits<Scalar>;

  static void run(const ExecSpace& exec, const Scalar& alpha, const AView& A, const CView& C, const Scalar& beta,
                  const BView& B) {
    const std::int64_t K = B.extent(0);
    const int M = A.extent(1), N = B.extent(1);
    if (K == 0 || N == 0) return;
    if (M == 0 || alpha == ATS::zero()) {
      scale_matrix(exec, beta, B);
      return;
    }
    if constexpr (runs_on_host<ExecSpace>::value) {
      UpdateHostBlocks<ExecSpace, AView, CView, BView>::run(exec, alpha, A, C, beta, B);
    } else if (update_direct_fits(B)) {
      with_update_direct_tile(N, [&](auto TN) {
        UpdateDeviceDirect<ExecSpace, AView, CView, BView, decltype(TN)::value>::run(exec, alpha, A, C, beta, B);
      });
    } else {
      update_staged(exec, alpha, A, C, beta, B);
    }
  }
};

}  // namespace Impl
}  // namespace kbla
