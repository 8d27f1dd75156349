// kbla_bench_gemm_automatic: kbla::gemm with GemmAlgorithm::automatic (the fastest of classical, Strassen and
// Winograd for the shape, measured on the first call of a class) against KokkosBlas::gemm (cuBLAS on CUDA, the host
// BLAS or Kokkos Kernels' own elsewhere) in the same run, on any backend. Per shape: the vendor product's and the
// automatic product's median time, their ratio (> 1: automatic is faster), the algorithm automatic chose, and the
// first call's time (which carries the measurement). Timings alternate between the two, in an order that flips
// every round, after a second of vendor products that brings the device's clocks out of idle. Prints a table and
// optionally writes JSON (plot_automatic.py draws it).
//
//   kbla_bench_gemm_automatic [--sizes 512,1024,...] [--shapes square,rankk,panel] [--prec s,d] [--reps 5]
//                             [--rankk-k 4096] [--panel-mn 8192] [--cache FILE] [--json FILE]
//
// Shapes as kbla_bench_strassen: square n x n x n; rank-k m = n = size, k = rankk_k; panel m = n = panel_mn,
// k = size. A, B, C column-major, C = A B (alpha 1, beta 0), uniform random entries in (-1, 1).
#include <kbla.hpp>

#include "../common/kbla_device_info.hpp"

#include <KokkosBlas3_gemm.hpp>
#include <Kokkos_Core.hpp>
#include <Kokkos_Random.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using Exec = Kokkos::DefaultExecutionSpace;

struct Args {
  std::vector<long> sizes;
  std::vector<std::string> shapes{"square", "rankk", "panel"}, precisions{"s", "d"};
  int reps = 5;
  long rankk_k = 4096, panel_mn = 8192;
  double warm_up_seconds = 1.0;  // vendor products before the first shape is timed
  std::string cache, json;
};

struct Row {
  std::string precision, shape, chosen;
  long m = 0, n = 0, k = 0;
  double vendor_ms = 0, automatic_ms = 0, first_call_ms = 0;
  int calls_per_timing = 1;
};

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) out.push_back(item);
  return out;
}

[[noreturn]] void usage(const std::string& message) {
  std::fprintf(stderr,
               "kbla_bench_gemm_automatic: %s\nusage: kbla_bench_gemm_automatic [--sizes a,b,...] "
               "[--shapes square,rankk,panel] [--prec s,d] [--reps N] [--rankk-k K] [--panel-mn N] [--cache FILE] "
               "[--json FILE]\n",
               message.c_str());
  std::exit(1);
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string opt = argv[i];
    if (i + 1 >= argc) usage("missing value after " + opt);
    const std::string value = argv[++i];
    if (opt == "--sizes") {
      for (const std::string& s : split(value)) {
        const long v = std::atol(s.c_str());
        if (v < 1) usage("sizes must be positive");
        a.sizes.push_back(v);
      }
    } else if (opt == "--shapes") {
      a.shapes = split(value);
      for (const std::string& s : a.shapes)
        if (s != "square" && s != "rankk" && s != "panel") usage("unknown shape " + s);
    } else if (opt == "--prec") {
      a.precisions = split(value);
      for (const std::string& p : a.precisions)
        if (p != "s" && p != "d") usage("unknown precision " + p + " (s, d)");
    } else if (opt == "--reps") {
      a.reps = std::atoi(value.c_str());
      if (a.reps < 1) usage("--reps must be >= 1");
    } else if (opt == "--rankk-k") {
      a.rankk_k = std::atol(value.c_str());
    } else if (opt == "--panel-mn") {
      a.panel_mn = std::atol(value.c_str());
    } else if (opt == "--cache") {
      a.cache = value;
    } else if (opt == "--json") {
      a.json = value;
    } else {
      usage("unknown option " + opt);
    }
  }
  if (a.sizes.empty()) {
    const bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, Exec::memory_space>::accessible;
    a.sizes = host ? std::vector<long>{256, 512, 1024, 2048}
                   : std::vector<long>{512, 1024, 2048, 4096, 8192, 16384, 20480};
  }
  return a;
}

