// kbla::eigen: k extreme eigenpairs of a Hermitian operator by thick-restart block Lanczos (the Hermitian form of
// block Krylov-Schur), built on kbla::ortho (BCGS2 + CholQR2 through kbla::inner / kbla::update), the operator
// (a functor on Views, e.g. KokkosSparse::spmv on multivectors; see kbla_crs_operator.hpp) and small host work.
//
// Basis V = [locked | active | next block], at most m s + s columns of K rows on the execution space's memory.
// Expansion: W = A V_c for the newest block V_c, W <- ortho(W against all of V) gives the column block of the
// projected matrix T (coefficients H) and the sub-diagonal block R. Full re-orthogonalisation every step, in the
// cheap form: W is projected first against the blocks the Lanczos recurrence puts it on (V_prev, V_c), then
// once against the whole basis; a second full projection and CholQR2's second round only when the one-pass test
// fails (OrthoOptions::one_pass_ratio; it never did on the 3D Laplacian runs measured).
// When the active basis is full: Rayleigh-Ritz on T (host Householder + QL; on a device backend started on a
// second host thread while the device finishes the step that filled the basis), residual estimates
// ||R_last Y_i|| (Krylov-Schur relation), converged wanted pairs are locked (kept in front of the basis,
// excluded from the projected problem), the best unconverged wanted Ritz vectors plus half of the remaining
// room are kept (thick restart: only those columns of V Y are formed, out of place into a second basis buffer),
// and the residual block becomes the next block to expand.
// Block size s >= the largest multiplicity among the wanted eigenvalues finds every copy (a single-vector
// Lanczos cannot).
// Distributed (the overload with a reducer, e.g. kbla::mpi::Reducer): every rank holds its rows of the bases, the
// operator is the caller's (it exchanges its own halos), kbla::ortho sums its small products over the ranks, and
// the projected problem is solved redundantly on every rank from the same summed numbers, so all ranks take the
// same decisions. The starting block is a function of the global row, so the run follows the single-process one.
// Chebyshev acceleration (EigenOptions::chebyshev_degree = d > 0): one plain basis fill locates the spectrum (its
// Ritz values bound the unwanted interval: by interlacing the (k + s)-th largest Ritz value lies below A's k-th
// largest eigenvalue), then the iteration above runs on p(A) = T_d(L(A)) (kbla_chebyshev_filter.hpp), judging each
// Ritz pair by a bound on its residual with A; a last Rayleigh-Ritz step with A on the k converged vectors gives the
// returned values, vectors and explicit residuals.

#pragma once

