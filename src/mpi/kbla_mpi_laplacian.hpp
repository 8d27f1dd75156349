// The 3D Laplacian (7-point stencil, Dirichlet boundary) on an nx x ny x nz grid, distributed over the ranks by
// z-planes, as a kbla::eigen operator: each rank holds the rows of its planes (row = x + nx (y + ny z_local)),
// and an application exchanges one plane with each neighbouring rank (the halo). Matrix-free: every row sums its
// neighbours in the same order whichever rank holds them, so A X is bitwise the same for every split.
//
// One application of A to a block X of w columns:
//   1. pack the first and the last local plane (2 nx ny w scalars) into one buffer;
//   2. host_staged: copy it to the host (pinned memory with CUDA) and fence; device_direct: fence only;
//   3. queue the interior planes (those that need no halo) on the execution space;
//   4. meanwhile exchange the planes with the neighbours (MPI_Isend / MPI_Irecv, one message each way);
//   5. copy the received planes to the device and queue the two boundary planes.
// A rank may hold zero planes (it then does nothing, and its neighbours talk past it).
// device_ipc (CUDA, ranks on one node): no host copies and no MPI payload. Each rank packs into a buffer of its own
// that the neighbours have mapped (cudaIpcGetMemHandle / cudaIpcOpenMemHandle), tells them by a one-int message that
// it is packed, and copies the neighbours' planes device to device (NVLink between GPUs that have it). Two
// buffers alternate, so a buffer is packed again only after the neighbours' fence that follows their copy of it.
#pragma once

#include <mpi/kbla_mpi_reducer.hpp>

#include <Kokkos_Core.hpp>
#include <mpi.h>
#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#endif

#include <cstdint>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace kbla {
namespace mpi {

enum class HaloTransfer {
  host_staged,    // through host buffers (any MPI; the default)
  device_direct,  // MPI on the device buffers (CUDA-aware MPI)
  device_ipc,     // CUDA IPC: device-to-device copies from the neighbours' buffers (ranks on one node, CUDA)
};

// The z-planes [first, first + count) of one rank.
struct PlaneRange {
  int first = 0;
  int count = 0;
};

// nz planes over `ranks` ranks in rank order, as even as possible: the first nz % ranks ranks get one more.
inline PlaneRange even_planes(int nz, int ranks, int rank) {
  const int base = nz / ranks, extra = nz % ranks;
  PlaneRange r;
  r.count = base + (rank < extra ? 1 : 0);
  r.first = rank * base + (rank < extra ? rank : extra);
  return r;
}

struct HaloStats {
  long exchanges = 0;  // operator applications that exchanged planes
  double seconds = 0;  // host wall time of packing, copies and messages (the interior planes run meanwhile)
  double bytes = 0;    // sent by this rank
};

namespace Impl {

// Y = A X for the rows [row_begin, row_end) of this rank's planes; halo_below / halo_above hold the neighbours'
// planes (nx ny x w, column-major) when there are such neighbours.
template <class XView, class YView, class HaloView>
struct LaplacianRows {
  using Scalar = typename YView::non_const_value_type;
  XView X;
  YView Y;
  HaloView halo;  // [below | above], each plane x w
  std::int64_t row_begin, nx, ny, plane, planes, columns;
  bool has_below, has_above;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t t) const {
    const std::int64_t r = row_begin + t;
    const std::int64_t x = r % nx, y = (r / nx) % ny, z = r / plane, in_plane = r % plane;
    for (std::int64_t j = 0; j < columns; ++j) {
      Scalar v = Scalar(6) * X(r, j);
      if (z > 0)
        v -= X(r - plane, j);
      else if (has_below)
        v -= halo(in_plane + j * plane);
      if (y > 0) v -= X(r - nx, j);
      if (x > 0) v -= X(r - 1, j);
      if (x < nx - 1) v -= X(r + 1, j);
      if (y < ny - 1) v -= X(r + nx, j);
      if (z < planes - 1)
        v -= X(r + plane, j);
      else if (has_above)
        v -= halo(plane * columns + in_plane + j * plane);
      Y(r, j) = v;
    }
  }
};

// The first and the last local plane of X, packed: [first | last], each plane x w column-major.
template <class XView, class BufferView>
struct PackPlanes {
  XView X;
  BufferView buffer;
  std::int64_t plane, last_row0, columns;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t t) const {
    const std::int64_t r = t % plane, j = t / plane;
    buffer(t) = X(r, j);
    buffer(plane * columns + t) = X(last_row0 + r, j);
  }
};

}  // namespace Impl

