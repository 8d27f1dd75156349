// kbla_driver: the library's main job on the default device. Measures the device's read and copy bandwidth
// with STREAM-like Kokkos kernels, then times kbla::inner (C = A^H B), kbla::update (B = A C), the in-place
// update (X <- X C) and kbla::gemm("C", "N") on tall & skinny block vectors, and prints GB/s and % of the
// measured bandwidth (inner reads A and B; update reads A and writes B, so it is held to the copy bandwidth).
//
//   kbla_driver [--elements E] [--widths 1,2,4,8,16,32,64] [--reps R] [--layout left|right]
//               [--scalar double|complex] [--json FILE]
// Each block vector holds about E elements (K = E / width rows); the median of R timed runs after one warm-up.
#include <kbla.hpp>
#include "common/kbla_measured_bandwidth.hpp"

#include <Kokkos_Core.hpp>
#include <Kokkos_Random.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct Settings {
  std::int64_t elements = 0;  // 0: pick by device
  std::vector<int> widths = {1, 2, 4, 8, 16, 32, 64};
  int reps = 10;
  std::string layout = "left";
  std::string scalar = "double";
  std::string json;
};

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr,
               "kbla_driver: %s\nusage: kbla_driver [--elements E] [--widths 1,2,4] [--reps R] [--layout left|right]"
               " [--scalar double|complex] [--json FILE]\n",
               why.c_str());
  std::exit(2);
}

Settings parse(int argc, char** argv) {
  Settings s;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage("missing value after " + arg);
      return argv[++i];
    };
    try {
      if (arg == "--elements") s.elements = std::stoll(value());
      else if (arg == "--reps") s.reps = std::stoi(value());
      else if (arg == "--layout") s.layout = value();
      else if (arg == "--scalar") s.scalar = value();
      else if (arg == "--json") s.json = value();
      else if (arg == "--widths") {
        s.widths.clear();
        std::stringstream list(value());
        for (std::string w; std::getline(list, w, ',');) s.widths.push_back(std::stoi(w));
      } else if (arg.rfind("--kokkos", 0) == 0) continue;  // Kokkos' own flags
      else usage("unknown argument " + arg);
    } catch (const std::logic_error&) {
      usage("bad value for " + arg);
    }
  }
  if (s.reps < 1) usage("--reps must be at least 1");
  if (s.layout != "left" && s.layout != "right") usage("--layout must be left or right");
  if (s.scalar != "double" && s.scalar != "complex") usage("--scalar must be double or complex");
  for (int w : s.widths)
    if (w < 1) usage("widths must be at least 1");
  return s;
}

struct Row {
  int width;
  std::int64_t K;
  std::string op;
  double seconds, GBs, pct;
};

template <class Scalar, class Layout>
std::vector<Row> run_widths(const Settings& s, std::int64_t elements, const kbla_perf::Bandwidth& bw) {
  using Exec = Kokkos::DefaultExecutionSpace;
  using Matrix = Kokkos::View<Scalar**, Layout, Exec::memory_space>;
  std::vector<Row> rows;
  const Exec exec;
  for (int w : s.widths) {
    const std::int64_t K = std::max<std::int64_t>(1, elements / w);
    Matrix A("A", K, w), B("B", K, w), C("C", w, w);
    Kokkos::Random_XorShift64_Pool<Exec> pool(1234 + w);
    Kokkos::fill_random(A, pool, Scalar(1));
    Kokkos::fill_random(B, pool, Scalar(1));
    Kokkos::fill_random(C, pool, Scalar(1));
    const double big = double(K) * w * sizeof(Scalar), small = double(w) * w * sizeof(Scalar);
    auto record = [&](const char* op, double t, double bytes, double peak) {
      rows.push_back({w, K, op, t, bytes / t * 1e-9, 100.0 * bytes / t * 1e-9 / peak});
    };
    record("inner", kbla_perf::median_seconds(s.reps, [&] { kbla::inner(exec, Scalar(1), A, B, Scalar(0), C); }),
           2 * big + small, bw.read_GBs);
    record("update", kbla_perf::median_seconds(s.reps, [&] { kbla::update(exec, Scalar(1), A, C, Scalar(0), B); }),
           2 * big + small, bw.copy_GBs);
    // Scale C so that repeated in-place rotations neither blow up nor vanish (orthonormal-ish columns).
    Kokkos::deep_copy(C, Scalar(0));
    Kokkos::parallel_for("identity", Kokkos::RangePolicy<Exec>(0, w), KOKKOS_LAMBDA(int i) { C(i, i) = Scalar(1); });
    record("update_in_place", kbla_perf::median_seconds(s.reps, [&] { kbla::update_in_place(exec, Scalar(1), B, C); }),
           2 * big + small, bw.copy_GBs);
    record("gemm_CN", kbla_perf::median_seconds(s.reps, [&] { kbla::gemm(exec, "C", "N", Scalar(1), A, B, Scalar(0), C); }),
           2 * big + small, bw.read_GBs);
  }
  return rows;
}