#include <kbla_inner.hpp>
#include <kbla_update.hpp>
#include <mpi/kbla_reducer.hpp>
#include <solvers/kbla_block_lanczos.hpp>
#include <solvers/kbla_chebyshev_filter.hpp>
#include <solvers/kbla_dense_host.hpp>
#include <solvers/kbla_eigen_types.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace kbla {
namespace Impl {

// The filter from the Ritz values of one plain basis fill (ascending). The unwanted interval ends on the wanted side
// at the (k + s)-th Ritz value from that side, which interlacing puts between A's (k + s)-th eigenvalue and the far
// end, so all k wanted eigenvalues lie beyond it; on the other side it reaches 1 % of its width past the extreme
// Ritz value (extreme Ritz values converge first, from inside). The degree is the requested one, lowered (odd, to 3
// at least) while the filter's rounding floor is not 100 times below the tolerance: p(A) is formed to about eps times
// the largest |p| over the Ritz range (times d steps), which the residual bound turns into a residual of A at the
// k-th wanted Ritz value (a wanted eigenvalue far beyond the others, or one far beyond the interval's other end,
// makes |p| huge there). degree 0: no usable filter (too few or equal Ritz values, or no degree is accurate enough).
inline ChebyshevPolynomial chebyshev_filter_from_ritz_values(const std::vector<double>& ritz, int nev, int block,
                                                             int degree, EigenWhich which, double tol) {
  ChebyshevPolynomial p;
  const int count = int(ritz.size());
  if (count < nev + block + 1) return p;
  const double range = ritz.back() - ritz.front();
  if (!(range > 0)) return p;
  const bool largest = which == EigenWhich::largest;
  const double edge = largest ? ritz[std::size_t(count - nev - block)] : ritz[std::size_t(nev + block - 1)];
  const double far = largest ? ritz.front() : ritz.back();
  const double kth = largest ? ritz[std::size_t(count - nev)] : ritz[std::size_t(nev - 1)];
  const double width = std::abs(edge - far);
  if (!(width > 1e-6 * range)) return p;
  const double low = largest ? far - 0.01 * width : edge, high = largest ? edge : far + 0.01 * width;
  p.sign = largest ? 1 : -1;
  p.center = 0.5 * (low + high);
  p.half_width = 0.5 * (high - low);
  const double eps = std::numeric_limits<double>::epsilon();
  for (int d = degree; d >= 3; d -= 2) {
    p.degree = d;
    const double largest_p = std::max({1.0, std::abs(p.value(ritz.front())), std::abs(p.value(ritz.back()))});
    const double floor = eps * d * largest_p * p.residual_factor(p.value(kth)) / std::max(std::abs(kth), eps * range);
    if (100 * floor <= tol) return p;
  }
  p.degree = 0;
  return p;
}

// kbla::eigen with EigenOptions::chebyshev_degree > 0 (see the top of this file).
template <class Scalar, class ExecSpace, class Operator, class Reducer>
EigenResult<Scalar, typename ExecSpace::memory_space> filtered_eigen(const ExecSpace& exec, const Operator& op,
                                                                     std::int64_t local_rows,
                                                                     const EigenOptions& options,
                                                                     const Reducer& reducer) {
  using memory_space = typename ExecSpace::memory_space;
  using Block = Kokkos::View<Scalar**, Kokkos::LayoutLeft, memory_space>;
  using HostSmall =
      Kokkos::View<Scalar**, Kokkos::LayoutLeft, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using Real = dense::mag_t<Scalar>;
  Kokkos::Timer total_timer;
  const ReductionStats stats0 = reducer.stats();
  const int nev = options.nev, s = options.block_size;

  // 1. One plain basis fill; done if it already converged (or the problem was solved densely).
  std::vector<double> ritz;
  LanczosHooks<Scalar, memory_space> locate;
  locate.first_ritz_values = [&](const std::vector<double>& values) { ritz = values; };
  EigenOptions plain = options;  // its degree only goes through block_lanczos's option check, which throws first
  plain.max_restarts = 0;
  EigenResult<Scalar, memory_space> first = block_lanczos<Scalar>(exec, op, local_rows, plain, reducer, locate);
  const ChebyshevPolynomial poly =
      chebyshev_filter_from_ritz_values(ritz, nev, s, options.chebyshev_degree, options.which, options.tol);
  if (first.converged || first.dense || options.max_restarts == 0) return first;
  // The fill's work counts in the result of the run that follows it; the switch of runs counts as a restart.
  const auto count_first_run = [&](EigenResult<Scalar, memory_space>& r) {
    r.operator_applications += first.operator_applications;
    r.operator_calls += first.operator_calls;
    r.iterations += first.iterations;
    r.restarts += first.restarts + 1;
    EigenTimings& t = r.timings;
    const EigenTimings& f = first.timings;
    t.operator_apply += f.operator_apply;
    t.ortho += f.ortho;
    t.rayleigh_ritz += f.rayleigh_ritz;
    t.restart_rotation += f.restart_rotation;
    t.projected_eigen += f.projected_eigen;
    t.restart_bytes += f.restart_bytes;
    t.residuals += f.residuals;
    t.ortho_bytes += f.ortho_bytes;
    const ReductionStats stats1 = reducer.stats();
    t.allreduces = stats1.allreduces - stats0.allreduces;
    t.allreduce_time = stats1.seconds - stats0.seconds;
    t.total = total_timer.seconds();
  };
  // The second run reports its restarts after the fill's, with the operator applications of both.
  const auto after_first_run = [&](const std::function<long(const EigenProgress&)>& applications) {
    std::function<void(const EigenProgress&)> report;
    if (options.progress)
      report = [&, applications](const EigenProgress& p) {
        EigenProgress q = p;
        q.restart += 1;
        q.elapsed = total_timer.seconds();
        q.operator_applications = first.operator_applications + applications(p);
        options.progress(q);
      };
    return report;
  };
  if (poly.degree == 0) {  // no usable filter: the plain iteration, from the fill's best Ritz vectors
    LanczosHooks<Scalar, memory_space> restart;
    if (nev >= s) restart.start = Block(Kokkos::subview(first.eigenvectors, Kokkos::ALL(), std::make_pair(0, s)));
    plain.max_restarts = options.max_restarts - 1;
    plain.progress = after_first_run([](const EigenProgress& p) { return p.operator_applications; });
    EigenResult<Scalar, memory_space> result = block_lanczos<Scalar>(exec, op, local_rows, plain, reducer, restart);
    count_first_run(result);
    return result;
  }

  // 2. Block Lanczos on p(A), its largest eigenvalues, from the fill's s best Ritz vectors.
  ChebyshevOperator<Scalar, ExecSpace, Operator> filtered{exec, op, poly};
  LanczosHooks<Scalar, memory_space> hooks;
  hooks.relative_residual = [&poly](double mu, double r) { return poly.relative_residual(mu, r); };
  hooks.explicit_residuals = false;
  if (nev >= s) hooks.start = Block(Kokkos::subview(first.eigenvectors, Kokkos::ALL(), std::make_pair(0, s)));
  EigenOptions on_filter = options;
  on_filter.chebyshev_degree = 0;
  on_filter.which = EigenWhich::largest;
  on_filter.max_restarts = options.max_restarts - 1;
  on_filter.progress = after_first_run([&filtered](const EigenProgress&) { return filtered.applications; });
  EigenResult<Scalar, memory_space> result =
      block_lanczos<Scalar>(exec, filtered, local_rows, on_filter, reducer, hooks);

  // 3. Rayleigh-Ritz with A on the k vectors: X^H A X = Z diag(lambda) Z^H, return X Z, lambda and the explicit
  // residuals ||A X Z - X Z diag(lambda)||.
  const Block X = result.eigenvectors;
  Block AX("kbla::eigen A X", local_rows, nev);
  exec.fence();
  Kokkos::Timer apply_timer;
  op(X, AX);
  exec.fence();
  result.timings.operator_apply += apply_timer.seconds();
  Kokkos::Timer rr_timer;
  const Block Gd("kbla::eigen X^H A X", nev, nev);
  kbla::inner(exec, Scalar(1), X, AX, Scalar(0), Gd);
  dense::Matrix<Scalar> G(nev, nev);
  Kokkos::deep_copy(HostSmall(G.data(), nev, nev), Gd);
  reducer.sum_host(G.data(), std::size_t(nev) * nev);
  for (int j = 0; j < nev; ++j)
    for (int i = 0; i <= j; ++i) G(i, j) = G(j, i) = (G(i, j) + dense::conj(G(j, i))) / Scalar(2);
  for (int j = 0; j < nev; ++j)
    for (int i = 0; i < j; ++i) G(j, i) = dense::conj(G(i, j));
  std::vector<Real> lambda;
  dense::Matrix<Scalar> Z;
  dense::hermitian_eigen(G, lambda, Z);
  const std::vector<int> order = wanted_order(lambda, options.which);
  dense::Matrix<Scalar> Zw(nev, nev);
  result.eigenvalues.clear();
  for (int j = 0; j < nev; ++j) {
    result.eigenvalues.push_back(double(lambda[order[j]]));
    for (int i = 0; i < nev; ++i) Zw(i, j) = Z(i, order[j]);
  }
  const Block Zd("kbla::eigen Ritz rotation", nev, nev);
  Kokkos::deep_copy(Zd, HostSmall(Zw.data(), nev, nev));
  Block vectors("kbla::eigen eigenvectors", local_rows, nev), W("kbla::eigen residual", local_rows, nev);
  kbla::update(exec, Scalar(1), X, Zd, Scalar(0), vectors);  // X Z
  kbla::update(exec, Scalar(1), AX, Zd, Scalar(0), W);        // A X Z
  result.residuals = relative_residuals<Scalar>(exec, reducer, vectors, W, result.eigenvalues);
  result.eigenvectors = vectors;
  exec.fence();
  result.timings.residuals += rr_timer.seconds();

  // The two runs as one: A's applications (d per vector of p(A), and the k of the last step), steps, restarts, times.
  result.operator_applications = filtered.applications + nev;
  result.operator_calls = filtered.calls + 1;
  count_first_run(result);
  result.chebyshev_degree = poly.degree;
  result.filter_lower = poly.center - poly.half_width;
  result.filter_upper = poly.center + poly.half_width;
  return result;
}

}  // namespace Impl