template <class ExecSpace, class Scalar = double>
class Laplacian3D {
 public:
  using execution_space = ExecSpace;
  using memory_space = typename ExecSpace::memory_space;
#if defined(KOKKOS_ENABLE_CUDA)
  using host_buffer_space =
      std::conditional_t<std::is_same<ExecSpace, Kokkos::Cuda>::value, Kokkos::CudaHostPinnedSpace, Kokkos::HostSpace>;
#else
  using host_buffer_space = Kokkos::HostSpace;
#endif

  // Collective over comm. The ranks' plane ranges must tile [0, nz) in rank order (zero planes allowed);
  // otherwise every rank throws std::invalid_argument.
  Laplacian3D(MPI_Comm comm, int nx, int ny, int nz, PlaneRange planes,
              HaloTransfer transfer = HaloTransfer::host_staged)
      : state_(std::make_shared<State>()) {
    if (nx < 1 || ny < 1 || nz < 1) {
      std::ostringstream os;
      os << "kbla::mpi::Laplacian3D: grid " << nx << " x " << ny << " x " << nz << " must have every extent >= 1";
      throw std::invalid_argument(os.str());
    }
    if (transfer == HaloTransfer::device_ipc && !ipc_possible())
      throw std::invalid_argument("kbla::mpi::Laplacian3D: HaloTransfer::device_ipc needs a CUDA execution space");
    State& st = *state_;
    st.comm = comm;
    st.nx = nx;
    st.ny = ny;
    st.nz = nz;
    st.planes = planes;
    st.transfer = transfer;
    MPI_Comm_rank(comm, &st.rank);
    MPI_Comm_size(comm, &st.size);
    std::vector<int> all(2 * std::size_t(st.size));
    const int mine[2] = {planes.first, planes.count};
    kbla::mpi::Impl::check_mpi(MPI_Allgather(mine, 2, MPI_INT, all.data(), 2, MPI_INT, comm), "MPI_Allgather");
    int next_first = 0;
    for (int q = 0; q < st.size; ++q) {
      if (all[2 * q] != next_first || all[2 * q + 1] < 0) {
        std::ostringstream os;
        os << "kbla::mpi::Laplacian3D: rank " << q << " holds planes [" << all[2 * q] << ", "
           << all[2 * q] + all[2 * q + 1] << ") but the ranks' planes must tile [0, " << nz
           << ") in rank order (the next plane is " << next_first << ")";
        throw std::invalid_argument(os.str());
      }
      next_first += all[2 * q + 1];
    }
    if (next_first != nz) {
      std::ostringstream os;
      os << "kbla::mpi::Laplacian3D: the ranks hold " << next_first << " planes but the grid has nz = " << nz;
      throw std::invalid_argument(os.str());
    }
    // Neighbours: the nearest ranks below and above that hold planes.
    for (int q = st.rank - 1; q >= 0; --q)
      if (all[2 * q + 1] > 0) {
        st.below = q;
        break;
      }
    for (int q = st.rank + 1; q < st.size; ++q)
      if (all[2 * q + 1] > 0) {
        st.above = q;
        break;
      }
  }

  static constexpr bool ipc_possible() {
#if defined(KOKKOS_ENABLE_CUDA)
    return std::is_same<ExecSpace, Kokkos::Cuda>::value;
#else
    return false;
#endif
  }

  std::int64_t plane_rows() const { return std::int64_t(state_->nx) * state_->ny; }
  std::int64_t local_rows() const { return plane_rows() * state_->planes.count; }
  std::int64_t row_offset() const { return plane_rows() * state_->planes.first; }
  std::int64_t global_rows() const { return plane_rows() * state_->nz; }
  PlaneRange planes() const { return state_->planes; }
  HaloStats halo_stats() const { return state_->stats; }
  void reset_halo_stats() const { state_->stats = HaloStats(); }

