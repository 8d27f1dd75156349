// kbla::mpi::Reducer: the reducer (mpi/kbla_reducer.hpp) over an MPI communicator. Sums the small results of
// block inner products over the ranks in one collective call each, by one of three routes:
//   host_staged    copy to the host, MPI_Allreduce there, copy back. Works with any MPI; the default, because
//                  the payloads are small (s x s to p x s scalars), where latency, not bandwidth, decides.
//   device_direct  MPI_Allreduce on the device buffer: needs an MPI that reads device memory (CUDA-aware).
//   nccl           ncclAllReduce on the execution space's CUDA stream: no fence, no host copy. Only in builds
//                  configured with -DKBLA_ENABLE_NCCL=ON on a CUDA Kokkos.
// On host memory spaces (Serial, OpenMP) all three are one MPI_Allreduce on the data in place.
// ReduceMethod::measured times the routes this build and this MPI offer when the reducer is made, and keeps the
// fastest (the slowest rank's time counts, so every rank keeps the same).
#pragma once

#include <impl/kbla_arith_traits.hpp>
#include <mpi/kbla_mpi_fastest.hpp>
#include <mpi/kbla_mpi_node.hpp>
#include <mpi/kbla_reducer.hpp>

#include <Kokkos_Core.hpp>
#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>  // Open MPI's MPIX_Query_cuda_support
#endif
#if defined(KBLA_ENABLE_NCCL) && KBLA_ENABLE_NCCL && defined(KOKKOS_ENABLE_CUDA)
#include <nccl.h>
#define KBLA_MPI_HAS_NCCL 1
#else
#define KBLA_MPI_HAS_NCCL 0
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace kbla {
namespace mpi {

enum class ReduceMethod {
  host_staged,    // copy to the host, MPI_Allreduce, copy back (any MPI; the default)
  device_direct,  // MPI_Allreduce on device memory (CUDA-aware MPI)
  automatic,      // device_direct when MPI says it is CUDA-aware, host_staged otherwise
  nccl,           // ncclAllReduce on the CUDA stream (KBLA_ENABLE_NCCL builds)
  measured,       // the fastest of the routes above that this build and MPI offer, timed at construction
};

inline const char* name(ReduceMethod m) {
  switch (m) {
    case ReduceMethod::host_staged: return "host_staged";
    case ReduceMethod::device_direct: return "device_direct";
    case ReduceMethod::automatic: return "automatic";
    case ReduceMethod::nccl: return "nccl";
    case ReduceMethod::measured: return "measured";
  }
  return "unknown";
}

struct ReducerOptions {
  ReduceMethod method = ReduceMethod::host_staged;
  // kbla::mpi::inner checks that every rank passed the same M and N and valid arguments (one more small
  // all-reduce per call); without it a rank with other sizes makes MPI fail or hang. A debugging aid.
  bool check_shapes = false;
  // ReduceMethod::measured times the sums the eigen-solver makes: a Gram matrix (measure_block_size^2 + 1
  // doubles) and the projection coefficients against a basis of measure_basis_blocks blocks
  // (measure_basis_blocks * measure_block_size^2 doubles), measure_repetitions times each per route (the median
  // counts). Set them to the solver's block size and basis blocks.
  int measure_block_size = 8;
  int measure_basis_blocks = 10;
  int measure_repetitions = 5;
};

// One route's time under ReduceMethod::measured: the median of the slowest rank, per payload.
struct RouteTiming {
  ReduceMethod method = ReduceMethod::host_staged;
  double gram_seconds = 0;          // measure_block_size^2 + 1 doubles
  double coefficients_seconds = 0;  // measure_basis_blocks * measure_block_size^2 doubles
  double total() const { return gram_seconds + coefficients_seconds; }
};

// Whether MPI says it can read CUDA device memory. Open MPI answers at run time (MPIX_Query_cuda_support);
// an MPI that cannot say counts as not CUDA-aware.
inline bool mpi_is_cuda_aware() {
#if defined(OMPI_HAVE_MPI_EXT_CUDA) && OMPI_HAVE_MPI_EXT_CUDA
  return MPIX_Query_cuda_support() == 1;
#elif defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return true;
#else
  return false;
#endif
}

inline bool nccl_available() { return KBLA_MPI_HAS_NCCL == 1; }

namespace Impl {

template <class Real>
MPI_Datatype real_datatype();
template <>
inline MPI_Datatype real_datatype<float>() { return MPI_FLOAT; }
template <>
inline MPI_Datatype real_datatype<double>() { return MPI_DOUBLE; }

// A scalar as the reals it is made of (complex: two), which MPI and NCCL sum componentwise.
template <class Scalar>
struct RealParts {
  using Real = typename kbla::Impl::ArithTraits<Scalar>::mag_type;
  static_assert(sizeof(Scalar) % sizeof(Real) == 0, "kbla::mpi: a scalar must be made of whole reals");
  static constexpr std::size_t per_scalar = sizeof(Scalar) / sizeof(Real);
};

inline void check_mpi(int code, const char* what) {
  if (code != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(code, text, &len);
    throw std::runtime_error(std::string("kbla::mpi: ") + what + " failed: " + std::string(text, std::size_t(len)));
  }
}

}  // namespace Impl

class Reducer {
 public:
  static constexpr bool distributed = true;

  // The communicator is used as it is (not duplicated): it must outlive the reducer's use. Collective calls
  // only, so they do not mix with the application's point-to-point messages. ReduceMethod::measured times the
  // routes here, on Kokkos::DefaultExecutionSpace's memory (Kokkos must be initialized).
  explicit Reducer(MPI_Comm comm, const ReducerOptions& options = ReducerOptions())
      : state_(std::make_shared<State>()) {
    state_->comm = comm;
    MPI_Comm_rank(comm, &state_->rank);
    MPI_Comm_size(comm, &state_->size);
    state_->options = options;
    if (options.method == ReduceMethod::measured) {
      check_measure_options(options);
      measure_routes<Kokkos::DefaultExecutionSpace>();
      return;
    }
    state_->method = resolve(options.method);
#if KBLA_MPI_HAS_NCCL
    if (state_->method == ReduceMethod::nccl) {
      if (!every_rank_has_its_own_gpu(comm))
        throw std::invalid_argument(
            "kbla::mpi::Reducer: ReduceMethod::nccl needs a GPU of its own for each of the " +
            std::to_string(state_->size) + " ranks (NCCL cannot put two ranks of one communicator on one GPU); "
            "use host_staged, or measured, which leaves NCCL out then");
      state_->init_nccl();
    }
#endif
  }

  int rank() const { return state_->rank; }
  int size() const { return state_->size; }
  MPI_Comm comm() const { return state_->comm; }
  const ReducerOptions& options() const { return state_->options; }
  // The route used for device memory (automatic and measured resolved).
  ReduceMethod method() const { return state_->method; }
  // Under ReduceMethod::measured: every route that was timed, in the order tried (host_staged first); the same
  // numbers on every rank. Empty for the other methods.
  const std::vector<RouteTiming>& measured_routes() const { return state_->measured; }
  // Copies share the statistics (the solvers take the reducer by value).
  ReductionStats stats() const { return state_->stats; }
  void reset_stats() const { state_->stats = ReductionStats(); }

  template <class ExecSpace, class Scalar>
  void sum_device(const ExecSpace& exec, Scalar* data, std::size_t count) const {
    if (count == 0) return;
    Kokkos::Timer timer;
    using memory_space = typename ExecSpace::memory_space;
    constexpr bool host_memory = Kokkos::SpaceAccessibility<Kokkos::HostSpace, memory_space>::accessible;
    State& st = *state_;
    if (host_memory || st.method == ReduceMethod::device_direct) {
      exec.fence();
      allreduce(data, count);
    } else if (st.method == ReduceMethod::nccl && nccl_sum(exec, data, count)) {
      // queued on exec's stream; later work on exec (and the host after a fence) sees the sum
    } else {
      using HostView = Kokkos::View<Scalar*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
      using DeviceView = Kokkos::View<Scalar*, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
      const HostView h(st.staging<Scalar>(count), count);
      const DeviceView d(data, count);
      exec.fence();
      Kokkos::deep_copy(h, d);  // fences everything: an earlier call's copy back is done before h is reused
      allreduce(h.data(), count);
      Kokkos::deep_copy(exec, d, h);  // queued on exec, ahead of the work that reads the sum
    }
    record(timer.seconds(), count * sizeof(Scalar));
  }

  template <class Scalar>
  void sum_host(Scalar* data, std::size_t count) const {
    if (count == 0) return;
    Kokkos::Timer timer;
    allreduce(data, count);
    record(timer.seconds(), count * sizeof(Scalar));
  }

  // One MPI_Allgather of the local row counts (setup; not counted in stats()).
  RowRange row_range(std::int64_t local_rows) const {
    std::vector<std::int64_t> rows(static_cast<std::size_t>(size()), 0);
    const std::int64_t mine = local_rows;
    Impl::check_mpi(MPI_Allgather(&mine, 1, MPI_INT64_T, rows.data(), 1, MPI_INT64_T, comm()), "MPI_Allgather");
    RowRange r;
    for (int q = 0; q < size(); ++q) {
      if (q < rank()) r.offset += rows[std::size_t(q)];
      r.global += rows[std::size_t(q)];
    }
    return r;
  }

  // Collective argument check: every rank passes its own values of the named sizes and its local argument
  // error ("" if none). Throws std::invalid_argument on every rank when any rank has an error or the ranks
  // disagree on a size; one MPI_Allreduce (not counted in stats()).
  void require_same(const std::string& call, const std::vector<std::pair<std::string, std::int64_t>>& sizes,
                    const std::string& local_error) const {
    std::vector<long long> v;
    for (const auto& s : sizes) {
      v.push_back(static_cast<long long>(s.second));
      v.push_back(-static_cast<long long>(s.second));
    }
    v.push_back(local_error.empty() ? 0 : 1);
    Impl::check_mpi(MPI_Allreduce(MPI_IN_PLACE, v.data(), int(v.size()), MPI_LONG_LONG, MPI_MAX, comm()),
                    "MPI_Allreduce (argument check)");
    if (!local_error.empty()) throw std::invalid_argument(local_error);
    if (v.back() > 0)
      throw std::invalid_argument(call + ": invalid arguments on another rank (that rank reports which)");
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      const long long hi = v[2 * i], lo = -v[2 * i + 1];
      if (hi != lo) {
        std::ostringstream os;
        os << call << ": the ranks disagree on " << sizes[i].first << " (this rank: " << sizes[i].second
           << ", all ranks: " << lo << " to " << hi << "); every rank must pass the same " << sizes[i].first;
        throw std::invalid_argument(os.str());
      }
    }
  }

 private:
  struct State {
    MPI_Comm comm = MPI_COMM_NULL;
    int rank = 0, size = 1;
    ReducerOptions options;
    ReduceMethod method = ReduceMethod::host_staged;
    std::vector<RouteTiming> measured;
    ReductionStats stats;
    // Host side of host_staged: pinned with CUDA (faster small copies). Doubles: aligned for every scalar type
    // kbla supports. A Kokkos View, so the reducer must go before Kokkos::finalize, as Views do.
#if defined(KOKKOS_ENABLE_CUDA)
    using staging_space = Kokkos::CudaHostPinnedSpace;
#else
    using staging_space = Kokkos::HostSpace;
#endif
    Kokkos::View<double*, staging_space> staging_buffer;
    template <class Scalar>
    Scalar* staging(std::size_t count) {
      const std::size_t doubles = (count * sizeof(Scalar) + sizeof(double) - 1) / sizeof(double);
      if (staging_buffer.extent(0) < doubles)
        staging_buffer = Kokkos::View<double*, staging_space>(
            Kokkos::view_alloc(Kokkos::WithoutInitializing, "kbla::mpi::Reducer staging"),
            std::max<std::size_t>(doubles, 1024));
      return reinterpret_cast<Scalar*>(staging_buffer.data());
    }
#if KBLA_MPI_HAS_NCCL
    ncclComm_t nccl = nullptr;
    void init_nccl() {
      ncclUniqueId id;
      if (rank == 0 && ncclGetUniqueId(&id) != ncclSuccess)
        throw std::runtime_error("kbla::mpi::Reducer: ncclGetUniqueId failed");
      Impl::check_mpi(MPI_Bcast(&id, int(sizeof id), MPI_BYTE, 0, comm), "MPI_Bcast (NCCL id)");
      const ncclResult_t r = ncclCommInitRank(&nccl, size, id, rank);
      if (r != ncclSuccess)
        throw std::runtime_error(std::string("kbla::mpi::Reducer: ncclCommInitRank failed: ") + ncclGetErrorString(r));
    }
    void release_nccl() {
      if (nccl) ncclCommDestroy(nccl);
      nccl = nullptr;
    }
    ~State() { release_nccl(); }
#endif
  };

  static void check_measure_options(const ReducerOptions& o) {
    if (o.measure_block_size < 1 || o.measure_basis_blocks < 1 || o.measure_repetitions < 1) {
      std::ostringstream os;
      os << "kbla::mpi::Reducer: ReduceMethod::measured needs measure_block_size, measure_basis_blocks and "
            "measure_repetitions >= 1, got "
         << o.measure_block_size << ", " << o.measure_basis_blocks << " and " << o.measure_repetitions;
      throw std::invalid_argument(os.str());
    }
  }

  // Times every route available here on ExecSpace's memory and keeps the fastest for the slowest rank. The
  // candidates: host_staged always; device_direct when the memory is not host memory and MPI reports CUDA
  // support; nccl in NCCL builds on CUDA when every rank has a GPU of its own. A route counts only where every
  // rank offers it.
  template <class ExecSpace>
  void measure_routes() {
    using memory_space = typename ExecSpace::memory_space;
    constexpr bool host_memory = Kokkos::SpaceAccessibility<Kokkos::HostSpace, memory_space>::accessible;
    State& st = *state_;
    const ReduceMethod all[] = {ReduceMethod::host_staged, ReduceMethod::device_direct, ReduceMethod::nccl};
    int offered = 1;  // bit i: all[i] can run here
    if (!host_memory && mpi_is_cuda_aware()) offered |= 2;
#if KBLA_MPI_HAS_NCCL
    // NCCL only with one rank per GPU (ranks may outnumber the GPUs and share them; NCCL's set-up hangs then).
    if (std::is_same<ExecSpace, Kokkos::Cuda>::value && every_rank_has_its_own_gpu(st.comm)) offered |= 4;
#endif
    Impl::check_mpi(MPI_Allreduce(MPI_IN_PLACE, &offered, 1, MPI_INT, MPI_BAND, st.comm),
                    "MPI_Allreduce (routes offered)");
    const std::size_t s = std::size_t(st.options.measure_block_size);
    const std::size_t gram = s * s + 1, coefficients = std::size_t(st.options.measure_basis_blocks) * s * s;
    const Kokkos::View<double*, memory_space> buffer("kbla::mpi::Reducer measurement", std::max(gram, coefficients));
    const ExecSpace exec;
    std::vector<ReduceMethod> routes;
    std::vector<double> seconds;  // per route: Gram, coefficients
    for (int i = 0; i < 3; ++i) {
      if (!(offered & (1 << i))) continue;
      routes.push_back(all[i]);
      st.method = all[i];
#if KBLA_MPI_HAS_NCCL
      if (all[i] == ReduceMethod::nccl && !st.nccl) st.init_nccl();
#endif
      for (const std::size_t count : {gram, coefficients}) {
        sum_device(exec, buffer.data(), count);  // first use: staging allocation, first NCCL launch
        exec.fence();
        seconds.push_back(median_seconds(st.comm, st.options.measure_repetitions, [&]() {
          sum_device(exec, buffer.data(), count);
          exec.fence();  // NCCL and the staged copy back are queued: time until the sum is there
        }));
      }
    }
    slowest_over_ranks(st.comm, seconds);
    std::vector<double> totals;
    st.measured.clear();
    for (std::size_t r = 0; r < routes.size(); ++r) {
      RouteTiming t;
      t.method = routes[r];
      t.gram_seconds = seconds[2 * r];
      t.coefficients_seconds = seconds[2 * r + 1];
      st.measured.push_back(t);
      totals.push_back(t.total());
    }
    st.method = routes[index_of_fastest(totals)];
#if KBLA_MPI_HAS_NCCL
    if (st.method != ReduceMethod::nccl) st.release_nccl();
#endif
    st.stats = ReductionStats();  // the timings are not the application's sums
  }

  static ReduceMethod resolve(ReduceMethod m) {
#if defined(KOKKOS_ENABLE_CUDA)
    constexpr bool device_backend = true;
#else
    constexpr bool device_backend = false;
#endif
    if (m == ReduceMethod::automatic) return device_backend && mpi_is_cuda_aware() ? ReduceMethod::device_direct
                                                                                     : ReduceMethod::host_staged;
    if (m == ReduceMethod::nccl && !nccl_available())
      throw std::invalid_argument(
          "kbla::mpi::Reducer: ReduceMethod::nccl needs a build with NCCL (configure a CUDA Kokkos build with "
          "-DKBLA_ENABLE_NCCL=ON)");
    // an MPI that cannot say whether it reads device memory is not trusted with it
    if (m == ReduceMethod::device_direct && device_backend && !mpi_is_cuda_aware())
      throw std::invalid_argument(
          "kbla::mpi::Reducer: ReduceMethod::device_direct needs a CUDA-aware MPI, and this MPI does not report "
          "CUDA support (MPIX_Query_cuda_support); use host_staged");
    return m;
  }

  template <class Scalar>
  void allreduce(Scalar* data, std::size_t count) const {
    using Parts = Impl::RealParts<Scalar>;
    const std::size_t reals = count * Parts::per_scalar;
    if (reals > std::size_t(2147483647)) throw std::invalid_argument("kbla::mpi::Reducer: payload too large");
    Impl::check_mpi(MPI_Allreduce(MPI_IN_PLACE, data, int(reals), Impl::real_datatype<typename Parts::Real>(),
                                  MPI_SUM, state_->comm),
                    "MPI_Allreduce");
  }

  template <class ExecSpace, class Scalar>
  bool nccl_sum(const ExecSpace& exec, Scalar* data, std::size_t count) const {
#if KBLA_MPI_HAS_NCCL
    if constexpr (std::is_same<ExecSpace, Kokkos::Cuda>::value) {
      using Parts = Impl::RealParts<Scalar>;
      using Real = typename Parts::Real;
      const ncclDataType_t type = std::is_same<Real, float>::value ? ncclFloat : ncclDouble;
      const ncclResult_t r = ncclAllReduce(data, data, count * Parts::per_scalar, type, ncclSum, state_->nccl,
                                           exec.cuda_stream());
      if (r != ncclSuccess)
        throw std::runtime_error(std::string("kbla::mpi::Reducer: ncclAllReduce failed: ") + ncclGetErrorString(r));
      return true;
    }
#endif
    (void)exec;
    (void)data;
    (void)count;
    return false;  // not a CUDA execution space: host-staged
  }

  void record(double seconds, std::size_t bytes) const {
    ++state_->stats.allreduces;
    state_->stats.seconds += seconds;
    state_->stats.bytes += double(bytes);
  }

  std::shared_ptr<State> state_;
};

}  // namespace mpi
}  // namespace kbla