// Eigenpairs of the Hermitian operator `op` of dimension n (<kbla_eigen.hpp>; <kbla_solvers.hpp> adds an overload
// for a KokkosSparse::CrsMatrix). Throws std::invalid_argument for bad options (k > n, block size 0, ...).
//
// The scalar type cannot be deduced from a functor: name it, kbla::eigen<double>(exec, op, n, options).
// `op(X, Y)` must set Y = A X, where X and Y are
//   Kokkos::View<Scalar**, Kokkos::LayoutLeft, typename ExecSpace::memory_space>
// of n rows and any number of columns (up to the block size; n x n once when the problem is solved densely).
// They are column blocks of the solver's larger bases: column j of X starts X.stride(1) elements after column j - 1,
// and X.stride(1) need not be n. Index them as X(i, j), Y(i, j) (Kokkos honours the stride), or pass X.stride(1)
// and Y.stride(1) as the leading dimensions to a raw-pointer kernel; write nothing but Y's n x X.extent(1) entries.
// The operator runs on the execution space of the Views; the solver fences before and after each application.
//
// Example: the k = 4 largest eigenpairs of the 1D Laplacian tridiag(-1, 2, -1) of size n (exact eigenvalues
// 2 - 2 cos(j pi / (n + 1)), j = n, n - 1, ...), as a functor:
//
//   #include <kbla_eigen.hpp>
//
//   namespace app {  // not an anonymous namespace: nvcc refuses device lambdas in members of classes there
//   struct Laplacian1D {
//     std::int64_t n;
//     template <class XView, class YView>
//     void operator()(const XView& X, const YView& Y) const {
//       using Exec = typename YView::execution_space;
//       const std::int64_t rows = n;
//       const int cols = int(X.extent(1));
//       Kokkos::parallel_for(
//           "app::Laplacian1D", Kokkos::RangePolicy<Exec>(0, rows), KOKKOS_LAMBDA(const std::int64_t i) {
//             for (int j = 0; j < cols; ++j) {  // X(i, j), Y(i, j): the strides are Kokkos's business
//               double y = 2 * X(i, j);
//               if (i > 0) y -= X(i - 1, j);
//               if (i + 1 < rows) y -= X(i + 1, j);
//               Y(i, j) = y;
//             }
//           });
//     }
//   };
//   }  // namespace app
//
//   const std::int64_t n = 500;
//   kbla::EigenOptions options;
//   options.nev = 4;                               // k
//   options.block_size = 2;                        // s >= the largest multiplicity among the wanted eigenvalues
//   options.which = kbla::EigenWhich::largest;
//   options.tol = 1e-10;
//   const Kokkos::DefaultExecutionSpace exec;
//   const auto result = kbla::eigen<double>(exec, app::Laplacian1D{n}, n, options);
//   // result.converged; result.eigenvalues[0..3] (descending); result.eigenvectors: n x 4 LayoutLeft View in
//   // exec's memory space; result.residuals[j] = ||A x - lambda x|| / |lambda|
//
// Distributed: kbla::eigen<double>(exec, op, local_rows, options, reducer) with `reducer` a kbla::mpi::Reducer
// (<kbla_mpi.hpp>). X and Y then hold this rank's local_rows rows (0 is allowed), op must return this rank's rows
// of A X (exchanging the rows it needs with the other ranks itself), eigenvalues and residuals are global and the
// same on every rank, eigenvectors holds this rank's rows. Collective: every rank calls with the same options.
template <class Scalar, class ExecSpace, class Operator, class Reducer>
EigenResult<Scalar, typename ExecSpace::memory_space> eigen(const ExecSpace& exec, const Operator& op,
                                                            std::int64_t local_rows, const EigenOptions& options,
                                                            const Reducer& reducer) {
  if (options.chebyshev_degree > 0) return Impl::filtered_eigen<Scalar>(exec, op, local_rows, options, reducer);
  return Impl::block_lanczos<Scalar>(exec, op, local_rows, options, reducer,
                                     Impl::LanczosHooks<Scalar, typename ExecSpace::memory_space>());
}

// One process: the operator's dimension n, all rows here.
template <class Scalar, class ExecSpace, class Operator>
EigenResult<Scalar, typename ExecSpace::memory_space> eigen(const ExecSpace& exec, const Operator& op,
                                                            std::int64_t n, const EigenOptions& options) {
  return eigen<Scalar>(exec, op, n, options, LocalReducer());
}

}  // namespace kbla