  // Y = A X on this rank's rows (X, Y: local_rows() x w Views on ExecSpace's memory, any layout). Collective
  // between neighbours: every rank applies the operator to blocks of the same width.
  template <class XView, class YView>
  void operator()(const XView& X, const YView& Y) const {
    State& st = *state_;
    const std::int64_t plane = plane_rows(), L = st.planes.count, w = std::int64_t(X.extent(1));
    if (L == 0 || w == 0) return;
    if (std::int64_t(X.extent(0)) != L * plane || Y.extent(0) != X.extent(0) || Y.extent(1) != X.extent(1)) {
      std::ostringstream os;
      os << "kbla::mpi::Laplacian3D: X is " << X.extent(0) << " x " << X.extent(1) << " and Y " << Y.extent(0)
         << " x " << Y.extent(1) << "; both must be " << L * plane << " x w (this rank's rows)";
      throw std::invalid_argument(os.str());
    }
    const ExecSpace exec;
    const bool below = st.below >= 0, above = st.above >= 0;
    const std::size_t halo_count = std::size_t(2 * plane * w);
    st.reserve(halo_count);
    using Buffer = Kokkos::View<Scalar*, memory_space>;
    const Buffer send = Kokkos::subview(st.send, std::make_pair(std::size_t(0), halo_count));
    const Buffer recv = Kokkos::subview(st.recv, std::make_pair(std::size_t(0), halo_count));
    using Rows = Impl::LaplacianRows<XView, YView, Buffer>;
    auto rows = [&](std::int64_t r0, std::int64_t r1) {
      if (r1 <= r0) return;
      Kokkos::parallel_for("kbla::mpi::Laplacian3D", Kokkos::RangePolicy<ExecSpace>(exec, 0, r1 - r0),
                           Rows{X, Y, recv, r0, st.nx, st.ny, plane, L, w, below, above});
    };
    if (!below && !above) {  // one rank holds every plane: no halo
      rows(0, L * plane);
      return;
    }

    Kokkos::Timer timer;
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (ipc_possible()) {
      if (st.transfer == HaloTransfer::device_ipc) {
        exchange_ipc(exec, X, recv, plane, w, below, above, rows);
        return;
      }
    }
#endif
    Kokkos::parallel_for("kbla::mpi::Laplacian3D pack", Kokkos::RangePolicy<ExecSpace>(exec, 0, plane * w),
                         Impl::PackPlanes<XView, Buffer>{X, send, plane, (L - 1) * plane, w});
    // Host memory spaces need no staging: MPI reads the buffers where they are.
    constexpr bool host_memory = Kokkos::SpaceAccessibility<Kokkos::HostSpace, memory_space>::accessible;
    const bool staged = st.transfer == HaloTransfer::host_staged && !host_memory;
    using HostBuffer = Kokkos::View<Scalar*, host_buffer_space>;
    const HostBuffer hsend = Kokkos::subview(st.host_send, std::make_pair(std::size_t(0), halo_count));
    const HostBuffer hrecv = Kokkos::subview(st.host_recv, std::make_pair(std::size_t(0), halo_count));
    if (staged) Kokkos::deep_copy(exec, hsend, send);
    exec.fence();
    double seconds = timer.seconds();
    rows(plane, (L - 1) * plane);  // interior planes, while the messages travel

    timer.reset();
    Scalar* const out = staged ? hsend.data() : send.data();
    Scalar* const in = staged ? hrecv.data() : recv.data();
    const int count = int(plane * w * std::int64_t(sizeof(Scalar)));  // bytes per plane
    MPI_Request req[4];
    int nreq = 0;
    // Tag 0: a plane travelling up (to the rank above); tag 1: travelling down.
    if (below) {
      MPI_Irecv(in, count, MPI_BYTE, st.below, 0, st.comm, &req[nreq++]);
      MPI_Isend(out, count, MPI_BYTE, st.below, 1, st.comm, &req[nreq++]);
    }
    if (above) {
      MPI_Irecv(in + plane * w, count, MPI_BYTE, st.above, 1, st.comm, &req[nreq++]);
      MPI_Isend(out + plane * w, count, MPI_BYTE, st.above, 0, st.comm, &req[nreq++]);
    }
    kbla::mpi::Impl::check_mpi(MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE), "MPI_Waitall (halo)");
    if (staged) Kokkos::deep_copy(exec, recv, hrecv);
    seconds += timer.seconds();
    rows(0, plane);
    if (L > 1) rows((L - 1) * plane, L * plane);
    ++st.stats.exchanges;
    st.stats.seconds += seconds;
    st.stats.bytes += double(count) * ((below ? 1 : 0) + (above ? 1 : 0));
  }

 private:
