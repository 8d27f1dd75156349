// 64-byte vectors of the compiler's vector extensions (GCC, Clang) for host register tiles that GCC's vectoriser
// does not build well from scalar loops: where a tile multiplies one value of an operand by a vector of the other,
// GCC 12 loaded the values as a vector and broadcast each with a permute (vpermpd), one per multiply-add, instead
// of broadcasting it from memory; with eight such values the permute indices and the sums no longer fit the
// registers. With a scalar times a vector written out, it broadcasts from memory and keeps the sums in registers.
// Only where the target has 32 registers of 64 bytes (AVX-512): the tiles' 16 vector sums are sized for that.
#pragma once

#if defined(__AVX512F__) && defined(__GNUC__) && !defined(__NVCC__) && !defined(__CUDACC__) && \
    !defined(__INTEL_COMPILER)
#define KBLA_HOST_VECTORS 1
#else
#define KBLA_HOST_VECTORS 0
#endif

#if KBLA_HOST_VECTORS

#include <cstdint>
#include <utility>

namespace kbla {
namespace Impl {

template <class Real>
struct HostVector {
  typedef Real type __attribute__((vector_size(64)));
  static constexpr int width = 64 / int(sizeof(Real));

  // Unaligned load and store (memcpy: no alignment or aliasing assumptions).
  static type load(const Real* p) {
    type v;
    __builtin_memcpy(&v, p, sizeof(type));
    return v;
  }
  static void store(Real* p, const type& v) { __builtin_memcpy(p, &v, sizeof(type)); }

  // Lane l takes lane l ^ 1: the real and imaginary parts of interleaved complex values swapped.
  static type swap_pairs(const type& v) { return swap(v, std::make_integer_sequence<int, width>()); }

 private:
  template <int... Lane>
  static type swap(const type& v, std::integer_sequence<int, Lane...>) {
#if defined(__clang__)
    return __builtin_shufflevector(v, v, (Lane ^ 1)...);
#else
    typedef std::int64_t mask64 __attribute__((vector_size(64)));
    typedef std::int32_t mask32 __attribute__((vector_size(64)));
    if constexpr (sizeof(Real) == 8) return __builtin_shuffle(v, mask64{(Lane ^ 1)...});
    else return __builtin_shuffle(v, mask32{(Lane ^ 1)...});
#endif
  }
};

}  // namespace Impl
}  // namespace kbla

#endif
