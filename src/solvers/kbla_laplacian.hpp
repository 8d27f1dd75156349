// Test problem with a known spectrum: the 3D Laplacian (7-point stencil, Dirichlet boundary) on an n x n x n grid,
// as a KokkosSparse::CrsMatrix, and its eigenvalues sum over the 3 axes of 2 - 2 cos(pi i / (n + 1)), i = 1..n,
// with their multiplicities (permutations of (i, j, k) give up to 6 copies).
#pragma once

#include <KokkosSparse_CrsMatrix.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace kbla {

template <class CrsMatrixType>
CrsMatrixType laplacian_3d(int n) {
  using Scalar = typename CrsMatrixType::non_const_value_type;
  using Ordinal = typename CrsMatrixType::non_const_ordinal_type;
  using Size = typename CrsMatrixType::non_const_size_type;
  if (n < 1) throw std::invalid_argument("kbla::laplacian_3d: n must be >= 1");
  const std::int64_t N = std::int64_t(n) * n * n;
  typename CrsMatrixType::row_map_type::non_const_type rowmap("laplacian rowmap", N + 1);
  auto rh = Kokkos::create_mirror_view(rowmap);
  rh(0) = 0;
  for (std::int64_t r = 0; r < N; ++r) {
    const int i = int(r % n), j = int((r / n) % n), k = int(r / (std::int64_t(n) * n));
    const int count = 1 + (i > 0) + (i < n - 1) + (j > 0) + (j < n - 1) + (k > 0) + (k < n - 1);
    rh(r + 1) = rh(r) + Size(count);
  }
  const Size nnz = rh(N);
  typename CrsMatrixType::index_type::non_const_type entries("laplacian entries", nnz);
  typename CrsMatrixType::values_type::non_const_type values("laplacian values", nnz);
  auto eh = Kokkos::create_mirror_view(entries);
  auto vh = Kokkos::create_mirror_view(values);
  const std::int64_t nn = std::int64_t(n) * n;
  for (std::int64_t r = 0; r < N; ++r) {
    const int i = int(r % n), j = int((r / n) % n), k = int(r / nn);
    Size e = rh(r);
    auto put = [&](std::int64_t c, double v) {
      eh(e) = Ordinal(c);
      vh(e) = Scalar(v);
      ++e;
    };
    if (k > 0) put(r - nn, -1);
    if (j > 0) put(r - n, -1);
    if (i > 0) put(r - 1, -1);
    put(r, 6);
    if (i < n - 1) put(r + 1, -1);
    if (j < n - 1) put(r + n, -1);
    if (k < n - 1) put(r + nn, -1);
  }
  Kokkos::deep_copy(rowmap, rh);
  Kokkos::deep_copy(entries, eh);
  Kokkos::deep_copy(values, vh);
  return CrsMatrixType("laplacian_3d", Ordinal(N), Ordinal(N), nnz, values, rowmap, entries);
}

// All nx ny nz eigenvalues of the 3D Laplacian (7-point, Dirichlet) on an nx x ny x nz grid, ascending, with
// multiplicity: sums of 2 - 2 cos(pi i / (n_axis + 1)), i = 1..n_axis, over the three axes.
inline std::vector<double> laplacian_3d_eigenvalues(int nx, int ny, int nz) {
  if (nx < 1 || ny < 1 || nz < 1) throw std::invalid_argument("kbla::laplacian_3d_eigenvalues: extents must be >= 1");
  const double pi = std::acos(-1.0);
  auto axis = [&](int n) {
    std::vector<double> a(n);
    for (int i = 1; i <= n; ++i) a[i - 1] = 2.0 - 2.0 * std::cos(pi * i / (n + 1));
    return a;
  };
  const std::vector<double> ax = axis(nx), ay = axis(ny), az = axis(nz);
  std::vector<double> all;
  all.reserve(std::size_t(nx) * ny * nz);
  for (int c = 0; c < nz; ++c)
    for (int b = 0; b < ny; ++b)
      for (int a = 0; a < nx; ++a) all.push_back(ax[a] + ay[b] + az[c]);
  std::sort(all.begin(), all.end());
  return all;
}

// All n^3 eigenvalues of laplacian_3d(n), ascending, with multiplicity.
inline std::vector<double> laplacian_3d_eigenvalues(int n) { return laplacian_3d_eigenvalues(n, n, n); }

}  // namespace kbla
