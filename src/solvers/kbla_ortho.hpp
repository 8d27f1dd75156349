// kbla::ortho: block Gram-Schmidt of a K x s block X against an orthonormal K x p basis Q, then an
// orthonormalisation of X itself, built only on the public calls kbla::inner / kbla::update (the memory-bound
// part that the library accelerates) plus s x s host work.
//
//   X_in = Q H + X_out R,   Q^H X_out = 0,   X_out^H X_out = I   (R upper triangular when X_in has full rank)
//
// Algorithm (each "round" is one block classical Gram-Schmidt pass followed by one Cholesky QR):
//   C = Q^H X (kbla::inner), X <- X - Q C (kbla::update); G = X^H X (kbla::inner); G = R_r^H R_r on the host;
//   X <- X R_r^{-1} (kbla::update_in_place).
// Two rounds are BCGS2 + CholQR2: enough for a well-conditioned block (loss of orthogonality O(eps)). When a
// Cholesky fails or its pivots say the block is ill-conditioned (min R_jj^2 / G_jj < 1e-10), that round uses a
// shifted Cholesky (G + sigma I, sigma = 11 (K s + s(s+1)) eps tr(G), Fukaya et al. 2020) and rounds continue until
// a round starts from a Gram matrix within 1e-2 of I: shifted CholQR3 for condition numbers up to ~1e15.
// The numerical rank comes from the singular values of the accumulated R (one-sided Jacobi on the host): singular
// values <= rank_tol * (largest column norm of X_in) are dependent directions. With replace_dependent, those
// directions are replaced by random vectors, and the block is orthogonalised again against Q (R then has zero
// rows beyond the rank and is no longer triangular).
// Distributed (row-distributed Q and X, a reducer from mpi/kbla_reducer.hpp, e.g. kbla::mpi::Reducer): each
// round's projection coefficients C (all of Q at once) are summed over the ranks before X -= Q C, and G = X^H X
// after it, so a round costs two all-reduces and a BCGS2 + CholQR2 pass four, whatever the number of columns of
// Q (plus one for the local projection of the Krylov form). Every decision (Cholesky shift, rounds, rank) is
// taken from summed quantities, so all ranks take the same path; random replacement vectors are a function of
// the global row index, the same as in a single-process run.
#pragma once

#include <kbla_inner.hpp>
#include <kbla_update.hpp>
#include <mpi/kbla_reducer.hpp>
#include <solvers/kbla_dense_host.hpp>
#include <solvers/kbla_random.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbla {

namespace Impl {
// fill_random for the rows [row_offset, row_offset + X.extent(0)) of a row-distributed block: the same values
// as fill_random gives those rows of the whole block (row_offset = 0 is fill_random itself).
template <class ExecSpace, class XView>
void fill_random_rows(const ExecSpace& exec, const XView& X, std::uint64_t seed, std::int64_t row_offset) {
  using Scalar = typename XView::non_const_value_type;
  const std::int64_t rows = X.extent(0), cols = X.extent(1);
  if (rows == 0 || cols == 0) return;
  const std::uint64_t s = splitmix64(seed);
  Kokkos::parallel_for(
      "kbla::fill_random_rows", Kokkos::RangePolicy<ExecSpace>(exec, 0, rows), KOKKOS_LAMBDA(const std::int64_t i) {
        const std::uint64_t row = std::uint64_t(i + row_offset);
        for (std::int64_t j = 0; j < cols; ++j) {
          const std::uint64_t key = s ^ splitmix64(row * 0x100000001b3ULL + std::uint64_t(j));
          X(i, j) = RandomValue<Scalar>::get(key);
        }
      });
}
}  // namespace Impl