// The algorithm the last automatic call ran, from the counters' difference.
std::string chosen_between(const kbla::AutomaticGemmStats& before, const kbla::AutomaticGemmStats& after) {
  if (after.strassen_chosen > before.strassen_chosen) return "strassen";
  if (after.strassen2_chosen > before.strassen2_chosen) return "strassen2";
  if (after.strassen_conventional_chosen > before.strassen_conventional_chosen) return "strassen_conventional";
  if (after.strassen_conventional2_chosen > before.strassen_conventional2_chosen) return "strassen_conventional2";
  if (after.winograd_chosen > before.winograd_chosen) return "winograd";
  if (after.winograd2_chosen > before.winograd2_chosen) return "winograd2";
  return "classical";
}

// Milliseconds per call of a batch of `calls` calls issued back to back, fenced before and after. Products shorter
// than a few milliseconds are timed in batches: one fenced call of a 512^3 product on an H200 is about half launch
// and synchronisation latency, which varies by microseconds from one call to the next (single fenced calls, median
// of five, put kbla::gemm 3 us behind the vendor call there, where batches of them differ by 0.1-0.3 us).
template <class Call>
double timed_ms(const Call& call, int calls) {
  Kokkos::fence();
  Kokkos::Timer timer;
  for (int i = 0; i < calls; ++i) call();
  Kokkos::fence();
  return timer.seconds() * 1e3 / calls;
}

// Calls per batch: enough for about 5 ms, at most 1000, from one fenced call.
template <class Call>
int batch_size(const Call& call) {
  const double one = timed_ms(call, 1);
  return one >= 5.0 ? 1 : std::min(1000, int(5.0 / std::max(one, 1e-3)) + 1);
}