#if defined(KOKKOS_ENABLE_CUDA)
  static void check_cuda(cudaError_t e, const char* what) {
    if (e != cudaSuccess)
      throw std::runtime_error(std::string("kbla::mpi::Laplacian3D: ") + what + ": " + cudaGetErrorString(e));
  }
  // One int to and from each neighbour: "my buffer is ready" (and, by its order, "I fenced my last copy").
  static void handshake(const int below, const int above, MPI_Comm comm, const int tag) {
    int out = 1, in[2] = {0, 0};
    MPI_Request req[4];
    int n = 0;
    if (below >= 0) {
      MPI_Irecv(&in[0], 1, MPI_INT, below, tag, comm, &req[n++]);
      MPI_Isend(&out, 1, MPI_INT, below, tag, comm, &req[n++]);
    }
    if (above >= 0) {
      MPI_Irecv(&in[1], 1, MPI_INT, above, tag, comm, &req[n++]);
      MPI_Isend(&out, 1, MPI_INT, above, tag, comm, &req[n++]);
    }
    kbla::mpi::Impl::check_mpi(MPI_Waitall(n, req, MPI_STATUSES_IGNORE), "MPI_Waitall (halo handshake)");
  }
  // Own IPC buffer of 2 halves x [first plane | last plane] (plane x w each), mapped by the neighbours.
  void ipc_reserve(std::size_t half) const {
    State& st = *state_;
    if (st.ipc_half >= half) return;
    st.ipc_release(true);  // neighbours unmap before anyone frees (collective between neighbours)
    check_cuda(cudaMalloc(reinterpret_cast<void**>(&st.ipc_own), 2 * half * sizeof(Scalar)), "cudaMalloc");
    st.ipc_half = half;
    cudaIpcMemHandle_t mine, from_below, from_above;
    check_cuda(cudaIpcGetMemHandle(&mine, st.ipc_own), "cudaIpcGetMemHandle");
    MPI_Request req[4];
    int n = 0;
    const int bytes = int(sizeof(cudaIpcMemHandle_t)), tag = 7;
    if (st.below >= 0) {
      MPI_Irecv(&from_below, bytes, MPI_BYTE, st.below, tag, st.comm, &req[n++]);
      MPI_Isend(&mine, bytes, MPI_BYTE, st.below, tag, st.comm, &req[n++]);
    }
    if (st.above >= 0) {
      MPI_Irecv(&from_above, bytes, MPI_BYTE, st.above, tag, st.comm, &req[n++]);
      MPI_Isend(&mine, bytes, MPI_BYTE, st.above, tag, st.comm, &req[n++]);
    }
    kbla::mpi::Impl::check_mpi(MPI_Waitall(n, req, MPI_STATUSES_IGNORE), "MPI_Waitall (IPC handles)");
    void* p = nullptr;
    if (st.below >= 0) {
      check_cuda(cudaIpcOpenMemHandle(&p, from_below, cudaIpcMemLazyEnablePeerAccess), "cudaIpcOpenMemHandle");
      st.ipc_below = static_cast<Scalar*>(p);
    }
    if (st.above >= 0) {
      check_cuda(cudaIpcOpenMemHandle(&p, from_above, cudaIpcMemLazyEnablePeerAccess), "cudaIpcOpenMemHandle");
      st.ipc_above = static_cast<Scalar*>(p);
    }
  }
  template <class XView, class Buffer, class Rows>
  void exchange_ipc(const ExecSpace& exec, const XView& X, const Buffer& recv, std::int64_t plane, std::int64_t w,
                    bool below, bool above, const Rows& rows) const {
    State& st = *state_;
    const std::int64_t L = st.planes.count;
    const std::size_t half = std::size_t(2 * plane * w);
    Kokkos::Timer timer;
    ipc_reserve(half);
    st.ipc_parity ^= 1;
    const std::size_t offset = std::size_t(st.ipc_parity) * st.ipc_half;
    using Unmanaged = Kokkos::View<Scalar*, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    Kokkos::parallel_for("kbla::mpi::Laplacian3D pack", Kokkos::RangePolicy<ExecSpace>(exec, 0, plane * w),
                         Impl::PackPlanes<XView, Unmanaged>{X, Unmanaged(st.ipc_own + offset, half), plane,
                                                            (L - 1) * plane, w});
    exec.fence();  // packed, and the copies of the previous exchange (from the neighbours' buffers) are done
    double seconds = timer.seconds();
    rows(plane, (L - 1) * plane);
    timer.reset();
    handshake(st.below, st.above, st.comm, 8);
    const std::size_t bytes = std::size_t(plane * w) * sizeof(Scalar);
    // The neighbour below's last plane is its buffer's second part; the one above's first plane its first part.
    if (below)
      check_cuda(cudaMemcpyAsync(recv.data(), st.ipc_below + offset + plane * w, bytes, cudaMemcpyDeviceToDevice,
                                 exec.cuda_stream()),
                 "cudaMemcpyAsync (halo below)");
    if (above)
      check_cuda(cudaMemcpyAsync(recv.data() + plane * w, st.ipc_above + offset, bytes, cudaMemcpyDeviceToDevice,
                                 exec.cuda_stream()),
                 "cudaMemcpyAsync (halo above)");
    seconds += timer.seconds();
    rows(0, plane);
    if (L > 1) rows((L - 1) * plane, L * plane);
    ++st.stats.exchanges;
    st.stats.seconds += seconds;
    st.stats.bytes += double(bytes) * ((below ? 1 : 0) + (above ? 1 : 0));  // read from the neighbours
  }
