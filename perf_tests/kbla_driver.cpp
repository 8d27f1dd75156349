// kbla_driver: the library's main job on the default device. Measures the device's read and copy bandwidth
// with the probe the benchmarks share (common/kbla_measured_bandwidth.hpp), then times kbla::inner (C = A^H B),
// kbla::update (B = A C), the in-place update (X <- X C) and kbla::gemm("C", "N") on tall & skinny block vectors,
// and beside each the vendor product in the same run: cuBLAS called directly on Kokkos' stream when the library
// has its CUDA kernels, KokkosBlas::gemm otherwise. Prints GB/s and % of the measured bandwidth (inner reads A and
// B, so it is held to the read bandwidth; update reads A and writes B, so it is held to the copy bandwidth).
// The probe runs before and again after the products; the higher rate counts.
//
//   kbla_driver [--elements E] [--widths 1,2,4,8,16,32,64] [--reps R] [--layout left|right]
//               [--scalar double|complex] [--json FILE]
// Each block vector holds about E elements (K = E / width rows). One sample is 4 calls back to back followed by a
// fence, divided by 4 (so the fence's latency does not count against small calls); the median of R samples after
// one warm-up.
#include <kbla.hpp>
#include "common/kbla_device_info.hpp"
#include "common/kbla_measured_bandwidth.hpp"
#include "driver/kbla_driver_vendor.hpp"

#include <Kokkos_Core.hpp>
#include <Kokkos_Random.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
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
  if (s.widths.empty()) usage("--widths needs at least one width");
  for (int w : s.widths)
    if (w < 1) usage("widths must be at least 1");
  return s;
}

// One op at one width: the library's time and, where the vendor library has the same product, the vendor's.
struct Row {
  int width;
  std::int64_t K;
  std::string op;
  double bytes, roof_GBs;  // minimum traffic, and the bandwidth it is held to
  double kbla_s, vendor_s;  // vendor_s < 0: no vendor counterpart
  double GBs(double s) const { return bytes / s * 1e-9; }
  double pct(double s) const { return 100.0 * GBs(s) / roof_GBs; }
};

constexpr int kCallsPerSample = 4;

template <class Call>
double sample_median(int reps, Call&& call) {
  return kbla_perf::median_seconds(reps, [&] {
           for (int i = 0; i < kCallsPerSample; ++i) call();
         }) /
         kCallsPerSample;
}

template <class Scalar, class Layout>
std::vector<Row> run_widths(const Settings& s, std::int64_t elements, const kbla_perf::Bandwidth& bw) {
  using Exec = Kokkos::DefaultExecutionSpace;
  using Matrix = Kokkos::View<Scalar**, Layout, Exec::memory_space>;
  std::vector<Row> rows;
  const Exec exec;
  kbla_driver::Vendor<Exec> vendor(exec);
  for (int w : s.widths) {
    const std::int64_t K = std::max<std::int64_t>(1, elements / w);
    Matrix A("A", K, w), B("B", K, w), C("C", w, w);
    Kokkos::Random_XorShift64_Pool<Exec> pool(1234 + w);
    Kokkos::fill_random(A, pool, Scalar(1));
    Kokkos::fill_random(B, pool, Scalar(1));
    Kokkos::fill_random(C, pool, Scalar(1));
    const double big = double(K) * w * sizeof(Scalar), small = double(w) * w * sizeof(Scalar);
    const double traffic = 2 * big + small;
    const Scalar one(1), zero(0);
    auto time = [&](auto&& call) { return sample_median(s.reps, call); };

    const double inner_vendor = time([&] { vendor.inner(A, B, C); });
    const double inner_kbla = time([&] { kbla::inner(exec, one, A, B, zero, C); });
    rows.push_back({w, K, "inner", traffic, bw.read_GBs, inner_kbla, inner_vendor});
    const double update_vendor = time([&] { vendor.update(A, C, B); });
    const double update_kbla = time([&] { kbla::update(exec, one, A, C, zero, B); });
    rows.push_back({w, K, "update", traffic, bw.copy_GBs, update_kbla, update_vendor});
    // An identity C keeps repeated in-place rotations from blowing up or vanishing.
    Kokkos::deep_copy(C, zero);
    Kokkos::parallel_for("identity", Kokkos::RangePolicy<Exec>(0, w), KOKKOS_LAMBDA(int i) { C(i, i) = Scalar(1); });
    const double in_place = time([&] { kbla::update_in_place(exec, one, B, C); });
    rows.push_back({w, K, "update_in_place", traffic, bw.copy_GBs, in_place, -1});
    const double gemm_kbla = time([&] { kbla::gemm(exec, "C", "N", one, A, B, zero, C); });
    rows.push_back({w, K, "gemm_CN", traffic, bw.read_GBs, gemm_kbla, inner_vendor});
  }
  return rows;
}