template <class T>
Row measure(const Args& args, const std::string& shape, long size) {
  using Matrix = Kokkos::View<T**, Kokkos::LayoutLeft, Exec::memory_space>;
  Row row;
  row.precision = sizeof(T) == 4 ? "s" : "d";
  row.shape = shape;
  row.m = row.n = row.k = size;
  if (shape == "rankk") row.k = args.rankk_k;
  if (shape == "panel") row.m = row.n = args.panel_mn;
  Matrix A("A", row.m, row.k), B("B", row.k, row.n), C("C", row.m, row.n);
  Kokkos::Random_XorShift64_Pool<Exec> pool(1234 + size);
  Kokkos::fill_random(A, pool, T(-1), T(1));
  Kokkos::fill_random(B, pool, T(-1), T(1));
  kbla::GemmOptions automatic;
  automatic.algorithm = kbla::GemmAlgorithm::automatic;
  automatic.tuning.cache_path = args.cache;
  const Exec exec;
  const auto vendor = [&] { KokkosBlas::gemm("N", "N", T(1), A, B, T(0), C); };
  const auto fastest = [&] { kbla::gemm(exec, "N", "N", T(1), A, B, T(0), C, automatic); };
  vendor();  // the vendor library's one-time costs (handle, modules) before anything is timed
  Kokkos::fence();
  if (args.warm_up_seconds > 0) {  // the first shape of the run: the device's clocks out of idle first
    Kokkos::Timer warm;
    while (warm.seconds() < args.warm_up_seconds) timed_ms(vendor, 1);
  }
  const kbla::AutomaticGemmStats before = kbla::automatic_gemm_stats();
  Kokkos::Timer first;
  fastest();  // measures the class unless the cache has it
  Kokkos::fence();
  row.first_call_ms = first.seconds() * 1e3;
  row.chosen = chosen_between(before, kbla::automatic_gemm_stats());
  // Alternating rounds, so that both see the same clocks and load; the order flips every round, so that a clock
  // still moving favours neither.
  std::vector<double> tv, ta;
  const int calls = batch_size(vendor);
  row.calls_per_timing = calls;
  for (int r = 0; r < args.reps; ++r) {
    if (r % 2 == 0) {
      tv.push_back(timed_ms(vendor, calls));
      ta.push_back(timed_ms(fastest, calls));
    } else {
      ta.push_back(timed_ms(fastest, calls));
      tv.push_back(timed_ms(vendor, calls));
    }
  }
  std::sort(tv.begin(), tv.end());
  std::sort(ta.begin(), ta.end());
  row.vendor_ms = tv[tv.size() / 2];
  row.automatic_ms = ta[ta.size() / 2];
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  Args args = parse(argc, argv);
  const kbla_perf::DeviceInfo device = kbla_perf::device_info();
  std::printf("kbla::gemm (GemmAlgorithm::automatic) against KokkosBlas::gemm on %s (%s)\n", device.name.c_str(),
              Exec::name());
  std::printf("%-4s %-7s %7s %7s %7s %11s %11s %7s %-10s %12s\n", "prec", "shape", "m", "n", "k", "vendor_ms",
              "auto_ms", "ratio", "chosen", "first_ms");
  std::vector<Row> rows;
  for (const std::string& p : args.precisions)
    for (const std::string& shape : args.shapes)
      for (const long size : args.sizes) {
        const Row r = p == "s" ? measure<float>(args, shape, size) : measure<double>(args, shape, size);
        args.warm_up_seconds = 0;
        rows.push_back(r);
        std::printf("%-4s %-7s %7ld %7ld %7ld %11.3f %11.3f %7.3f %-10s %12.1f\n", r.precision.c_str(),
                    r.shape.c_str(), r.m, r.n, r.k, r.vendor_ms, r.automatic_ms, r.vendor_ms / r.automatic_ms,
                    r.chosen.c_str(), r.first_call_ms);
        std::fflush(stdout);
      }
  const kbla::AutomaticGemmStats stats = kbla::automatic_gemm_stats();
  std::printf("classes measured %lld in %.2f s\n", stats.classes_measured, stats.seconds_measuring);
  if (!args.json.empty()) {
    std::ofstream out(args.json);
    if (!out) {
      std::fprintf(stderr, "kbla_bench_gemm_automatic: cannot write %s\n", args.json.c_str());
      return 1;
    }
    out << "{\n  \"benchmark\": \"kbla_bench_gemm_automatic\",\n  \"device\": {\"name\": \"" << device.name
        << "\", \"execution_space\": \"" << Exec::name() << "\", \"sm_clock_MHz\": " << device.sm_clock_MHz
        << ", \"memory_clock_MHz\": " << device.memory_clock_MHz << "},\n"
        << "  \"timing\": \"milliseconds per product, median of alternating rounds (order flipped every round; first a "
           "second of vendor products), each a batch of calls_per_timing products between two fences (about 5 ms); "
           "ratio = vendor / automatic\",\n"
        << "  \"classes_measured\": " << stats.classes_measured << ", \"seconds_measuring\": "
        << stats.seconds_measuring << ",\n  \"results\": [\n";
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const Row& r = rows[i];
      out << "    {\"precision\": \"" << r.precision << "\", \"shape\": \"" << r.shape << "\", \"m\": " << r.m
          << ", \"n\": " << r.n << ", \"k\": " << r.k << ", \"vendor_ms\": " << r.vendor_ms
          << ", \"automatic_ms\": " << r.automatic_ms << ", \"ratio\": " << r.vendor_ms / r.automatic_ms
          << ", \"algorithm\": \"auto\", \"chosen\": \"" << r.chosen << "\", \"first_call_ms\": " << r.first_call_ms
          << ", \"calls_per_timing\": " << r.calls_per_timing
          << ", \"vendor_tflops\": " << 2.0 * r.m * r.n * r.k / (r.vendor_ms * 1e-3) * 1e-12
          << ", \"automatic_tflops\": " << 2.0 * r.m * r.n * r.k / (r.automatic_ms * 1e-3) * 1e-12 << "}"
          << (i + 1 < rows.size() ? "," : "") << "\n";
    }
    out << "  ]\n}\n";
  }
  return 0;
}