struct OrthoOptions {
  // A direction of X_in orthogonal to Q is dependent when its singular value is <= rank_tol times the largest
  // column norm of X_in (Q part included): ~1e3 eps, so a block with condition number 1e12 keeps full rank.
  double rank_tol = 1e-13;
  int max_rounds = 8;              // projection + CholQR rounds (2 for well-conditioned blocks)
  bool replace_dependent = true;   // replace dependent directions by random vectors orthogonalised again
  std::uint64_t seed = 0x6b626c61; // for the random replacement vectors
  // One projection when it is provably enough (0 = off: always BCGS2). After the first projection
  // X_1 = X_in - Q C, when sigma_min(X_1) >= one_pass_ratio * ||X_in||_2 the rounding errors of that projection,
  // ~eps ||X_in|| along Q, grow by at most 1 / one_pass_ratio when X_1 is normalised (the block form of the
  // Daniel-Gragg-Kaufman-Stewart "twice is enough" test, 1/sqrt(2) in ARPACK), so the second projection (which
  // reads Q twice more) is skipped. The test also bounds cond(X_1) <= 1 / one_pass_ratio; for ratios >= 0.25
  // (cond <= 4) one Cholesky QR is then orthonormal to ~16 eps and the whole second round is skipped. Blocks
  // that lose most of their norm to Q, or are ill-conditioned, fail the test and get BCGS2 + CholQR2 as before. kbla::eigen turns it on after its local projection
  // (see the three-argument operator()); the one-shot kbla::ortho keeps it off unless asked.
  double one_pass_ratio = 0;
};

// H and R live on the host as kbla::dense::Matrix (solvers/kbla_dense_host.hpp): column-major, element (i, j) by
// operator()(int i, int j), rows() / cols() / data(); kbla::dense::host_view(r.R) gives an unmanaged LayoutLeft
// Kokkos host View over the same memory (deep_copy it to a device View of the same shape for device use).
template <class Scalar>
struct OrthoResult {
  int rank = 0;           // numerical rank of the part of X_in orthogonal to Q, 0..s
  int rounds = 0;         // projection + CholQR rounds run (2 for a well-conditioned block)
  bool shifted = false;   // a shifted Cholesky was needed (ill-conditioned or rank-deficient block)
  int replaced = 0;       // directions replaced by random vectors (s - rank when replace_dependent)
  int projections = 0;    // projections against Q run (rounds that read Q; 1 when one_pass_ratio allowed it)
  bool complete = true;   // X_out has s orthonormal columns (false only when K < p + s leaves no room)
  dense::Matrix<Scalar> H;  // p x s: X_in = Q H + X_out R
  dense::Matrix<Scalar> R;  // s x s
};

// Reusable orthogonaliser: keeps its small device and host buffers between calls (allocation-free after the
// first call of a given size) and counts the memory traffic of the tall & skinny calls it makes. With a
// distributed Reducer, Q and X hold this rank's rows and every rank calls with the same p and s (collective).
template <class ExecSpace, class Scalar, class Reducer = LocalReducer>
class BlockOrthogonalizer {
 public:
  using execution_space = ExecSpace;
  using memory_space = typename ExecSpace::memory_space;
  using Mag = dense::mag_t<Scalar>;
  using BlockView = Kokkos::View<Scalar**, Kokkos::LayoutStride, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using ConstBlockView =
      Kokkos::View<const Scalar**, Kokkos::LayoutStride, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using SmallView = Kokkos::View<Scalar**, Kokkos::LayoutLeft, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using HostSmallView =
      Kokkos::View<Scalar**, Kokkos::LayoutLeft, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using LocalHook = std::function<void(const dense::Matrix<Scalar>& local_coefficients)>;

  explicit BlockOrthogonalizer(const ExecSpace& exec = ExecSpace(), const OrthoOptions& options = OrthoOptions())
      : exec_(exec), options_(options) {}
  BlockOrthogonalizer(const ExecSpace& exec, const OrthoOptions& options, const Reducer& reducer)
      : exec_(exec), options_(options), reducer_(reducer) {}

