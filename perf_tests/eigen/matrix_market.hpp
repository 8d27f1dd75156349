// Minimal MatrixMarket reader for the eigen driver: real / integer / pattern coordinate matrices, symmetric or
// general storage; general files must hold a symmetric matrix. Every problem is reported as a
// std::runtime_error naming the file, the line and what is wrong.
#pragma once

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace kbla_driver {

struct CooMatrix {
  std::int64_t rows = 0, cols = 0;
  std::vector<std::int64_t> row_ptr;  // CSR of the full (both triangles) matrix, columns sorted within rows
  std::vector<int> col;
  std::vector<double> val;
};

inline std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

inline CooMatrix read_matrix_market(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open matrix file '" + path + "'");
  auto fail = [&](std::int64_t line, const std::string& what) {
    std::ostringstream os;
    os << path << ":" << line << ": " << what;
    throw std::runtime_error(os.str());
  };
  std::string line;
  std::int64_t lineno = 0;
  if (!std::getline(in, line)) fail(1, "empty file (expected a %%MatrixMarket header)");
  ++lineno;
  std::istringstream hs(line);
  std::string banner, object, format, field, symmetry;
  hs >> banner >> object >> format >> field >> symmetry;
  if (banner != "%%MatrixMarket") fail(lineno, "not a MatrixMarket file (first line must start with %%MatrixMarket)");
  object = lower(object), format = lower(format), field = lower(field), symmetry = lower(symmetry);
  if (object != "matrix") fail(lineno, "object '" + object + "' is not supported (only 'matrix')");
  if (format != "coordinate") fail(lineno, "format '" + format + "' is not supported (only sparse 'coordinate')");
  if (field == "complex") fail(lineno, "complex matrices are not supported by the driver (real symmetric only)");
  if (field != "real" && field != "integer" && field != "pattern" && field != "double")
    fail(lineno, "unknown field '" + field + "' (expected real, integer or pattern)");
  if (symmetry != "symmetric" && symmetry != "general") {
    if (symmetry == "skew-symmetric" || symmetry == "hermitian")
      fail(lineno, "a " + symmetry + " matrix is not real symmetric; the eigen-solver needs a symmetric matrix");
    fail(lineno, "unknown symmetry '" + symmetry + "' (expected symmetric or general)");
  }
  const bool pattern = field == "pattern", symmetric = symmetry == "symmetric";

  // Size line (after comments).
  std::int64_t rows = -1, cols = -1, nnz = -1;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty() || line[0] == '%') continue;
    std::istringstream ss(line);
    std::string extra;
    if (!(ss >> rows >> cols >> nnz) || (ss >> extra)) fail(lineno, "malformed size line (expected 'rows cols nnz')");
    break;
  }
  if (rows < 0) fail(lineno, "missing size line");
  if (rows <= 0 || cols <= 0 || nnz < 0) fail(lineno, "matrix sizes must be positive");
  if (rows != cols) {
    std::ostringstream os;
    os << "the matrix is " << rows << " x " << cols << "; the eigen-solver needs a square symmetric matrix";
    fail(lineno, os.str());
  }
  if (rows > 2000000000) fail(lineno, "too many rows for 32-bit column indices");

  std::vector<std::tuple<std::int64_t, std::int64_t, double>> entries;
  entries.reserve(std::size_t(symmetric ? 2 * nnz : nnz));
  std::int64_t read = 0;
  while (read < nnz && std::getline(in, line)) {
    ++lineno;
    if (line.empty() || line[0] == '%') continue;
    std::istringstream ss(line);
    std::int64_t i = 0, j = 0;
    double v = 1.0;
    std::string extra;
    if (!(ss >> i >> j) || (!pattern && !(ss >> v)) || (ss >> extra))
      fail(lineno, pattern ? "malformed entry (expected 'row col')" : "malformed entry (expected 'row col value')");
    if (i < 1 || i > rows || j < 1 || j > cols) {
      std::ostringstream os;
      os << "entry (" << i << ", " << j << ") is outside the " << rows << " x " << cols << " matrix";
      fail(lineno, os.str());
    }
    if (!std::isfinite(v)) fail(lineno, "entry is not a finite number");
    if (symmetric && j > i) fail(lineno, "symmetric storage must list the lower triangle only (row >= col)");
    entries.emplace_back(i - 1, j - 1, v);
    if (symmetric && i != j) entries.emplace_back(j - 1, i - 1, v);
    ++read;
  }
  if (read < nnz) {
    std::ostringstream os;
    os << "file ends after " << read << " of the " << nnz << " entries the size line announces";
    fail(lineno, os.str());
  }
  while (std::getline(in, line)) {
    ++lineno;
    if (line.find_first_not_of(" \t\r") != std::string::npos && line[0] != '%')
      fail(lineno, "more entries than the size line announces");
  }

  // Sort, sum duplicates, build CSR.
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    return std::get<0>(a) != std::get<0>(b) ? std::get<0>(a) < std::get<0>(b) : std::get<1>(a) < std::get<1>(b);
  });
  CooMatrix A;
  A.rows = rows;
  A.cols = cols;
  A.row_ptr.assign(std::size_t(rows + 1), 0);
  for (std::size_t e = 0; e < entries.size(); ++e) {
    const auto [i, j, v] = entries[e];
    if (!A.col.empty() && e > 0 && std::get<0>(entries[e - 1]) == i && std::get<1>(entries[e - 1]) == j) {
      A.val.back() += v;
      continue;
    }
    A.col.push_back(int(j));
    A.val.push_back(v);
    ++A.row_ptr[std::size_t(i + 1)];
  }
  for (std::int64_t r = 0; r < rows; ++r) A.row_ptr[std::size_t(r + 1)] += A.row_ptr[std::size_t(r)];

  if (!symmetric) {  // the solver needs A = A^T
    double amax = 0;
    for (const double v : A.val) amax = std::max(amax, std::abs(v));
    auto lookup = [&](std::int64_t i, int j) -> double {
      const auto b = A.col.begin() + A.row_ptr[std::size_t(i)], e = A.col.begin() + A.row_ptr[std::size_t(i + 1)];
      const auto it = std::lower_bound(b, e, j);
      return (it != e && *it == j) ? A.val[std::size_t(it - A.col.begin())] : 0.0;
    };
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t e = A.row_ptr[std::size_t(i)]; e < A.row_ptr[std::size_t(i + 1)]; ++e) {
        const int j = A.col[std::size_t(e)];
        const double aij = A.val[std::size_t(e)], aji = lookup(j, int(i));
        if (std::abs(aij - aji) > 1e-12 * amax) {
          std::ostringstream os;
          os << path << ": the matrix is not symmetric: A(" << i + 1 << ", " << j + 1 << ") = " << aij << " but A("
             << j + 1 << ", " << i + 1 << ") = " << aji << "; the eigen-solver needs a symmetric matrix";
          throw std::runtime_error(os.str());
        }
      }
  }
  return A;
}

}  // namespace kbla_driver
