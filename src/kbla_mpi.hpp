// KokkosBlockLA over MPI: block vectors distributed by rows, each rank holding a contiguous slice of the rows of
// every block vector (the Tpetra::MultiVector layout). docs/distributed.md describes the calls.
//
//   kbla::mpi::Reducer reducer(MPI_COMM_WORLD);                   // host-staged MPI_Allreduce by default
//   kbla::mpi::inner(exec, reducer, 1.0, A, B, 0.0, C);           // global C = A^H B on every rank
//   kbla::update(exec, -1.0, Q, C, 1.0, X);                       // row-local: no communication
//   kbla::ortho(exec, Q, X, kbla::OrthoOptions(), reducer);       // distributed BCGS2 + CholQR2
//   kbla::eigen<double>(exec, op, local_rows, options, reducer);  // op does its own halo exchange
//
// Needs MPI (configure with -DKBLA_ENABLE_MPI=ON, which links MPI::MPI_CXX); the single-process calls do not.
#pragma once

#include <kbla_inner.hpp>
#include <kbla_options.hpp>
#include <kbla_update.hpp>
#include <impl/kbla_argument_checks.hpp>
#include <mpi/kbla_mpi_reducer.hpp>
#include <mpi/kbla_reducer.hpp>

#include <Kokkos_Core.hpp>

#include <stdexcept>
#include <string>
#include <type_traits>

namespace kbla {
namespace mpi {

// C = alpha * A^H * B + beta * C over all ranks: A (K_r x M) and B (K_r x N) hold this rank's rows, C (M x N) is
// replicated and, on return, the same global result on every rank. The local product runs as kbla::inner; the
// M x N partial results are then summed by one reducer call. beta is applied once (by rank 0, to its C): C must
// hold the same values on every rank on input, as it does when it came from an earlier distributed call;
// beta = 0 never reads C. A rank may hold zero rows. Collective: every rank calls with the same M and N (checked
// when the reducer's check_shapes is on; bad arguments then throw on every rank, not only where they are).
template <class ExecSpace, class AViewType, class BViewType, class CViewType,
          class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
void inner(const ExecSpace& exec, const Reducer& reducer, typename CViewType::const_value_type& alpha,
           const AViewType& A, const BViewType& B, typename CViewType::const_value_type& beta, const CViewType& C,
           const InnerOptions& options = InnerOptions()) {
  constexpr const char* call = "kbla::mpi::inner";
  using Scalar = typename CViewType::non_const_value_type;
  kbla::Impl::require_rank2_view<AViewType>();
  kbla::Impl::require_rank2_view<BViewType>();
  kbla::Impl::require_rank2_view<CViewType>();
  std::string error;
  try {  // the checks of kbla::inner, collected so that check_shapes can tell every rank
    kbla::Impl::require_accessible<ExecSpace>(call, "A", A);
    kbla::Impl::require_accessible<ExecSpace>(call, "B", B);
    kbla::Impl::require_accessible<ExecSpace>(call, "C", C);
    kbla::Impl::require_extents(call, "B", B, A.extent(0), B.extent(1), "B must have as many rows as A (K)");
    kbla::Impl::require_extents(call, "C", C, A.extent(1), B.extent(1), "C = A^H * B is A.extent(1) x B.extent(1)");
    kbla::Impl::require_no_overlap(call, "C", C, "A", A);
    kbla::Impl::require_no_overlap(call, "C", C, "B", B);
  } catch (const std::invalid_argument& e) {
    error = e.what();
  }
  if (reducer.options().check_shapes)
    reducer.require_same(call, {{"M (A.extent(1))", std::int64_t(A.extent(1))},
                                {"N (B.extent(1))", std::int64_t(B.extent(1))}},
                         error);
  else if (!error.empty())
    throw std::invalid_argument(error);

  const Scalar local_beta = reducer.rank() == 0 ? Scalar(beta) : Scalar(0);
  kbla::inner(exec, alpha, A, B, local_beta, C, options);
  const std::size_t count = C.extent(0) * C.extent(1);
  if (count == 0) return;
  if (C.span_is_contiguous() && C.span() == count) {
    reducer.sum_device(exec, C.data(), count);
  } else {  // strided C (a block of a larger matrix): sum a packed copy
    Kokkos::View<Scalar**, Kokkos::LayoutLeft, typename ExecSpace::memory_space> packed(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "kbla::mpi::inner packed C"), C.extent(0), C.extent(1));
    Kokkos::deep_copy(exec, packed, C);
    reducer.sum_device(exec, packed.data(), count);
    Kokkos::deep_copy(exec, C, packed);
  }
}

}  // namespace mpi
}  // namespace kbla