  const OrthoOptions& options() const { return options_; }
  const Reducer& reducer() const { return reducer_; }
  // Minimum memory traffic (bytes) of the inner / update calls made so far: each K-row operand read or written
  // once. Divided by the time spent, it is the achieved bandwidth of the orthogonalisation.
  double bytes_moved() const { return bytes_; }
  void reset_bytes() { bytes_ = 0; }

  // Orthogonalise X (K x s, overwritten with X_out) against Q (K x p, orthonormal columns; p may be 0).
  template <class QView, class XView>
  const OrthoResult<Scalar>& operator()(const QView& Q, const XView& X) {
    static_assert(Kokkos::is_view<QView>::value && Kokkos::is_view<XView>::value, "kbla::ortho: Q, X must be Views");
    static_assert(int(QView::rank) == 2 && int(XView::rank) == 2, "kbla::ortho: Q and X must be rank-2 Views");
    static_assert(std::is_same<typename XView::non_const_value_type, Scalar>::value &&
                      std::is_same<typename QView::non_const_value_type, Scalar>::value,
                  "kbla::ortho: Q and X must hold the orthogonaliser's scalar type");
    constexpr const char* call = "kbla::ortho";
    Impl::require_accessible<ExecSpace>(call, "Q", Q);
    Impl::require_accessible<ExecSpace>(call, "X", X);
    if (Q.extent(1) > 0 && Q.extent(0) != X.extent(0)) {
      Impl::throw_invalid(std::string(call) + ": Q is " + Impl::shape_of(Q) + " and X is " + Impl::shape_of(X) +
                          "; they must have the same number of rows (K)");
    }
    Impl::require_no_overlap(call, "X", X, "Q", Q);
    Bases bases;
    if (Q.extent(1) > 0) bases.add(ConstBlockView(Q));
    run(bases, BlockView(X), result_, 0, 0);
    return result_;
  }

  // Krylov form: the last `local` columns of Q carry almost all of X's component along Q (a block Lanczos step
  // X = A Q_last: in exact arithmetic X lies in span(Q_prev, Q_last, X_out)). X is first projected once against
  // those columns only (reading 2 local columns of Q instead of 2 p), then orthogonalised against all of Q as
  // above; with one_pass_ratio > 0 the full projection then normally runs once (what is left along Q is rounding
  // error), which halves the traffic of the p-column part. H includes the local coefficients.
  template <class QView, class XView>
  const OrthoResult<Scalar>& operator()(const QView& Q, const XView& X, int local) {
    return (*this)(Q, X, local, LocalHook());
  }

  // The same, and `local_ready` is called with the local projection's coefficients (local x s, on the host, summed
  // over the ranks) as soon as they are known, before the rest of the step is queued on the device: kbla::eigen
  // starts its Rayleigh-Ritz step's dense eigenproblem there, on another host thread, while the device finishes
  // the step. Costs one more synchronisation (the coefficients' transfer); `local_ready` may be empty.
  template <class QView, class XView>
  const OrthoResult<Scalar>& operator()(const QView& Q, const XView& X, int local, const LocalHook& local_ready) {
    if (local < 0 || local > int(Q.extent(1)))
      Impl::throw_invalid("kbla::ortho: local = " + std::to_string(local) + " must be in [0, " +
                          std::to_string(Q.extent(1)) + "] (the trailing columns of Q)");
    if (local == 0) return (*this)(Q, X);
    static_assert(Kokkos::is_view<QView>::value && Kokkos::is_view<XView>::value, "kbla::ortho: Q, X must be Views");
    constexpr const char* call = "kbla::ortho";
    Impl::require_accessible<ExecSpace>(call, "Q", Q);
    Impl::require_accessible<ExecSpace>(call, "X", X);
    if (Q.extent(0) != X.extent(0)) {
      Impl::throw_invalid(std::string(call) + ": Q is " + Impl::shape_of(Q) + " and X is " + Impl::shape_of(X) +
                          "; they must have the same number of rows (K)");
    }
    Impl::require_no_overlap(call, "X", X, "Q", Q);
    Bases bases;
    bases.add(ConstBlockView(Q));
    run(bases, BlockView(X), result_, 0, local, local_ready);
    return result_;
  }