void write_json(const std::string& path, const Settings& s, const kbla_perf::Bandwidth& bw, const std::vector<Row>& rows) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write " + path);
  out << "{\n  \"program\": \"kbla_driver\",\n  \"execution_space\": \"" << Kokkos::DefaultExecutionSpace::name()
      << "\",\n  \"concurrency\": " << Kokkos::DefaultExecutionSpace().concurrency() << ",\n  \"scalar\": \""
      << s.scalar << "\",\n  \"layout\": \"" << s.layout << "\",\n  \"reps\": " << s.reps
      << ",\n  \"statistic\": \"median\",\n  \"bw_read_GBs\": " << bw.read_GBs << ",\n  \"bw_copy_GBs\": "
      << bw.copy_GBs << ",\n  \"results\": [\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    out << "    {\"op\": \"" << r.op << "\", \"width\": " << r.width << ", \"K\": " << r.K << ", \"seconds\": "
        << r.seconds << ", \"GBs\": " << r.GBs << ", \"pct_of_bandwidth\": " << r.pct << "}"
        << (i + 1 < rows.size() ? ",\n" : "\n");
  }
  out << "  ]\n}\n";
}

}  // namespace

int main(int argc, char** argv) {
  const Settings s = parse(argc, argv);
  Kokkos::initialize(argc, argv);
  int status = 0;
  try {
    using Exec = Kokkos::DefaultExecutionSpace;
    constexpr bool host = std::is_same<Exec::memory_space, Kokkos::HostSpace>::value;
    const std::int64_t elements = s.elements > 0 ? s.elements : (host ? (std::int64_t(1) << 22) : (std::int64_t(1) << 26));
    std::printf("kbla_driver on %s (concurrency %d), %s, Layout%s, ~%lld elements per block vector, median of %d\n",
                Exec::name(), Exec().concurrency(), s.scalar.c_str(), s.layout == "left" ? "Left" : "Right",
                static_cast<long long>(elements), s.reps);
    const kbla_perf::Bandwidth bw = kbla_perf::measure_bandwidth(host ? (std::int64_t(1) << 25) : (std::int64_t(1) << 28), s.reps);
    std::printf("measured bandwidth: read %.1f GB/s, copy %.1f GB/s\n", bw.read_GBs, bw.copy_GBs);
    std::vector<Row> rows;
    if (s.scalar == "double")
      rows = s.layout == "left" ? run_widths<double, Kokkos::LayoutLeft>(s, elements, bw)
                                : run_widths<double, Kokkos::LayoutRight>(s, elements, bw);
    else
      rows = s.layout == "left" ? run_widths<Kokkos::complex<double>, Kokkos::LayoutLeft>(s, elements, bw)
                                : run_widths<Kokkos::complex<double>, Kokkos::LayoutRight>(s, elements, bw);
    std::printf("%-16s %6s %12s %12s %10s %8s\n", "op", "width", "K", "time [ms]", "GB/s", "% of BW");
    for (const Row& r : rows)
      std::printf("%-16s %6d %12lld %12.3f %10.1f %7.1f%%\n", r.op.c_str(), r.width, static_cast<long long>(r.K),
                  r.seconds * 1e3, r.GBs, r.pct);
    if (!s.json.empty()) {
      write_json(s.json, s, bw, rows);
      std::printf("wrote %s\n", s.json.c_str());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kbla_driver: %s\n", e.what());
    status = 1;
  }
  Kokkos::finalize();
  return status;
}
