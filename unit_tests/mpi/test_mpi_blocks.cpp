// Distributed kbla::mpi::inner, kbla::update and kbla::ortho against the single-process calls on the whole block:
// every rank builds the same global matrices (same seed), keeps its rows, and compares the distributed result with
// the single-process one computed on the whole block. Row splits: even, uneven, a rank with zero rows.
#include "mpi_test_helpers.hpp"

#include <kbla_mpi.hpp>

using namespace kbla_test;

namespace {

template <class T>
T scalar(double re, double im);
template <>
double scalar<double>(double re, double) {
  return re;
}
template <>
Kokkos::complex<double> scalar<Kokkos::complex<double>>(double re, double im) {
  return Kokkos::complex<double>(re, im);
}

template <class T>
double max_abs_diff(const HostMatrix<T>& a, const HostMatrix<T>& b) {
  double d = 0;
  for (int j = 0; j < a.cols(); ++j)
    for (int i = 0; i < a.rows(); ++i) d = std::max(d, std::sqrt(kbla::dense::abs2(T(a(i, j) - b(i, j)))));
  return d;
}

template <class T>
void inner_case(Split split, int K, int M, int N, bool strided_c) {
  const RowSlice rows = slice(split, K);
  const HostMatrix<T> A = random_matrix<T>(K, M, 11), B = random_matrix<T>(K, N, 12), C0 = random_matrix<T>(M, N, 13);
  const T alpha = scalar<T>(0.7, 0.2), beta = scalar<T>(-0.3, 0.5);
  // Single process, whole block.
  DeviceBlock<T> Cref = to_device(C0);
  kbla::inner(Exec(), alpha, to_device(A), to_device(B), beta, Cref);
  // Distributed: this rank's rows; C replicated (a column block of a wider matrix when strided_c).
  const DeviceBlock<T> Al = to_device(rows_of(A, rows)), Bl = to_device(rows_of(B, rows));
  DeviceBlock<T> wide = to_device(hcat(random_matrix<T>(M, 2, 14), C0));
  const auto C = Kokkos::subview(wide, Kokkos::ALL(), std::make_pair(strided_c ? 2 : 0, strided_c ? 2 + N : N));
  DeviceBlock<T> Cc = to_device(C0);
  kbla::mpi::Reducer reducer(world(), checked());
  if (strided_c)
    kbla::mpi::inner(Exec(), reducer, alpha, Al, Bl, beta, C);
  else
    kbla::mpi::inner(Exec(), reducer, alpha, Al, Bl, beta, Cc);
  const HostMatrix<T> got = strided_c ? to_host(C) : to_host(Cc), want = to_host(Cref);
  EXPECT_LE(max_abs_diff(got, want), 1e-13 * std::sqrt(double(K)) * 4) << split_name(split) << " rows " << rows.count;
  EXPECT_EQ(reducer.stats().allreduces, 1);
  if (strided_c) {  // the columns beside C are untouched
    const HostMatrix<T> w = to_host(wide), left = random_matrix<T>(M, 2, 14);
    for (int j = 0; j < 2; ++j)
      for (int i = 0; i < M; ++i) EXPECT_EQ(kbla::dense::abs2(T(w(i, j) - left(i, j))), 0.0);
  }
}

}  // namespace

TEST(MpiInner, EvenDouble) { inner_case<double>(Split::even, 301, 6, 4, false); }
TEST(MpiInner, UnevenDouble) { inner_case<double>(Split::uneven, 301, 6, 4, false); }
TEST(MpiInner, RankWithZeroRowsDouble) { inner_case<double>(Split::zero_first, 301, 6, 4, false); }
TEST(MpiInner, UnevenComplex) { inner_case<Kokkos::complex<double>>(Split::uneven, 257, 5, 7, false); }
TEST(MpiInner, StridedResultDouble) { inner_case<double>(Split::uneven, 200, 4, 3, true); }
TEST(MpiInner, FewerRowsThanRanks) { inner_case<double>(Split::even, 2, 3, 3, false); }