 private:
  struct Bases {
    ConstBlockView v[3];
    int count = 0;
    void add(const ConstBlockView& b) {
      if (count == 3) throw std::logic_error("kbla::ortho: too many bases");
      v[count++] = b;
    }
    int total_cols() const {
      int p = 0;
      for (int i = 0; i < count; ++i) p += int(v[i].extent(1));
      return p;
    }
  };

  SmallView device_small(int rows, int cols, int slot) {
    const std::size_t need = std::size_t(rows) * std::size_t(cols);
    if (slot_size_ < need || !ws_.data()) {
      slot_size_ = std::max(need, 2 * slot_size_);
      ws_ = Kokkos::View<Scalar*, memory_space>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kbla::ortho ws"),
                                                3 * slot_size_);
    }
    return SmallView(ws_.data() + slot * slot_size_, rows, cols);
  }

  void to_device(const dense::Matrix<Scalar>& h, const SmallView& d) {
    if (h.rows() * h.cols() == 0) return;
    Kokkos::deep_copy(d, HostSmallView(const_cast<Scalar*>(h.data()), h.rows(), h.cols()));
  }

  void rotate(const BlockView& X, const dense::Matrix<Scalar>& C) {  // X <- X C (C square)
    const SmallView Cd = device_small(C.rows(), C.cols(), 1);
    to_device(C, Cd);
    kbla::update_in_place(exec_, Scalar(1), X, Cd);
    bytes_ += 2.0 * double(X.extent(0)) * double(X.extent(1)) * sizeof(Scalar);
  }

  // `local` > 0: one projection against the last `local` columns of the (single) basis before the rounds.
  void run(const Bases& bases, const BlockView& X, OrthoResult<Scalar>& res, int depth, int local,
           const LocalHook& local_ready = LocalHook()) {
    const std::int64_t K = X.extent(0);
    const int s = int(X.extent(1));
    const int p = bases.total_cols();
    std::int64_t global_rows = K;  // distributed: summed with the first Gram matrix
    const Scalar one(1), zero(0);
    const Mag eps = std::numeric_limits<Mag>::epsilon();
    res.H.resize(p, s);
    res.R = dense::Matrix<Scalar>::identity(s);
    res.rounds = 0;
    res.shifted = false;
    res.replaced = 0;
    res.complete = true;
    res.rank = 0;
    res.projections = 0;
    if (s == 0) return;
    if (K == 0 && !Reducer::distributed) {  // distributed: a rank without rows still takes part in the sums
      res.complete = false;
      return;
    }

    // The local projection's coefficients go behind round 0's (p + s) x s block, so that round's single
    // transfer brings them to the host too. Reserve the whole slot now (device_small may reallocate).
    const int l = local;
    Scalar* const coeffs0 = device_small(p + s + l, s, 0).data();
    if (l > 0) {
      const ConstBlockView& Q = bases.v[bases.count - 1];
      const int pq = int(Q.extent(1));
      const ConstBlockView Ql = Kokkos::subview(Q, Kokkos::ALL(), std::make_pair(pq - l, pq));
      const SmallView Cl(coeffs0 + std::size_t(p + s) * s, l, s);
      kbla::inner(exec_, one, Ql, ConstBlockView(X), zero, Cl);
      reducer_.sum_device(exec_, Cl.data(), std::size_t(l) * s);
      if (local_ready) {
        dense::Matrix<Scalar> local_coefficients(l, s);
        Kokkos::deep_copy(HostSmallView(local_coefficients.data(), l, s), Cl);
        local_ready(local_coefficients);
      }
      kbla::update(exec_, -one, Ql, Cl, one, X);
      bytes_ += double(K) * (2.0 * l + 3.0 * s) * sizeof(Scalar);
    }

    std::vector<Mag> colnorm2(s, Mag(0));
    dense::Matrix<Scalar> C, G, Rr, CC;
    Mag xnorm = 0;
    bool zero_block = false;
    bool project = true;  // false once one projection was enough (one_pass_ratio)
    for (int round = 0; round < std::max(1, options_.max_rounds); ++round) {
      // Device coefficients of this round, one column-major block after the other: C_b = Q_b^H X for each basis,
      // then G = X^H X; one transfer brings them all to the host (one synchronisation per round).
      // Classical Gram-Schmidt over the bases: all coefficients first (one sum over the ranks), then the updates.
      Scalar* const coeffs = device_small(p + s, s, 0).data();
      int row0 = 0;
      for (int b = 0; b < bases.count && project; ++b) {
        const ConstBlockView& Q = bases.v[b];
        const int pb = int(Q.extent(1));
        if (pb == 0) continue;
        kbla::inner(exec_, one, Q, ConstBlockView(X), zero, SmallView(coeffs + std::size_t(row0) * s, pb, s));
        row0 += pb;
      }
      if (project && p > 0) reducer_.sum_device(exec_, coeffs, std::size_t(p) * s);
      row0 = 0;
      for (int b = 0; b < bases.count && project; ++b) {
        const ConstBlockView& Q = bases.v[b];
        const int pb = int(Q.extent(1));
        if (pb == 0) continue;
        kbla::update(exec_, -one, Q, SmallView(coeffs + std::size_t(row0) * s, pb, s), one, X);
        bytes_ += double(K) * (2.0 * pb + 3.0 * s) * sizeof(Scalar);
        row0 += pb;
      }
      if (project && p > 0) ++res.projections;
      const SmallView Gd(coeffs + std::size_t(p) * s, s, s);
      kbla::inner(exec_, one, ConstBlockView(X), ConstBlockView(X), zero, Gd);
      bytes_ += double(K) * s * sizeof(Scalar);
      const int extra = round == 0 ? l : 0;
      host_coeffs_.resize(std::size_t(p + s + extra) * s);
      Kokkos::deep_copy(
          Kokkos::View<Scalar*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(host_coeffs_.data(),
                                                                                             host_coeffs_.size()),
          Kokkos::View<Scalar*, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(coeffs, host_coeffs_.size()));
      if (Reducer::distributed) {
        // G and the local row count in one sum (the global K sets the Cholesky shift below); the coefficients
        // in front of G were summed on the device before the update.
        gram_.assign(host_coeffs_.begin() + std::size_t(p) * s, host_coeffs_.begin() + std::size_t(p + s) * s);
        gram_.push_back(Scalar(Mag(K)));
        reducer_.sum_host(gram_.data(), gram_.size());
        std::copy(gram_.begin(), gram_.begin() + std::size_t(s) * s, host_coeffs_.begin() + std::size_t(p) * s);
        global_rows = std::int64_t(dense::real(gram_.back()) + Mag(0.5));
        if (global_rows == 0) {  // no rows anywhere: nothing to orthogonalise into
          res.complete = false;
          return;
        }
      }
      if (extra > 0) {  // local coefficients (R = I so far): H's last l rows; they count in ||X_in||
        for (int j = 0; j < s; ++j)
          for (int i = 0; i < l; ++i) {
            const Scalar c = host_coeffs_[std::size_t(p + s) * s + std::size_t(j) * l + i];
            res.H(p - l + i, j) += c;
            colnorm2[j] += dense::abs2(c);
          }
      }
      if (round == 0 && options_.one_pass_ratio > 0 && p > 0) CC = dense::Matrix<Scalar>(s, s);
      row0 = 0;
      for (int b = 0; b < bases.count && project; ++b) {
        const int pb = int(bases.v[b].extent(1));
        if (pb == 0) continue;
        C.resize(pb, s);
        std::copy(host_coeffs_.begin() + std::size_t(row0) * s, host_coeffs_.begin() + std::size_t(row0 + pb) * s,
                  C.data());
        if (round == 0)
          for (int j = 0; j < s; ++j)
            for (int i = 0; i < pb; ++i) colnorm2[j] += dense::abs2(C(i, j));
        if (CC.rows() == s) {  // C^H C of round 0: X_in^H X_in = C^H C + G (after the local projection)
          const dense::Matrix<Scalar> CtC = dense::multiply(C, C, true);
          for (int j = 0; j < s; ++j)
            for (int i = 0; i < s; ++i) CC(i, j) += CtC(i, j);
        }
        const dense::Matrix<Scalar> CR = dense::multiply(C, res.R);
        for (int j = 0; j < s; ++j)
          for (int i = 0; i < pb; ++i) res.H(row0 + i, j) += CR(i, j);
        row0 += pb;
      }
      G.resize(s, s);
      std::copy(host_coeffs_.begin() + std::size_t(p) * s, host_coeffs_.begin() + std::size_t(p + s) * s, G.data());
      Mag trace = 0;
      for (int j = 0; j < s; ++j) trace += dense::real(G(j, j));
      if (round == 0) {
        for (int j = 0; j < s; ++j) colnorm2[j] += dense::real(G(j, j));
        xnorm = std::sqrt(*std::max_element(colnorm2.begin(), colnorm2.end()));
        if (!(trace > Mag(0))) {  // nothing left of X outside span(Q)
          zero_block = true;
          break;
        }
      }
      const bool nearly_orthonormal = dense::distance_from_identity(G) <= Mag(1e-2);
      bool done = nearly_orthonormal && (round >= 1 || p == 0);
      dense::CholeskyInfo info = dense::cholesky_upper(G, Rr);
      if (!info.ok || info.min_pivot_ratio < 1e-10) {
        Mag shift = Mag(11) * (Mag(global_rows) * s + Mag(s) * (s + 1)) * eps * trace;
        for (int attempt = 0; attempt < 40; ++attempt, shift *= Mag(10)) {
          info = dense::cholesky_upper(G, Rr, shift);
          if (info.ok) break;
        }
        if (!info.ok) throw std::runtime_error("kbla::ortho: shifted Cholesky failed (NaN or Inf in the block?)");
        res.shifted = true;
        done = false;
      } else if (CC.rows() == s && round == 0 && !zero_block) {
        // One projection enough? sigma_min(X_1)^2 = lambda_min(G) >= ratio^2 lambda_max(C^H C + G) = ratio^2 ||X_in||^2.
        std::vector<Mag> wg, wx;
        dense::Matrix<Scalar> Z, Gs(s, s), Xs(s, s);
        for (int j = 0; j < s; ++j)
          for (int i = 0; i < s; ++i) {
            Gs(i, j) = (G(i, j) + dense::conj(G(j, i))) / Scalar(2);
            Xs(i, j) = Gs(i, j) + (CC(i, j) + dense::conj(CC(j, i))) / Scalar(2);
          }
        dense::hermitian_eigen(Gs, wg, Z);
        dense::hermitian_eigen(Xs, wx, Z);
        const Mag r = Mag(options_.one_pass_ratio);
        // One projection was enough; then cond(X_1) <= ||X_in|| / sigma_min(X_1) <= 1 / ratio as well, and for
        // cond <= 4 one Cholesky QR leaves X_out orthonormal to ~16 eps: CholQR2's second round is skipped too.
        if (wg.front() >= r * r * wx.back()) {
          project = false;
          if (r >= Mag(0.25)) done = true;
        }
      }
      rotate(X, dense::inverse_upper(Rr));
      res.R = dense::multiply(Rr, res.R);
      ++res.rounds;
      if (done) break;
    }

    // Numerical rank from the singular values of the accumulated R.
    std::vector<Mag> sigma;
    dense::Matrix<Scalar> U;
    int r = 0;
    if (!zero_block) {
      dense::singular_values_left(res.R, sigma, U);
      const Mag threshold = Mag(options_.rank_tol) * xnorm;
      while (r < s && sigma[r] > threshold) ++r;
    }
    res.rank = r;
    if (r == s) return;

    // Rank deficient: keep the r significant directions, replace the others.
    if (zero_block) {
      res.R.set_zero();
    } else {
      rotate(X, U);  // X <- X U, so X_in = Q H + X (U^H R)
      dense::Matrix<Scalar> R2 = dense::multiply(U, res.R, true);
      for (int i = r; i < s; ++i)
        for (int j = 0; j < s; ++j) R2(i, j) = Scalar(0);
      res.R = R2;
    }
    const auto Z = Kokkos::subview(X, Kokkos::ALL(), std::make_pair(r, s));
    if (!options_.replace_dependent || depth >= 2) {
      fill_zero(exec_, Z);
      exec_.fence();
      res.complete = false;
      return;
    }
    const std::uint64_t seed = options_.seed + 0x9e3779b97f4a7c15ULL * (++replacements_);
    if (Reducer::distributed)  // the values of a single-process run: a function of the global row
      Impl::fill_random_rows(exec_, Z, seed, reducer_.row_range(K).offset);
    else
      fill_random(exec_, Z, seed);
    res.replaced = s - r;
    // Orthonormalise the whole block again (the kept columns are already orthonormal, the new ones random):
    // X = Q H2 + X_out R_2, so X_in = Q (H + H2 R) + X_out (R_2 R); rows beyond r of R_2 R stay zero.
    OrthoResult<Scalar> sub;
    run(bases, X, sub, depth + 1, 0);
    for (int j = 0; j < s; ++j)
      for (int i = 0; i < p; ++i) {
        Scalar h(0);
        for (int l = 0; l < s; ++l) h += sub.H(i, l) * res.R(l, j);
        res.H(i, j) += h;
      }
    res.R = dense::multiply(sub.R, res.R);
    res.rounds += sub.rounds;
    res.projections += sub.projections;
    res.shifted = res.shifted || sub.shifted;
    res.complete = sub.complete && sub.rank == s;
  }

  ExecSpace exec_;
  OrthoOptions options_;
  Reducer reducer_;
  OrthoResult<Scalar> result_;
  Kokkos::View<Scalar*, memory_space> ws_;
  std::vector<Scalar> host_coeffs_;
  std::vector<Scalar> gram_;  // distributed: G and the row count, summed over the ranks
  std::size_t slot_size_ = 0;
  double bytes_ = 0;
  std::uint64_t replacements_ = 0;
};

