// Turning Kokkos Views into what the raw CUDA kernels take: (pointer, leading dimension, layout). The only
// place, with the *_tpl_spec_decl files, where Views meet src/cuda.
#pragma once

#include <KokkosBlockLA_config.hpp>

#include <Kokkos_Core.hpp>

#include <complex>
#include <stdexcept>
#include <string>
#include <cstdint>
#include <type_traits>

#if KBLA_ENABLE_CUDA
#include <kbla_cuda_strassen.hpp>
#include <kbla_cuda_tall_skinny.hpp>
#endif

namespace kbla {
namespace Impl {

template <class V1, class... Vs>
struct same_scalar {
  enum : bool {
    value = (std::is_same<typename V1::non_const_value_type, typename Vs::non_const_value_type>::value && ...)
  };
};

template <class T>
struct raw_scalar {  // Kokkos::complex and std::complex share their layout (two Ts, aligned to 2*sizeof(T))
  using type = T;
};
template <class T>
struct raw_scalar<Kokkos::complex<T>> {
  using type = std::complex<T>;
};

#if KBLA_ENABLE_CUDA
template <class View>
struct cuda_kernel_view {
  using T = typename View::non_const_value_type;
  using Layout = typename View::array_layout;
  using Mem = typename View::memory_space;
  enum : bool {
    value = (std::is_same<T, float>::value || std::is_same<T, double>::value ||
             std::is_same<T, Kokkos::complex<float>>::value || std::is_same<T, Kokkos::complex<double>>::value) &&
            (std::is_same<Layout, Kokkos::LayoutLeft>::value || std::is_same<Layout, Kokkos::LayoutRight>::value ||
             std::is_same<Layout, Kokkos::LayoutStride>::value) &&
            (std::is_same<Mem, Kokkos::CudaSpace>::value || std::is_same<Mem, Kokkos::CudaUVMSpace>::value)
  };
};

// A matrix as the kernels see it. `ok` is false for strided Views with no unit stride (they take the portable
// path): the kernels need one contiguous direction.
struct RawMatrix {
  bool ok = false;
  std::int64_t ld = 0;
  kbla::cuda::Layout layout = kbla::cuda::Layout::ColMajor;
};

template <class View>
RawMatrix raw_matrix(const View& v) {
  RawMatrix m;
  const std::int64_t rows = v.extent(0), cols = v.extent(1);
  const std::int64_t s0 = v.stride(0), s1 = v.stride(1);
  if (s0 == 1 || rows <= 1) {  // column-major: element (i, j) at i + j * ld
    m = {true, std::max<std::int64_t>({s1, rows, 1}), kbla::cuda::Layout::ColMajor};
    if (cols <= 1) m.ld = std::max<std::int64_t>(rows, 1);
  } else if (s1 == 1 || cols <= 1) {  // row-major: element (i, j) at i * ld + j
    m = {true, std::max<std::int64_t>({s0, cols, 1}), kbla::cuda::Layout::RowMajor};
  }
  return m;
}

template <class View>
auto raw_pointer(const View& v) {
  using T = typename raw_scalar<typename View::non_const_value_type>::type;
  using P = std::conditional_t<std::is_const<typename View::value_type>::value, const T*, T*>;
  return reinterpret_cast<P>(v.data());
}

template <class T>
auto raw_value(const T& x) {
  return static_cast<typename raw_scalar<T>::type>(x);
}
template <class T>
std::complex<T> raw_value(const Kokkos::complex<T>& x) {
  return std::complex<T>(x.real(), x.imag());
}

inline void throw_on_cuda_error(cudaError_t err, const char* what) {
  if (err != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(err));
}
#endif

}  // namespace Impl
}  // namespace kbla
