// Options of the kbla calls. Defaults are the safe choice; fast or special paths are opt-in.
#pragma once

namespace kbla {

struct InnerOptions {
  // Bitwise-reproducible result: no atomics, partial sums combined in a fixed order (costs a second pass).
  bool deterministic = false;
};

// Which multiplication algorithm kbla::gemm uses for shapes that are not tall & skinny.
enum class GemmAlgorithm {
  classical,  // KokkosBlas::gemm (cuBLAS on CUDA): the default, never changed silently
};

struct GemmOptions {
  GemmAlgorithm algorithm = GemmAlgorithm::classical;
  // Route op(A)^H*B and A*B with a long dimension to kbla::inner / kbla::update when the long dimension is at
  // least tall_skinny_ratio times the larger of the other two (and those are at most tall_skinny_max_width).
  bool route_tall_skinny = true;
  int tall_skinny_ratio = 16;
  int tall_skinny_max_width = 512;
  bool deterministic = false;  // passed on to kbla::inner when a shape is routed there
};

}  // namespace kbla