// One-shot form: orthogonalise X (overwritten) against the orthonormal columns of Q; returns rank, R and H with
// X_in = Q H + X_out R. For repeated calls keep a BlockOrthogonalizer (it reuses its buffers).
template <class ExecSpace, class QView, class XView,
          class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
OrthoResult<typename XView::non_const_value_type> ortho(const ExecSpace& exec, const QView& Q, const XView& X,
                                                        const OrthoOptions& options = OrthoOptions()) {
  BlockOrthogonalizer<ExecSpace, typename XView::non_const_value_type> orthogonalizer(exec, options);
  return orthogonalizer(Q, X);
}

// Distributed form: Q and X hold this rank's rows, `reducer` sums over the ranks (e.g. kbla::mpi::Reducer from
// <kbla_mpi.hpp>); H, R, rank and the other results are the global ones, the same on every rank. Collective.
template <class ExecSpace, class QView, class XView, class Reducer,
          class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
OrthoResult<typename XView::non_const_value_type> ortho(const ExecSpace& exec, const QView& Q, const XView& X,
                                                        const OrthoOptions& options, const Reducer& reducer) {
  BlockOrthogonalizer<ExecSpace, typename XView::non_const_value_type, Reducer> orthogonalizer(exec, options,
                                                                                                reducer);
  return orthogonalizer(Q, X);
}

}  // namespace kbla