TEST(MpiInner, RanksThatDisagreeOnSizesThrowEverywhere) {
  const int M = world_size() > 1 && world_rank() == 1 ? 4 : 3;  // rank 1 has one more column (one rank: none)
  const DeviceBlock<double> A("A", 10, M), B("B", 10, 2), C("C", M, 2);
  kbla::mpi::Reducer reducer(world(), checked());
  if (world_size() > 1) {
    try {
      kbla::mpi::inner(Exec(), reducer, 1.0, A, B, 0.0, C);
      ADD_FAILURE() << "no exception";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("disagree on M"), std::string::npos) << e.what();
    }
  }
  // A bad argument on one rank (C of the wrong shape on the last rank) throws on every rank.
  const bool bad = world_rank() == world_size() - 1;
  const DeviceBlock<double> C2("C2", 3, bad ? 5 : 2), A2("A2", 10, 3);
  try {
    kbla::mpi::inner(Exec(), reducer, 1.0, A2, B, 0.0, C2);
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    if (bad)
      EXPECT_NE(msg.find("C is 3 x 5"), std::string::npos) << msg;
    else
      EXPECT_NE(msg.find("another rank"), std::string::npos) << msg;
  }
}

TEST(MpiUpdate, RowsOfTheSingleProcessResult) {
  for (const Split split : {Split::even, Split::uneven, Split::zero_first}) {
    const int K = 233, M = 7, N = 5;
    const RowSlice rows = slice(split, K);
    const HostMatrix<double> A = random_matrix<double>(K, M, 21), C = random_matrix<double>(M, N, 22),
                             B0 = random_matrix<double>(K, N, 23);
    DeviceBlock<double> Bref = to_device(B0);
    kbla::update(Exec(), 0.5, to_device(A), to_device(C), -2.0, Bref);
    DeviceBlock<double> Bl = to_device(rows_of(B0, rows));
    kbla::update(Exec(), 0.5, to_device(rows_of(A, rows)), to_device(C), -2.0, Bl);
    EXPECT_LE(max_abs_diff(to_host(Bl), rows_of(to_host(Bref), rows)), 1e-13) << split_name(split);
  }
}

TEST(MpiReducer, EveryRouteSumsOnTheHostBackend) {
  constexpr bool device_memory = !Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible;
  for (const auto method : {kbla::mpi::ReduceMethod::host_staged, kbla::mpi::ReduceMethod::device_direct,
                            kbla::mpi::ReduceMethod::automatic}) {
    if (method == kbla::mpi::ReduceMethod::device_direct && device_memory && !kbla::mpi::mpi_is_cuda_aware()) {
      // refused with a clear error on an MPI that cannot read device memory
      EXPECT_THROW(kbla::mpi::Reducer(world(), kbla::mpi::ReducerOptions{method, false}), std::invalid_argument);
      continue;
    }
    kbla::mpi::Reducer reducer(world(), kbla::mpi::ReducerOptions{method, false});
    Kokkos::View<Kokkos::complex<double>*, Mem> v("v", 3);
    Kokkos::deep_copy(v, Kokkos::complex<double>(world_rank() + 1, -1));
    reducer.sum_device(Exec(), v.data(), v.extent(0));
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
    const double p = world_size();
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(h(i).real(), p * (p + 1) / 2) << kbla::mpi::name(method);
      EXPECT_EQ(h(i).imag(), -p);
    }
    EXPECT_EQ(reducer.stats().allreduces, 1);
    const kbla::RowRange r = reducer.row_range(world_rank() + 1);  // rank q holds q + 1 rows
    EXPECT_EQ(r.offset, std::int64_t(world_rank()) * (world_rank() + 1) / 2);
    EXPECT_EQ(r.global, std::int64_t(p * (p + 1) / 2));
  }
  if (!kbla::mpi::nccl_available())
    EXPECT_THROW(kbla::mpi::Reducer(world(), kbla::mpi::ReducerOptions{kbla::mpi::ReduceMethod::nccl, false}),
                 std::invalid_argument);
}

