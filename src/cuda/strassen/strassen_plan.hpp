// The plan of the workspace Strassen paths (strassen_workspace.cu): which algorithm, levels, leaves and schedule a
// StrassenConfig asks for, and the workspace that plan needs (strassen_workspace_bytes walks the same plan as
// strassen_gemm, so the number is exact). Included by that file only.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "kbla_cuda_strassen.hpp"
#include "strassen_leaf_lanes.hpp"  // kMaxLanes

namespace kbla {
namespace cuda {
namespace strassen_detail {

using i64 = std::int64_t;

// The plan shared by strassen_workspace_bytes and strassen_gemm.
enum class Leaf { blas, simt, fused };

struct Plan {
  StrassenAlgorithm algo;  // conventional or winograd for the recursion; hybrid -> conventional over fused
  int levels;
  i64 tau;
  Leaf leaf;       // the 7 products at the bottom
  Leaf thin;       // peeling fix-ups
  bool low_memory; // product-by-product schedule: one operand-sum pair and one product buffer per level
  int lanes;       // helper streams for the products of the innermost level (0 = serial), <= kMaxLanes
  int simt_tile;   // StrassenConfig::simt_tile, passed to simt_gemm / strassen_fused
};

constexpr std::size_t kAlign = 256;
inline std::size_t round_up(std::size_t b) { return (b + kAlign - 1) / kAlign * kAlign; }

template <class Scalar>
i64 default_tau() {
  // Crossover of one Strassen level over cuBLAS on H100 / H200: FP32 SGEMM (no TF32) runs about as fast at 2048,
  // 4096 and 8192, so one level pays from leaves >= 3072 on (split at n >= 6144). FP64 (DMMA) is faster on the
  // 4096 leaves than on the 8192 product, and with the batched additions one level is predicted to gain ~10 % at
  // 8192, so FP64 splits at n >= 8192 like the conventional path.
  return sizeof(Scalar) == 4 ? 6144 : 8192;
}

template <class Scalar>
bool splits(const Plan& p, int levels, i64 m, i64 n, i64 k) {
  if (levels <= 0) return false;
  const i64 mn = std::min(m, std::min(n, k));
  if (mn < 2) return false;
  if (p.algo == StrassenAlgorithm::winograd && mn < p.tau) return false;
  return true;
}

// Whether the level whose products have levels_below levels left and shape mh x nh x kh runs its 7 products on the
// helper streams: only the innermost level (its products are leaf GEMMs and use no workspace, so concurrent
// products cannot collide in a shared inner workspace) and only in the batched schedule (low_memory reuses one
// product buffer for all 7). Why not the outer levels: their 7 products are whole inner levels that carve the same
// workspace tail; running them concurrently would need a private inner workspace per lane (e.g. +4 x 2 GB for
// FP64 16384, 2 levels) and would mostly overlap additions with GEMMs, a different trade than filling wave tails.
template <class Scalar>
bool concurrent_level(const Plan& p, int levels_below, i64 mh, i64 nh, i64 kh);

template <class Scalar>
std::size_t level_bytes(const Plan& p, i64 mh, i64 nh, i64 kh, bool concurrent) {
  const std::size_t s = sizeof(Scalar);
  const std::size_t a = round_up(std::size_t(mh * kh) * s), b = round_up(std::size_t(kh * nh) * s),
                    c = round_up(std::size_t(mh * nh) * s);
  if (p.low_memory) return p.algo == StrassenAlgorithm::winograd ? a + b + 2 * c : a + b + c;
  // batched: every operand sum of the level at once, products that feed two quadrants kept until one combine pass;
  // Winograd's concurrent level keeps P2, P1, P4, P5 apart (4 buffers instead of the accumulators X, Y)
  if (p.algo == StrassenAlgorithm::winograd) return 4 * a + 4 * b + (concurrent ? 4 : 2) * c;
  return 5 * a + 5 * b + 5 * c;
}

template <class Scalar>
std::size_t plan_bytes(const Plan& p, int levels, i64 m, i64 n, i64 k) {
  std::size_t total = 0;
  while (splits<Scalar>(p, levels, m, n, k)) {
    m /= 2;
    n /= 2;
    k /= 2;
    --levels;  // now the levels left to the products of this level
    total += level_bytes<Scalar>(p, m, n, k, concurrent_level<Scalar>(p, levels, m, n, k));
  }
  return total;
}

template <class Scalar>
bool concurrent_level(const Plan& p, int levels_below, i64 mh, i64 nh, i64 kh) {
  return p.lanes > 1 && !p.low_memory && !splits<Scalar>(p, levels_below, mh, nh, kh);
}

template <class Scalar>
bool make_plan(const StrassenConfig& c, Plan* p) {
  p->tau = c.tau > 0 ? c.tau : default_tau<Scalar>();
  p->thin = c.cublas_leaves ? Leaf::blas : Leaf::simt;
  p->simt_tile = c.simt_tile;
  p->leaf = p->thin;
  p->low_memory = c.low_memory;
  p->lanes = (c.leaf_streams > 1 && !c.low_memory) ? std::min(c.leaf_streams, kMaxLanes) : 0;
  switch (c.algorithm) {
    case StrassenAlgorithm::conventional:
      p->algo = StrassenAlgorithm::conventional;
      p->levels = std::max(c.levels, 0);
      return true;
    case StrassenAlgorithm::winograd:
      p->algo = StrassenAlgorithm::winograd;
      p->levels = std::max(c.levels, 0);
      return true;
    case StrassenAlgorithm::hybrid:
      p->algo = StrassenAlgorithm::conventional;
      p->levels = 1;
      p->leaf = Leaf::fused;
      return true;
    case StrassenAlgorithm::fused:
      p->algo = StrassenAlgorithm::fused;
      p->levels = 0;
      p->leaf = Leaf::fused;
      return true;
  }
  return false;
}

}  // namespace strassen_detail
}  // namespace cuda
}  // namespace kbla
