// Types of kbla::eigen (kbla_eigen.hpp): options, progress report, timings, result, and the option checks.
#pragma once

#include <solvers/kbla_ortho.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbla {

enum class EigenWhich { largest, smallest };  // algebraically largest / smallest

struct EigenProgress {
  int restart = 0;           // restarts done so far (the report comes after each Rayleigh-Ritz)
  int converged = 0;         // converged wanted pairs (locked ones included)
  int nev = 0;
  double max_residual = 0;   // largest relative residual estimate among the wanted pairs not yet locked
  double elapsed = 0;        // seconds since the solver started
  long operator_applications = 0;
};

struct EigenOptions {
  int nev = 16;             // k: number of eigenpairs
  int block_size = 8;       // s: must be >= the largest multiplicity among the wanted eigenvalues
  int num_blocks = 0;       // m: basis of m * s vectors (+ one block); 0 = auto, blocks() below
  double tol = 1e-10;       // converged when ||A x - lambda x|| <= tol * |lambda|
  EigenWhich which = EigenWhich::largest;
  int max_restarts = 2000;
  std::uint64_t seed = 1;   // starting block
  // Project W = A V_c first against the blocks the Lanczos recurrence puts it on, then once against the whole
  // basis (a second full pass only when the first one's test fails, OrthoOptions::one_pass_ratio); false gives
  // BCGS2 over the whole basis every step (about twice the orthogonalisation traffic).
  bool local_projection = true;
  // With local_projection on a device backend: the Rayleigh-Ritz step's dense eigenproblem runs on a second host
  // thread while the device finishes the step that fills the basis (its matrix is known once that step's local
  // projection is), when the process may run on more than one host CPU (its affinity mask: an MPI rank bound to a
  // single core solves it after the step instead). The results do not depend on it.
  bool overlap_rayleigh_ritz = true;
  OrthoOptions ortho = default_ortho();
  static OrthoOptions default_ortho() {
    OrthoOptions o;
    o.one_pass_ratio = 0.5;
    return o;
  }
  std::function<void(const EigenProgress&)> progress;  // called after every Rayleigh-Ritz step
  // Chebyshev acceleration (kbla_chebyshev_filter.hpp): 0 = off; an odd degree d >= 3 runs block Lanczos on
  // p(A) = T_d(L(A)) after one plain basis fill has located the spectrum, with L mapping the unwanted part of the
  // spectrum to [-1, 1]. p(A) has A's eigenvectors and keeps the wanted eigenvalues in order and with their
  // multiplicities, but separates them far more: about d operator applications per block step buy fewer steps,
  // restarts and orthogonalisations. The returned values and residuals are A's (a final Rayleigh-Ritz step with A).
  // Degree 7 was the fastest of 5-11 on the 3D Laplacian 100^3 on an H200 and within a few % of the best of 7-15 on
  // the host (docs/eigen.md); lower it, or turn the filter off, when an application of A costs more than an
  // orthogonalisation step against the basis.
  int chebyshev_degree = 7;

  // The basis blocks m the solver uses: num_blocks, or by default 2k vectors plus 8 blocks, ceil(2 k / s) + 8. A
  // block Krylov space of m blocks has polynomial degree m only, so the number of blocks, not the number of
  // vectors, sets the convergence per restart (m = 6 needed 3x the iterations of m = 12 for k = 16, s = 8 on the
  // 3D Laplacian).
  int blocks() const { return num_blocks > 0 ? num_blocks : (2 * nev + block_size - 1) / block_size + 8; }
};

// Wall-clock seconds by phase, each measured between execution-space fences.
struct EigenTimings {
  double operator_apply = 0;  // the operator (SpMV)
  double ortho = 0;           // kbla::ortho: BCGS2 + CholQR2 (inner / update)
  double rayleigh_ritz = 0;   // projected eigenproblem on the host + basis rotation (restart)
  double restart_rotation = 0;  // the device part of rayleigh_ritz: kept Ritz vectors V Y(:, kept) and copies
  double projected_eigen = 0;   // dense eigenproblems of the basis size (dense::hermitian_eigen), wherever they
                                // ran: with EigenOptions::overlap_rayleigh_ritz partly hidden behind the device
  double restart_bytes = 0;   // minimum memory traffic of that part
  double residuals = 0;       // explicit residuals of the returned pairs
  double total = 0;
  double ortho_bytes = 0;     // minimum memory traffic of the orthogonalisation (for its bandwidth)
  // Distributed runs: sums over the ranks (the reducer's all-reduces) and the time spent in them, which is part
  // of ortho (and of residuals); 0 on one process.
  long allreduces = 0;
  double allreduce_time = 0;
};