// --- kbla::ortho ---

namespace {

template <class T>
struct OrthoRun {
  kbla::OrthoResult<T> result;
  HostMatrix<T> X;  // X_out (this rank's rows for the distributed run)
  long allreduces = 0;
};

template <class T>
OrthoRun<T> ortho_single(const HostMatrix<T>& Q, const HostMatrix<T>& X, const kbla::OrthoOptions& opt, int local) {
  DeviceBlock<T> Qd = to_device(Q), Xd = to_device(X);
  kbla::BlockOrthogonalizer<Exec, T> orth(Exec(), opt);
  OrthoRun<T> r;
  r.result = local > 0 ? orth(Qd, Xd, local) : orth(Qd, Xd);
  r.X = to_host(Xd);
  return r;
}

template <class T>
OrthoRun<T> ortho_distributed(const HostMatrix<T>& Q, const HostMatrix<T>& X, const RowSlice& rows,
                              const kbla::OrthoOptions& opt, int local) {
  DeviceBlock<T> Qd = to_device(rows_of(Q, rows)), Xd = to_device(rows_of(X, rows));
  kbla::mpi::Reducer reducer(world());
  kbla::BlockOrthogonalizer<Exec, T, kbla::mpi::Reducer> orth(Exec(), opt, reducer);
  OrthoRun<T> r;
  r.result = local > 0 ? orth(Qd, Xd, local) : orth(Qd, Xd);
  r.X = to_host(Xd);
  r.allreduces = reducer.stats().allreduces;
  return r;
}

// ||I - X^H X|| of the distributed X_out, from this rank's rows and a sum over the ranks.
template <class T>
double distributed_orthogonality_loss(const HostMatrix<T>& Xl) {
  HostMatrix<T> G = kbla::dense::multiply(Xl, Xl, true);
  MPI_Allreduce(MPI_IN_PLACE, G.data(), int(G.rows() * G.cols() * (sizeof(T) / sizeof(double))), MPI_DOUBLE,
                MPI_SUM, world());
  for (int i = 0; i < G.rows(); ++i) G(i, i) -= T(1);
  return frobenius(G);
}

// up_to_signs: a rank-deficient block's kept directions are singular vectors, each determined up to its sign,
// which rounding picks; then the rows of R and the kept columns of X_out are compared by magnitude.
template <class T>
HostMatrix<double> magnitudes(const HostMatrix<T>& A) {
  HostMatrix<double> M(A.rows(), A.cols());
  for (int j = 0; j < A.cols(); ++j)
    for (int i = 0; i < A.rows(); ++i) M(i, j) = std::sqrt(kbla::dense::abs2(A(i, j)));
  return M;
}

template <class T>
void compare_ortho(const OrthoRun<T>& single, const OrthoRun<T>& dist, const RowSlice& rows, double tol,
                   const char* what, bool up_to_signs = false) {
  EXPECT_EQ(dist.result.rank, single.result.rank) << what;
  EXPECT_EQ(dist.result.rounds, single.result.rounds) << what;
  EXPECT_EQ(dist.result.projections, single.result.projections) << what;
  EXPECT_EQ(dist.result.replaced, single.result.replaced) << what;
  EXPECT_EQ(dist.result.complete, single.result.complete) << what;
  if (up_to_signs) {
    EXPECT_LE(max_abs_diff(magnitudes(dist.result.R), magnitudes(single.result.R)), tol) << what;
    EXPECT_LE(max_abs_diff(magnitudes(dist.X), magnitudes(rows_of(single.X, rows))), tol) << what;
  } else {
    EXPECT_LE(max_abs_diff(dist.result.R, single.result.R), tol) << what;
    EXPECT_LE(max_abs_diff(dist.X, rows_of(single.X, rows)), tol) << what;
  }
  if (single.result.H.rows() > 0) EXPECT_LE(max_abs_diff(dist.result.H, single.result.H), tol) << what;
  EXPECT_LE(distributed_orthogonality_loss(dist.X), 1e-13) << what;
}

template <class T>
void ortho_well_conditioned(Split split) {
  const int K = 400, p = 12, s = 4;
  const RowSlice rows = slice(split, K);
  const HostMatrix<T> Q = orthonormalize(random_matrix<T>(K, p, 31)), X = random_matrix<T>(K, s, 32);
  kbla::OrthoOptions opt;
  const OrthoRun<T> a = ortho_single(Q, X, opt, 0), b = ortho_distributed(Q, X, rows, opt, 0);
  compare_ortho(a, b, rows, 1e-12, split_name(split));
  EXPECT_EQ(b.allreduces, 2 * b.result.rounds);  // per round: the coefficients, then the Gram matrix
  // The Krylov form (local projection first, one-pass test on).
  opt.one_pass_ratio = 0.5;
  const OrthoRun<T> c = ortho_single(Q, X, opt, 2 * s), d = ortho_distributed(Q, X, rows, opt, 2 * s);
  compare_ortho(c, d, rows, 1e-12, "local projection");
  EXPECT_EQ(d.allreduces, 1 + 2 * d.result.rounds);
}

}  // namespace

