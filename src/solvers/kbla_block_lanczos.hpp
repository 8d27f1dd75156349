// The thick-restart block Lanczos iteration behind kbla::eigen (kbla_eigen.hpp describes the method), on the
// operator it is given: A itself, or the Chebyshev filter p(A) of kbla_chebyshev_filter.hpp.
#pragma once

#include <kbla_inner.hpp>
#include <kbla_update.hpp>
#include <impl/kbla_host_cpus.hpp>
#include <mpi/kbla_reducer.hpp>
#include <solvers/kbla_dense_host.hpp>
#include <solvers/kbla_eigen_types.hpp>
#include <solvers/kbla_ortho.hpp>
#include <solvers/kbla_random.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <future>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace kbla {
namespace Impl {

// What the Chebyshev-accelerated solver (kbla_eigen.hpp) changes in a block Lanczos run; empty members leave
// the plain solver's behaviour.
template <class Scalar, class MemorySpace>
struct LanczosHooks {
  // Called once, at the first Rayleigh-Ritz step, with every Ritz value of the projected matrix (ascending).
  std::function<void(const std::vector<double>&)> first_ritz_values;
  // The relative residual a Ritz pair (value theta, Krylov-Schur residual norm) is judged by; default
  // norm / max(|theta|, sqrt(eps) * the largest |Ritz value|).
  std::function<double(double theta, double residual_norm)> relative_residual;
  // Starting block (local_rows x block size); empty: random.
  Kokkos::View<Scalar**, Kokkos::LayoutLeft, MemorySpace> start;
  // false: the caller forms the returned pairs' residuals itself (the operator is not A).
  bool explicit_residuals = true;
};

// Relative residuals of the pairs (values[j], X(:, j)): W holds A X on entry and A X - X diag(values) on return;
// ||w_j|| / max(|values[j]|, sqrt(eps) max |values|), the Gram matrix of W summed over the ranks.
template <class Scalar, class ExecSpace, class Block, class Reducer>
std::vector<double> relative_residuals(const ExecSpace& exec, const Reducer& reducer, const Block& X, const Block& W,
                                       const std::vector<double>& values) {
  using memory_space = typename ExecSpace::memory_space;
  using Small = Kokkos::View<Scalar**, Kokkos::LayoutLeft, memory_space>;
  using HostSmall =
      Kokkos::View<Scalar**, Kokkos::LayoutLeft, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using Real = dense::mag_t<Scalar>;
  const int k = int(values.size());
  dense::Matrix<Scalar> D(k, k);
  Real anorm = 0;
  for (int j = 0; j < k; ++j) {
    D(j, j) = Scalar(values[j]);
    anorm = std::max(anorm, Real(std::abs(values[j])));
  }
  const Small Dd("kbla::eigen diag", k, k), Gd("kbla::eigen residual gram", k, k);
  Kokkos::deep_copy(Dd, HostSmall(D.data(), k, k));
  kbla::update(exec, Scalar(-1), X, Dd, Scalar(1), W);
  kbla::inner(exec, Scalar(1), W, W, Scalar(0), Gd);
  dense::Matrix<Scalar> G(k, k);
  Kokkos::deep_copy(HostSmall(G.data(), k, k), Gd);
  reducer.sum_host(G.data(), std::size_t(k) * k);
  const Real guard = std::sqrt(std::numeric_limits<Real>::epsilon());
  std::vector<double> residuals;
  for (int j = 0; j < k; ++j) {
    const Real denom = std::max(Real(std::abs(values[j])), guard * anorm);
    residuals.push_back(double(std::sqrt(std::max(Real(0), dense::real(G(j, j)))) / denom));
  }
  return residuals;
}

template <class Scalar, class ExecSpace, class Operator, class Reducer>
EigenResult<Scalar, typename ExecSpace::memory_space> block_lanczos(
    const ExecSpace& exec, const Operator& op, std::int64_t local_rows, const EigenOptions& options,
    const Reducer& reducer, const LanczosHooks<Scalar, typename ExecSpace::memory_space>& hooks) {
  using memory_space = typename ExecSpace::memory_space;
  using MV = Kokkos::View<Scalar**, Kokkos::LayoutLeft, memory_space>;
  using Small = Kokkos::View<Scalar**, Kokkos::LayoutLeft, memory_space>;
  using HostSmall =
      Kokkos::View<Scalar**, Kokkos::LayoutLeft, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using Real = dense::mag_t<Scalar>;
  if (local_rows < 0) throw std::invalid_argument("kbla::eigen: local_rows = " + std::to_string(local_rows) +
                                                  " must be >= 0");
  const RowRange rows = reducer.row_range(local_rows);
  const std::int64_t n = rows.global;  // the operator's dimension (all ranks)
  const std::int64_t n_rows = local_rows;
  Impl::eigen_check_options(n, options);

  EigenResult<Scalar, memory_space> result;
  const ReductionStats stats0 = reducer.stats();
  Kokkos::Timer total_timer;
  const int s = options.block_size, nev = options.nev;
  const Real eps = std::numeric_limits<Real>::epsilon();
  const Real guard_factor = std::sqrt(eps);
  result.block_size = s;

  using SmallU = Kokkos::View<Scalar**, Kokkos::LayoutLeft, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  auto to_device = [](const dense::Matrix<Scalar>& h, const auto& d) {
    Kokkos::deep_copy(d, HostSmall(const_cast<Scalar*>(h.data()), h.rows(), h.cols()));
  };
  auto apply = [&](const MV& X, const MV& Y) {
    exec.fence();
    Kokkos::Timer t;
    op(X, Y);
    exec.fence();
    result.timings.operator_apply += t.seconds();
    result.operator_applications += long(X.extent(1));
    ++result.operator_calls;
  };

  int maxdim = options.blocks() * s;
  if (std::int64_t(maxdim) + s > n) maxdim = int(std::max<std::int64_t>(0, (n - s) / s * s));
  const bool use_dense = maxdim < nev + 2 * s;

  std::vector<double> values;  // in locking order, then sorted below
  MV X;                        // n x nev, columns matching `values`

  if (use_dense) {
    // Too small for a Krylov basis of this block size: apply the operator to the identity and solve densely.
    result.dense = true;
    const int nn = int(n);
    // This process's rows of the identity and of A (all of them on one process).
    MV I("kbla::eigen identity", n_rows, n), AI("kbla::eigen dense A", n_rows, n);
    auto Ih = Kokkos::create_mirror_view(I);
    for (std::int64_t i = 0; i < n_rows; ++i) Ih(i, rows.offset + i) = Scalar(1);
    Kokkos::deep_copy(I, Ih);
    apply(I, AI);
    Kokkos::Timer t;
    dense::Matrix<Scalar> A(nn, nn), Z;
    if (Reducer::distributed) {  // A = I^H (A I), summed over the ranks
      const Small Ad("kbla::eigen dense A gathered", n, n);
      kbla::inner(exec, Scalar(1), I, AI, Scalar(0), Ad);
      Kokkos::deep_copy(HostSmall(A.data(), nn, nn), Ad);
      reducer.sum_host(A.data(), std::size_t(nn) * nn);
    } else {
      Kokkos::deep_copy(HostSmall(A.data(), nn, nn), AI);
    }
    for (int j = 0; j < nn; ++j)
      for (int i = 0; i <= j; ++i) A(i, j) = A(j, i) = (A(i, j) + dense::conj(A(j, i))) / Scalar(2);
    for (int j = 0; j < nn; ++j)
      for (int i = 0; i < j; ++i) A(j, i) = dense::conj(A(i, j));
    std::vector<Real> theta;
    dense::hermitian_eigen(A, theta, Z);
    const std::vector<int> order = Impl::wanted_order(theta, options.which);
    dense::Matrix<Scalar> Zk(int(n_rows), nev);
    for (int j = 0; j < nev; ++j) {
      values.push_back(double(theta[order[j]]));
      for (int i = 0; i < int(n_rows); ++i) Zk(i, j) = Z(int(rows.offset) + i, order[j]);
    }
    X = MV("kbla::eigen eigenvectors", n_rows, nev);
    to_device(Zk, X);
    result.timings.rayleigh_ritz += t.seconds();
    result.converged = true;
    result.basis_size = nn;
  } else {
    result.basis_size = maxdim;
    BlockOrthogonalizer<ExecSpace, Scalar, Reducer> orth(exec, options.ortho, reducer);
    // Two basis buffers: a restart writes the kept Ritz vectors V_active Y(:, kept) out of place into the other
    // buffer (kbla::update, a plain GEMM: cuBLAS on CUDA for widths > 64) and the buffers swap. Rotating in place
    // instead (update_in_place over all na columns) computed na columns where only the kept ones are needed and
    // goes through the slower in-place kernel; the price is a second n x (maxdim + s) buffer in device memory
    // (e.g. 0.8 GB for n = 10^6, maxdim + s = 104, double), which the speed-up on the GPU is worth.
    MV V("kbla::eigen basis", n_rows, maxdim + s);
    MV V2(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kbla::eigen basis 2"), n_rows, maxdim + s);
    auto cols = [&](int a, int b) -> MV { return Kokkos::subview(V, Kokkos::ALL(), std::make_pair(a, b)); };
    auto cols2 = [&](int a, int b) -> MV { return Kokkos::subview(V2, Kokkos::ALL(), std::make_pair(a, b)); };
    const Kokkos::View<Scalar*, memory_space> Yd("kbla::eigen rotation", std::size_t(maxdim) * maxdim);

    // Block Lanczos step: W = A V_c lies, in exact arithmetic, in span(V_prev, V_c, V_next) (V_prev = the kept
    // Ritz vectors in the first step after a restart), so W is first projected against those `local` columns,
    // then against the whole basis, normally once (OrthoOptions::one_pass_ratio): BCGS with full
    // re-orthogonalisation at about half the traffic of BCGS2 over the whole basis.
    using LocalHook = typename BlockOrthogonalizer<ExecSpace, Scalar, Reducer>::LocalHook;
    auto timed_ortho = [&](int p, int c0, int c1, int local,
                           const LocalHook& local_ready) -> const OrthoResult<Scalar>& {
      exec.fence();
      Kokkos::Timer t;
      const OrthoResult<Scalar>& o = orth(cols(0, p), cols(c0, c1), local, local_ready);  // local 0: no hook
      exec.fence();
      result.timings.ortho += t.seconds();
      if (!o.complete) throw std::runtime_error("kbla::eigen: the basis could not be extended (n too small?)");
      return o;
    };

    if (hooks.start.data())
      Kokkos::deep_copy(exec, cols(0, s), hooks.start);
    else
      Impl::fill_random_rows(exec, cols(0, s), options.seed, rows.offset);  // offset 0: fill_random
    timed_ortho(0, 0, s, 0, LocalHook());

    // The Rayleigh-Ritz step's projected matrix: T on the active columns [nl, top), made Hermitian.
    dense::Matrix<Scalar> T(maxdim + s, maxdim + s);
    int nl = 0;      // locked columns at the front of V
    auto projected_matrix = [&](int top) {
      const int na = top - nl;
      dense::Matrix<Scalar> Ta(na, na);
      for (int j = 0; j < na; ++j)
        for (int i = 0; i < na; ++i)
          Ta(i, j) = (T(nl + i, nl + j) + dense::conj(T(nl + j, nl + i))) / Scalar(2);
      return Ta;
    };
    // Only the Ritz vectors a restart can use are formed: the first `formed` in the wanted order (the wanted
    // window's, for the residual estimates, and the kept ones). Which are kept depends on how many converge, but
    // their number does not (kept_count below), so it is known before the eigenproblem is solved.
    auto formed_count = [&](int na) { return std::min(na, std::max(nev - nl, Impl::kept_count(na - s, nev - nl))); };
    auto first_formed_of = [&](int na) { return options.which == EigenWhich::largest ? na - formed_count(na) : 0; };
    struct DenseSolution {
      std::vector<Real> theta;
      dense::Matrix<Scalar> Y;
      double seconds = 0;
    };
    auto solve_projected = [](const dense::Matrix<Scalar>& Ta, int first, int count) {
      DenseSolution d;
      const auto start = std::chrono::steady_clock::now();
      dense::hermitian_eigen(Ta, d.theta, d.Y, first, count);
      d.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      return d;
    };
    // The step that fills the basis starts the dense eigenproblem as soon as its local projection is known: W = A V_c
    // lies in span(V_prev, V_c, V_next) in exact arithmetic, so T's last block column is those coefficients (zero
    // elsewhere); the full projection that follows only adds rounding-level corrections, which the projected matrix
    // leaves out (as block Lanczos with full re-orthogonalisation does). Every backend forms the same matrix; on
    // a device backend the eigenproblem runs on another host thread meanwhile, on a host backend (whose threads
    // run the step) in this thread when the result is needed.
    constexpr bool host_backend = Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible;
    const bool overlap = options.overlap_rayleigh_ritz && !host_backend && Impl::usable_host_cpus() > 1;
    std::future<DenseSolution> started;

    int nb = s;      // basis columns; the last block [nb - s, nb) is the next to expand
    int restart = 0;
    int local = nb;  // columns W = A V_c has (in exact arithmetic) its component along: [nl, nb) after a restart
    while (true) {
      // Expand the basis by whole blocks while it stays within maxdim + s columns.
      while (nb <= maxdim) {
        const int c = nb - s;
        apply(cols(c, nb), cols(nb, nb + s));
        const int window = options.local_projection ? local : 0;
        LocalHook start_rayleigh_ritz;
        if (nb + s > maxdim && window > 0) {  // this step fills the basis
          start_rayleigh_ritz = [&, c, window](const dense::Matrix<Scalar>& local_coefficients) {
            for (int j = 0; j < s; ++j) {
              for (int i = nl; i < nb; ++i) T(i, c + j) = Scalar(0);
              for (int i = std::max(nl, nb - window); i < nb; ++i)  // the local window: Q's last `window` columns
                T(i, c + j) = local_coefficients(i - (nb - window), j);
            }
            const int na = nb - nl;
            started = std::async(overlap ? std::launch::async : std::launch::deferred, solve_projected,
                                 projected_matrix(nb), first_formed_of(na), formed_count(na));
          };
        }
        const OrthoResult<Scalar>& o = timed_ortho(nb, nb, nb + s, window, start_rayleigh_ritz);
        local = 2 * s;
        for (int j = 0; j < s; ++j) {
          for (int i = nl; i < nb; ++i) T(i, c + j) = o.H(i, j);
          for (int i = 0; i < s; ++i) T(nb + i, c + j) = o.R(i, j);
        }
        nb += s;
        ++result.iterations;
      }

      // Rayleigh-Ritz on the active part [nl, top); [top, top + s) is the residual block.
      exec.fence();
      Kokkos::Timer rr;
      const int top = nb - s;
      const int na = top - nl;
      const int k_rem = nev - nl;
      const int first_formed = first_formed_of(na);
      DenseSolution solution = started.valid() ? started.get() : solve_projected(projected_matrix(top), first_formed,
                                                                                 formed_count(na));
      result.timings.projected_eigen += solution.seconds;
      const std::vector<Real>& theta = solution.theta;
      if (restart == 0 && hooks.first_ritz_values)
        hooks.first_ritz_values(std::vector<double>(theta.begin(), theta.end()));
      const dense::Matrix<Scalar>& Y = solution.Y;
      const auto column = [&](int j) { return j - first_formed; };  // Y's column of ascending index j
      const std::vector<int> order = Impl::wanted_order(theta, options.which);
      Real anorm = 0;
      for (const Real t : theta) anorm = std::max(anorm, std::abs(t));
      dense::Matrix<Scalar> B(s, na);
      for (int j = 0; j < na; ++j)
        for (int i = 0; i < s; ++i) B(i, j) = T(top + i, nl + j);
      const dense::Matrix<Scalar> BY = dense::multiply(B, Y);  // column column(j): Ritz pair j's residual block
      std::vector<double> rel(na);
      for (int w = 0; w < std::min(k_rem, na); ++w) {
        const int j = order[w];
        Real r2 = 0;
        for (int i = 0; i < s; ++i) r2 += dense::abs2(BY(i, column(j)));
        rel[j] = hooks.relative_residual
                     ? hooks.relative_residual(double(theta[j]), double(std::sqrt(r2)))
                     : double(std::sqrt(r2) / std::max(std::abs(theta[j]), guard_factor * anorm));
      }
      std::vector<int> conv, unconv;
      double max_res = 0;
      for (int w = 0; w < na; ++w) {
        const int j = order[w];
        if (w < k_rem) {
          max_res = std::max(max_res, rel[j]);
          if (rel[j] <= options.tol) {
            conv.push_back(j);
            continue;
          }
        }
        unconv.push_back(j);
      }
      const int new_nl = nl + int(conv.size());
      const bool done = new_nl >= nev;
      const bool out_of_restarts = !done && restart >= options.max_restarts;
      if (out_of_restarts) {  // return the best approximations: lock the whole wanted window as it is
        conv.clear();
        unconv.clear();
        for (int w = 0; w < na; ++w) (w < k_rem ? conv : unconv).push_back(order[w]);
      }
      const int locked_now = nl + int(conv.size());
      // Thick restart: keep the unconverged wanted Ritz vectors plus half of the remaining room. The basis then
      // grows by whole blocks up to at most maxdim, so its size (and with it the number kept) varies from one
      // restart to the next; measured on the 3D Laplacian this converges faster than a fixed split, whose
      // restart filter keeps the same zeros cycle after cycle. Re-measured with the cheaper orthogonalisation
      // (3D Laplacian 30^3 / 40^3, k = 16, s = 8, tol 1e-10; cost = orthogonalisation + SpMV + restart traffic):
      // keeping half of the extra room beat 0.3 and 0.7 (cost +4% to +43%) and a TRLan-style adaptive choice
      // (max (m - kk) sqrt(gap ratio)), which kept more vectors: +31% / +20% / +11% at m = 12 / 14 / 16, though
      // steadier in m (-16% at m = 11). The default m = ceil(2k/s) + 8 = 12 was the cheapest of m = 8..20
      // (m = 14..16 within 10%, m = 11 and 13 up to +47% at 30^3: a restarted run's iteration count is not smooth
      // in m; at 40^3 m = 12, 14, 16 took 227, 226, 226 iterations).
      const int kk = (done || out_of_restarts) ? 0 : Impl::kept_count(na - s, k_rem) - int(conv.size());

      // New basis (in the other buffer): [locked | newly locked | kept | residual block], the middle part
      // V_active * Y(:, perm) for the nkeep = conv + kk columns that stay; the other Ritz vectors are never formed.
      std::vector<int> perm = conv;
      perm.insert(perm.end(), unconv.begin(), unconv.end());
      const int nkeep = int(conv.size()) + kk;
      dense::Matrix<Scalar> Yp(na, nkeep);
      for (int j = 0; j < nkeep; ++j)
        for (int i = 0; i < na; ++i) Yp(i, j) = Y(i, column(perm[j]));
      const SmallU Ydn(Yd.data(), na, nkeep);
      to_device(Yp, Ydn);
      exec.fence();
      Kokkos::Timer rot;
      kbla::update(exec, Scalar(1), cols(nl, top), Ydn, Scalar(0), cols2(nl, nl + nkeep));
      if (nl > 0) Kokkos::deep_copy(exec, cols2(0, nl), cols(0, nl));
      result.timings.restart_bytes += double(n_rows) * sizeof(Scalar) * (na + nkeep + 2.0 * nl);
      for (const int j : conv) values.push_back(double(theta[j]));

      if (!done && !out_of_restarts) {
        T.set_zero();
        for (int i = 0; i < kk; ++i) T(locked_now + i, locked_now + i) = Scalar(theta[perm[conv.size() + i]]);
        for (int j = 0; j < kk; ++j)
          for (int i = 0; i < s; ++i) T(locked_now + kk + i, locked_now + j) = BY(i, column(perm[conv.size() + j]));
        Kokkos::deep_copy(exec, cols2(locked_now + kk, locked_now + kk + s), cols(top, top + s));
        result.timings.restart_bytes += double(n_rows) * sizeof(Scalar) * 2.0 * s;
      }
      std::swap(V, V2);
      exec.fence();
      result.timings.restart_rotation += rot.seconds();
      result.timings.rayleigh_ritz += rr.seconds();

      if (options.progress) {
        EigenProgress p;
        p.restart = restart;
        p.converged = new_nl;
        p.nev = nev;
        p.max_residual = max_res;
        p.elapsed = total_timer.seconds();
        p.operator_applications = result.operator_applications;
        options.progress(p);
      }
      nl = locked_now;
      if (done || out_of_restarts) {
        result.converged = done;
        break;
      }
      nb = nl + kk + s;
      local = kk + s;
      ++restart;
    }
    result.restarts = restart;
    result.timings.ortho_bytes = orth.bytes_moved();
    X = Kokkos::subview(V, Kokkos::ALL(), std::make_pair(0, nev));
  }

  // Sort into the wanted order and copy out (eigenvectors = X P for a permutation P).
  std::vector<int> idx(nev);
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) {
    return options.which == EigenWhich::largest ? values[a] > values[b] : values[a] < values[b];
  });
  dense::Matrix<Scalar> P(nev, nev);
  for (int j = 0; j < nev; ++j) {
    P(idx[j], j) = Scalar(1);
    result.eigenvalues.push_back(values[idx[j]]);
  }
  const Small Pd("kbla::eigen permutation", nev, nev);
  to_device(P, Pd);
  result.eigenvectors = MV("kbla::eigen eigenvectors", n_rows, nev);
  kbla::update(exec, Scalar(1), X, Pd, Scalar(0), result.eigenvectors);

  // Explicit residuals: W = A X - X diag(lambda), ||w_j|| / |lambda_j|.
  if (hooks.explicit_residuals) {
    MV W("kbla::eigen residual", n_rows, nev);
    apply(result.eigenvectors, W);
    Kokkos::Timer t;
    result.residuals = relative_residuals<Scalar>(exec, reducer, result.eigenvectors, W, result.eigenvalues);
    result.timings.residuals += t.seconds();
  }
  exec.fence();
  result.timings.total = total_timer.seconds();
  const ReductionStats stats1 = reducer.stats();
  result.timings.allreduces = stats1.allreduces - stats0.allreduces;
  result.timings.allreduce_time = stats1.seconds - stats0.seconds;
  return result;
}

}  // namespace Impl
}  // namespace kbla