template <class Scalar, class MemorySpace>
struct EigenResult {
  std::vector<double> eigenvalues;  // in the wanted order (descending for largest, ascending for smallest)
  Kokkos::View<Scalar**, Kokkos::LayoutLeft, MemorySpace> eigenvectors;  // n x k (distributed: this rank's rows)
  std::vector<double> residuals;    // explicit ||A x - lambda x|| / |lambda| of each returned pair
  bool converged = false;           // every estimate <= tol (false when max_restarts ran out)
  int restarts = 0;
  int iterations = 0;               // block expansions (operator applications on a block of s vectors)
  long operator_applications = 0;   // vectors the operator was applied to (residual check included)
  long operator_calls = 0;
  int block_size = 0;
  int basis_size = 0;               // m * s
  bool dense = false;               // the problem was too small for the Krylov basis: solved densely
  int chebyshev_degree = 0;         // the filter's degree (0: none was used)
  double filter_lower = 0, filter_upper = 0;  // the interval the filter mapped to [-1, 1]
  EigenTimings timings;
};

namespace Impl {

inline void eigen_check_options(std::int64_t n, const EigenOptions& o) {
  std::ostringstream os;
  if (n <= 0) os << "the operator dimension n = " << n << " must be positive";
  else if (o.nev < 1) os << "k = " << o.nev << " eigenpairs requested; k must be at least 1";
  else if (o.nev > n) os << "k = " << o.nev << " eigenpairs requested but the matrix has only n = " << n << " rows";
  else if (o.block_size < 1) os << "block size " << o.block_size << " must be at least 1";
  else if (!(o.tol > 0) || !std::isfinite(o.tol)) os << "tolerance " << o.tol << " must be positive";
  else if (o.num_blocks < 0) os << "num_blocks = " << o.num_blocks << " must be >= 0 (0 = automatic)";
  else if (o.num_blocks > 0 && o.num_blocks * o.block_size < o.nev + 2 * o.block_size)
    os << "basis of num_blocks * block_size = " << o.num_blocks << " * " << o.block_size << " = "
       << o.num_blocks * o.block_size << " vectors is too small for k = " << o.nev
       << ": it needs at least k + 2 * block_size = " << o.nev + 2 * o.block_size;
  else if (o.max_restarts < 0) os << "max_restarts must be >= 0";
  else if (o.chebyshev_degree != 0 && (o.chebyshev_degree < 3 || o.chebyshev_degree % 2 == 0 || o.chebyshev_degree > 99))
    os << "chebyshev_degree = " << o.chebyshev_degree << " must be 0 (off) or odd, 3 to 99";
  if (!os.str().empty()) throw std::invalid_argument("kbla::eigen: " + os.str());
}

// Positions of ascending values in the wanted order.
template <class Real>
std::vector<int> wanted_order(const std::vector<Real>& ascending, EigenWhich which) {
  std::vector<int> order(ascending.size());
  std::iota(order.begin(), order.end(), 0);
  if (which == EigenWhich::largest) std::reverse(order.begin(), order.end());
  return order;
}

// Thick restart: the Ritz vectors a restart keeps (newly converged and kept unconverged together) when `room`
// columns (active basis less the residual block) hold `wanted` still-unconverged wanted values: the wanted ones plus
// half of the remaining room. Each converged vector is locked and leaves both the room and the wanted count, so
// the sum does not depend on how many converged: it is fixed before the Ritz values are known.
inline int kept_count(int room, int wanted) { return std::min(room, wanted + std::max(0, (room - wanted) / 2)); }

}  // namespace Impl

}  // namespace kbla