std::string json_string(const std::string& v) {
  std::string out = "\"";
  for (char c : v) out += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  return out + "\"";
}

void write_json(const std::string& path, const Settings& s, const kbla_perf::Bandwidth& bw,
                const kbla_perf::DeviceInfo& device, const std::vector<Row>& rows) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write " + path);
  std::time_t now = std::time(nullptr);
  char stamp[64];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  out << "{\n  \"program\": \"kbla_driver\",\n  \"date\": " << json_string(stamp)
      << ",\n  \"device\": {\"name\": " << json_string(device.name)
      << ", \"execution_space\": " << json_string(Kokkos::DefaultExecutionSpace::name())
      << ", \"concurrency\": " << Kokkos::DefaultExecutionSpace().concurrency()
      << ", \"sm_clock_max_MHz\": " << device.sm_clock_MHz << ", \"memory_clock_max_MHz\": "
      << device.memory_clock_MHz << ", \"spec_bandwidth_GBs\": " << device.spec_bandwidth_GBs << "},\n"
      << "  \"scalar\": " << json_string(s.scalar) << ",\n  \"layout\": " << json_string(s.layout)
      << ",\n  \"reps\": " << s.reps << ",\n  \"calls_per_sample\": " << kCallsPerSample
      << ",\n  \"statistic\": \"median\",\n  \"bw_read_GBs\": " << bw.read_GBs
      << ",\n  \"bw_copy_GBs\": " << bw.copy_GBs << ",\n  \"bw_probe\": "
      << json_string("read: " + bw.read_form + "; copy: " + bw.copy_form)
      << ",\n  \"vendor\": " << json_string(kbla_driver::Vendor<Kokkos::DefaultExecutionSpace>::name())
      << ",\n  \"pct_note\": \"% of the measured bandwidth: inner and gemm_CN of the read rate, update and "
         "update_in_place of the copy rate; bytes = A and B once plus C\",\n  \"results\": [\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    out << "    {\"op\": \"" << r.op << "\", \"width\": " << r.width << ", \"K\": " << r.K << ", \"bytes\": " << r.bytes
        << ", \"kbla\": {\"seconds\": " << r.kbla_s << ", \"GBs\": " << r.GBs(r.kbla_s)
        << ", \"pct_of_bandwidth\": " << r.pct(r.kbla_s) << "}";
    if (r.vendor_s > 0)
      out << ", \"vendor\": {\"seconds\": " << r.vendor_s << ", \"GBs\": " << r.GBs(r.vendor_s)
          << ", \"pct_of_bandwidth\": " << r.pct(r.vendor_s) << "}, \"ratio_vs_vendor\": " << r.vendor_s / r.kbla_s;
    out << "}" << (i + 1 < rows.size() ? ",\n" : "\n");
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
    const kbla_perf::DeviceInfo device = kbla_perf::device_info();
    std::printf("kbla_driver on %s (%s, concurrency %d), %s, Layout%s, ~%lld elements per block vector, median of %d\n",
                device.name.c_str(), Exec::name(), Exec().concurrency(), s.scalar.c_str(),
                s.layout == "left" ? "Left" : "Right", static_cast<long long>(elements), s.reps);
    kbla_perf::Bandwidth bw =
        kbla_perf::measure_bandwidth(host ? (std::int64_t(1) << 25) : (std::int64_t(1) << 28), s.reps);
    std::printf("measured bandwidth: read %.1f GB/s (%s), copy %.1f GB/s (%s)", bw.read_GBs, bw.read_form.c_str(),
                bw.copy_GBs, bw.copy_form.c_str());
    if (device.spec_bandwidth_GBs > 0) std::printf("; memory's specified peak %.0f GB/s", device.spec_bandwidth_GBs);
    std::printf("\n");
    std::vector<Row> rows;
    // The GPU's streaming rate drifts up while it works, so the probe runs again after the products and the
    // higher of the two rates is the bandwidth every row is held to.
    auto probe_again = [&](std::vector<Row>& measured) {
      const kbla_perf::Bandwidth after =
          kbla_perf::measure_bandwidth(host ? (std::int64_t(1) << 25) : (std::int64_t(1) << 28), s.reps);
      std::printf("measured bandwidth after the products: read %.1f GB/s, copy %.1f GB/s\n", after.read_GBs,
                  after.copy_GBs);
      if (after.read_GBs > bw.read_GBs) bw.read_GBs = after.read_GBs, bw.read_form = after.read_form + " (after)";
      if (after.copy_GBs > bw.copy_GBs) bw.copy_GBs = after.copy_GBs, bw.copy_form = after.copy_form + " (after)";
      for (Row& r : measured) r.roof_GBs = (r.op == "inner" || r.op == "gemm_CN") ? bw.read_GBs : bw.copy_GBs;
    };
    if (s.scalar == "double")
      rows = s.layout == "left" ? run_widths<double, Kokkos::LayoutLeft>(s, elements, bw)
                                : run_widths<double, Kokkos::LayoutRight>(s, elements, bw);
    else
      rows = s.layout == "left" ? run_widths<Kokkos::complex<double>, Kokkos::LayoutLeft>(s, elements, bw)
                                : run_widths<Kokkos::complex<double>, Kokkos::LayoutRight>(s, elements, bw);
    probe_again(rows);
    const std::string vendor = kbla_driver::Vendor<Exec>::short_name();
    std::printf("%-16s %6s %10s | %10s %9s %8s | %10s %9s %8s | %s\n", "op", "width", "K", "kbla [ms]", "GB/s",
                "% of BW", (vendor + " [ms]").c_str(), "GB/s", "% of BW", "kbla speed-up");
    bool above_probe = false;
    for (const Row& r : rows) {
      std::printf("%-16s %6d %10lld | %10.3f %9.1f %7.1f%% |", r.op.c_str(), r.width, static_cast<long long>(r.K),
                  r.kbla_s * 1e3, r.GBs(r.kbla_s), r.pct(r.kbla_s));
      if (r.vendor_s > 0)
        std::printf(" %10.3f %9.1f %7.1f%% | %.2fx\n", r.vendor_s * 1e3, r.GBs(r.vendor_s), r.pct(r.vendor_s),
                    r.vendor_s / r.kbla_s);
      else
        std::printf(" %10s %9s %8s | %s\n", "-", "-", "-", "-");
      above_probe = above_probe || r.pct(r.kbla_s) > 100.0 || (r.vendor_s > 0 && r.pct(r.vendor_s) > 100.0);
    }
    if (above_probe)
      std::printf("note: a product streamed faster than the bandwidth probe; its %% figures are against a rate "
                  "that is not this device's best\n");
    if (!s.json.empty()) {
      write_json(s.json, s, bw, device, rows);
      std::printf("wrote %s\n", s.json.c_str());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kbla_driver: %s\n", e.what());
    status = 1;
  }
  Kokkos::finalize();
  return status;
}
