// Command-line numbers and JSON text shared by the eigen drivers (kbla_eigen_driver, kbla_eigen_mpi_driver).
#pragma once

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbla_eigen_driver {

// A bad command line: the drivers print the message and their usage, and exit with status 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline long parse_int(const std::string& opt, const std::string& v) {
  char* end = nullptr;
  errno = 0;
  const long x = std::strtol(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || errno != 0) throw UsageError(opt + " needs an integer, got '" + v + "'");
  return x;
}
inline double parse_double(const std::string& opt, const std::string& v) {
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0') throw UsageError(opt + " needs a number, got '" + v + "'");
  return x;
}

inline std::string json_number(double x) {
  if (!std::isfinite(x)) return "null";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}
inline std::string json_string(const std::string& s) {
  std::string o = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (c == '\n') {
      o += "\\n";
      continue;
    }
    o += c;
  }
  return o + "\"";
}
template <class T>
std::string json_array(const std::vector<T>& v) {
  std::string o = "[";
  for (std::size_t i = 0; i < v.size(); ++i) o += (i ? ", " : "") + json_number(double(v[i]));
  return o + "]";
}

}  // namespace kbla_eigen_driver