#endif

  struct State {
    MPI_Comm comm = MPI_COMM_NULL;
    int rank = 0, size = 1, nx = 0, ny = 0, nz = 0;
    PlaneRange planes;
    HaloTransfer transfer = HaloTransfer::host_staged;
    int below = -1, above = -1;
    HaloStats stats;
    Kokkos::View<Scalar*, memory_space> send, recv;
    Kokkos::View<Scalar*, host_buffer_space> host_send, host_recv;
#if defined(KOKKOS_ENABLE_CUDA)
    Scalar* ipc_own = nullptr;  // cudaMalloc'ed (Kokkos may pool or use stream-ordered allocation: no IPC there)
    Scalar* ipc_below = nullptr;
    Scalar* ipc_above = nullptr;
    std::size_t ipc_half = 0;
    int ipc_parity = 0;
    // Unmap the neighbours' buffers, wait until they unmapped ours (collective = a handshake), free ours.
    void ipc_release(bool collective) {
      if (ipc_below) cudaIpcCloseMemHandle(ipc_below);
      if (ipc_above) cudaIpcCloseMemHandle(ipc_above);
      ipc_below = ipc_above = nullptr;
      if (!ipc_own) return;
      int finalized = 0;
      MPI_Finalized(&finalized);
      if (collective && !finalized) handshake(below, above, comm, 9);
      cudaFree(ipc_own);
      ipc_own = nullptr;
      ipc_half = 0;
    }
    ~State() { ipc_release(true); }
#endif
    void reserve(std::size_t count) {
      if (send.extent(0) >= count) return;
      send = Kokkos::View<Scalar*, memory_space>("kbla::mpi::Laplacian3D send", count);
      recv = Kokkos::View<Scalar*, memory_space>("kbla::mpi::Laplacian3D recv", count);
      host_send = Kokkos::View<Scalar*, host_buffer_space>("kbla::mpi::Laplacian3D host send", count);
      host_recv = Kokkos::View<Scalar*, host_buffer_space>("kbla::mpi::Laplacian3D host recv", count);
    }
  };
  std::shared_ptr<State> state_;
};

}  // namespace mpi
}  // namespace kbla