TEST(MpiOrtho, EvenDouble) { ortho_well_conditioned<double>(Split::even); }
TEST(MpiOrtho, UnevenDouble) { ortho_well_conditioned<double>(Split::uneven); }
TEST(MpiOrtho, RankWithZeroRowsDouble) { ortho_well_conditioned<double>(Split::zero_first); }
TEST(MpiOrtho, UnevenComplex) { ortho_well_conditioned<Kokkos::complex<double>>(Split::uneven); }

// A BCGS2 + CholQR2 pass costs the same number of all-reduces for any number of basis columns.
TEST(MpiOrtho, AllreducesDoNotGrowWithTheBasis) {
  const int K = 500, s = 4;
  std::vector<long> counts;
  for (const int p : {4, 16, 40}) {
    const RowSlice rows = slice(Split::uneven, K);
    const HostMatrix<double> Q = orthonormalize(random_matrix<double>(K, p, 41)), X = random_matrix<double>(K, s, 42);
    const OrthoRun<double> r = ortho_distributed(Q, X, rows, kbla::OrthoOptions(), 0);
    EXPECT_EQ(r.result.rounds, 2) << "p = " << p;
    counts.push_back(r.allreduces);
  }
  EXPECT_EQ(counts, std::vector<long>(3, 4));
}

TEST(MpiOrtho, RankDeficientBlock) {
  for (const Split split : {Split::uneven, Split::zero_first}) {
    const int K = 300, p = 8, s = 5;
    const RowSlice rows = slice(split, K);
    const HostMatrix<double> Q = orthonormalize(random_matrix<double>(K, p, 51));
    HostMatrix<double> X = random_matrix<double>(K, s, 52);
    for (int i = 0; i < K; ++i) {  // column 3 = column 0 - 2 column 1; column 4 inside span(Q)
      X(i, 3) = X(i, 0) - 2 * X(i, 1);
      X(i, 4) = Q(i, 2) + 0.5 * Q(i, 5);
    }
    const OrthoRun<double> a = ortho_single(Q, X, kbla::OrthoOptions(), 0),
                           b = ortho_distributed(Q, X, rows, kbla::OrthoOptions(), 0);
    EXPECT_EQ(a.result.rank, 3);
    EXPECT_EQ(a.result.replaced, 2);
    // Rank decisions from summed quantities, replacement vectors from the global row: the single-process result.
    compare_ortho(a, b, rows, 1e-9, split_name(split), true);
  }
}
