// Where the ranks sit: their index on their node, the GPU each should take (ranks may outnumber the GPUs),
// whether the GPUs of all ranks can reach each other directly (CUDA IPC between the ranks of one node) and whether
// each rank has a GPU of its own (NCCL's condition).
#pragma once

#include <Kokkos_Core.hpp>
#include <mpi.h>
#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#elif defined(KOKKOS_ENABLE_HIP)
#include <hip/hip_runtime.h>
#endif

#include <algorithm>
#include <cstddef>
#include <vector>

namespace kbla {
namespace mpi {

// This rank's index among the ranks of its node (MPI_Comm_split_type, shared memory).
inline int node_local_rank(MPI_Comm comm) {
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int rank = 0;
  MPI_Comm_rank(node, &rank);
  MPI_Comm_free(&node);
  return rank;
}

// Whether every rank of comm shares one node (one shared-memory communicator holds them all). Collective.
inline bool all_ranks_on_one_node(MPI_Comm comm) {
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int node_size = 0, size = 0;
  MPI_Comm_size(node, &node_size);
  MPI_Comm_free(&node);
  MPI_Comm_size(comm, &size);
  int same = node_size == size ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &same, 1, MPI_INT, MPI_MIN, comm);
  return same == 1;
}

// GPUs this process sees (CUDA or HIP builds; 0 elsewhere or when the runtime has none). Callable before
// Kokkos::initialize.
inline int visible_gpus() {
  int count = 0;
#if defined(KOKKOS_ENABLE_CUDA)
  if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0;
#elif defined(KOKKOS_ENABLE_HIP)
  if (hipGetDeviceCount(&count) != hipSuccess) count = 0;
#endif
  return count;
}

// The GPU for this rank: its node-local index modulo the node's GPUs, so that more ranks than GPUs share them
// round-robin (rank 2 of a node with two GPUs takes GPU 0). Without GPUs (or on other backends) the node-local
// index, as Kokkos expects one device per rank there. Collective (node_local_rank); call before
// Kokkos::initialize and pass it as the device id.
inline int node_device_id(MPI_Comm comm) {
  const int local = node_local_rank(comm), gpus = visible_gpus();
  return gpus > 0 ? local % gpus : local;
}

// The GPU this process uses now (CUDA or HIP after Kokkos::initialize); -1 without one.
inline int current_gpu() {
  int device = -1;
#if defined(KOKKOS_ENABLE_CUDA)
  if (cudaGetDevice(&device) != cudaSuccess) device = -1;
#elif defined(KOKKOS_ENABLE_HIP)
  if (hipGetDevice(&device) != hipSuccess) device = -1;
#endif
  return device;
}

// Whether the device-to-device halo (CUDA IPC) can work: every rank on one node, a CUDA build, and every rank's
// GPU able to access every other rank's GPU as a peer (ranks sharing a GPU need no peer access). GPU numbers are
// compared as each process sees them, so the ranks must see the same GPUs (no per-rank CUDA_VISIBLE_DEVICES).
// Collective; the same answer on every rank.
inline bool gpus_reach_each_other(MPI_Comm comm) {
  int ok = all_ranks_on_one_node(comm) ? 1 : 0;
#if defined(KOKKOS_ENABLE_CUDA)
  int size = 0;
  MPI_Comm_size(comm, &size);
  const int mine = current_gpu();
  std::vector<int> devices(static_cast<std::size_t>(size), -1);
  MPI_Allgather(&mine, 1, MPI_INT, devices.data(), 1, MPI_INT, comm);
  if (mine < 0) ok = 0;
  for (const int other : devices) {
    if (other < 0) ok = 0;
    if (!ok || other == mine) continue;
    int can = 0;
    if (cudaDeviceCanAccessPeer(&can, mine, other) != cudaSuccess || !can) ok = 0;
  }
#else
  ok = 0;
#endif
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm);
  return ok == 1;
}

// Whether every rank of comm uses a GPU of its own (CUDA builds, after Kokkos::initialize): no two ranks on one
// GPU, compared by the GPUs' UUIDs, so it holds across nodes and whatever CUDA_VISIBLE_DEVICES each rank has. NCCL
// needs it (one rank per GPU in a communicator: with two ranks on one GPU its set-up fails or waits forever).
// False without CUDA or when a rank cannot name its GPU. Collective; the same answer on every rank.
inline bool every_rank_has_its_own_gpu(MPI_Comm comm) {
  int ok = 0;
#if defined(KOKKOS_ENABLE_CUDA)
  int size = 0;
  MPI_Comm_size(comm, &size);
  std::vector<unsigned char> mine(17, 0);  // 16 bytes of UUID, then 1 if it is valid
  cudaDeviceProp prop;
  const int device = current_gpu();
  if (device >= 0 && cudaGetDeviceProperties(&prop, device) == cudaSuccess) {
    for (int i = 0; i < 16; ++i) mine[i] = static_cast<unsigned char>(prop.uuid.bytes[i]);
    mine[16] = 1;
  }
  std::vector<unsigned char> all(mine.size() * static_cast<std::size_t>(size));
  MPI_Allgather(mine.data(), 17, MPI_UNSIGNED_CHAR, all.data(), 17, MPI_UNSIGNED_CHAR, comm);
  ok = 1;
  for (int a = 0; a < size && ok; ++a) {
    const unsigned char* ua = all.data() + 17 * static_cast<std::size_t>(a);
    if (ua[16] != 1) ok = 0;
    for (int b = a + 1; b < size && ok; ++b)
      if (std::equal(ua, ua + 16, all.data() + 17 * static_cast<std::size_t>(b))) ok = 0;
  }
#endif
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm);
  return ok == 1;
}

}  // namespace mpi
}  // namespace kbla
