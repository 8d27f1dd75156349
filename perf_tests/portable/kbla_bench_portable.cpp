// kbla_bench_portable: the portable kbla::inner / kbla::update kernels against the vendor BLAS, on the default
// execution space, in one run.
//
// Times, on the same Views,
//   kbla            the public calls kbla::inner (C = A^H B), kbla::update (B = A C) and kbla::update_in_place
//                   (X <- X C), argument checks and dispatch included: on the portable path that is the route's
//                   choice (the portable kernel or KokkosBlas::gemm, measured once per class; docs/portable.md),
//                   with the CUDA kernels the CUDA selection's;
//   kbla_portable   the portable kernels called directly (src/impl), the route bypassed;
//   openblas        cblas_dgemm / cblas_zgemm on the Views' memory (host spaces; when CMake found OpenBLAS);
//   kokkosblas      KokkosBlas::gemm on the same Views (whatever BLAS TPL Kokkos Kernels has, or its own kernels),
// for M = N = w (w = 1, 2, 4, 8, 16, 32, 64), double and Kokkos::complex<double>, LayoutLeft and LayoutRight
// (the small C in the layout of A and B), alpha = 1, beta = 0. K is chosen so that the operands of a call
// (A and B) hold --mbytes MB (default 256: beyond the caches).
//
// Bandwidth: the shared probe (perf_tests/common/kbla_measured_bandwidth.hpp). GB/s counts each operand moved
// once: inner reads A and B (K (M + N) values) and is compared with the read bandwidth; update reads A and writes
// B (K (M + N) values), update_in_place reads and writes X (2 K M values); both are compared with the copy
// bandwidth (read + write). pct_bw = GB/s / that bandwidth; the probe runs before and after the products and the
// higher rate counts.
// Times: median of --reps calls after a warm-up call, per round; --rounds rounds, the implementations of a case
// taking turns within each round (so that load from other processes on a shared machine falls on all alike);
// the JSON keeps every round's median and reports the best round as GBs. A call whose warm-up takes more than a
// second is timed once (first round only).
// Correctness: every implementation's output is compared with the first one's (check_rel_diff); a difference
// above 1e-8 relative to the largest entry makes the exit status nonzero. The fill takes multiples of 2^-20 in
// [-0.5, 0.5), so in double the products and (at these sizes) the sums are exact whatever the order: the outputs
// agree bit for bit, and any wrong index or missed row shows.
//
//   kbla_bench_portable [--json FILE] [--mbytes MB] [--reps N] [--rounds R] [--widths 1,2,4]
//                       [--ops inner,update,update_in_place] [--types D,Z] [--layouts L,R] [--once NAMES]
//                       [--tuning-cache FILE]
// --once: the implementations named are timed by a single call after the warm-up, in the first round only (for a
// slow reference such as KokkosBlas' own kernels on host, so that it does not dominate the run time).
// --tuning-cache FILE: the choice-cache file of the kbla calls (TuningOptions::cache_path): a file filled by an
// earlier run makes the route read its choices instead of measuring. The JSON records per case which kernel the
// route chose for kbla ("route") and the seconds its measurement took ("route_measure_seconds").
#include <kbla.hpp>
#include <impl/kbla_inner_impl.hpp>
#include <impl/kbla_update_impl.hpp>

#include <KokkosBlas3_gemm.hpp>
#include <Kokkos_Core.hpp>

#ifdef KBLA_BENCH_HAVE_OPENBLAS
#include <cblas.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "../common/kbla_device_info.hpp"
#include "../common/kbla_measured_bandwidth.hpp"

namespace {

using Exec = Kokkos::DefaultExecutionSpace;
using Zd = Kokkos::complex<double>;

struct Settings {
  std::string json = "portable.json";
  double mbytes = 256;
  int reps = 5, rounds = 3;
  std::vector<int> widths = {1, 2, 4, 8, 16, 32, 64};
  std::vector<std::string> ops = {"inner", "update", "update_in_place"};
  std::vector<std::string> types = {"D", "Z"};
  std::vector<std::string> layouts = {"L", "R"};
  std::vector<std::string> once;  // implementations timed by one call (first round), e.g. a slow reference
  std::string tuning_cache;       // TuningOptions::cache_path of the kbla calls (empty: KBLA_TUNING_CACHE or memory)
  std::string args;
};

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "kbla_bench_portable: %s\nusage: kbla_bench_portable [--json FILE] [--mbytes MB] [--reps N] "
               "[--rounds R] [--widths 1,2,4] [--ops inner,update,update_in_place] [--types D,Z] "
               "[--layouts L,R] [--once kokkosblas] [--tuning-cache FILE]\n",
               why);
  std::exit(1);
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

Settings parse(int argc, char** argv) {
  Settings s;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--kokkos", 0) == 0) continue;  // Kokkos' own options
    if (i + 1 >= argc) usage(("missing value after " + a).c_str());
    const std::string v = argv[++i];
    s.args += (s.args.empty() ? "" : " ") + a + " " + v;
    if (a == "--json") s.json = v;
    else if (a == "--mbytes") s.mbytes = std::atof(v.c_str());
    else if (a == "--reps") s.reps = std::atoi(v.c_str());
    else if (a == "--rounds") s.rounds = std::atoi(v.c_str());
    else if (a == "--widths") {
      s.widths.clear();
      for (const auto& w : split(v)) s.widths.push_back(std::atoi(w.c_str()));
    } else if (a == "--ops") s.ops = split(v);
    else if (a == "--types") s.types = split(v);
    else if (a == "--layouts") s.layouts = split(v);
    else if (a == "--once") s.once = split(v);
    else if (a == "--tuning-cache") s.tuning_cache = v;
    else usage(("unknown option " + a).c_str());
  }
  if (s.mbytes <= 0 || s.reps < 1 || s.rounds < 1) usage("--mbytes, --reps and --rounds must be positive");
  for (int w : s.widths)
    if (w < 1) usage("widths must be >= 1");
  for (const auto& o : s.ops)
    if (o != "inner" && o != "update" && o != "update_in_place") usage(("unknown op " + o).c_str());
  for (const auto& t : s.types)
    if (t != "D" && t != "Z") usage(("unknown type " + t).c_str());
  for (const auto& l : s.layouts)
    if (l != "L" && l != "R") usage(("unknown layout " + l).c_str());
  return s;
}

// A value from its real and imaginary parts (the imaginary part dropped for real types); a function rather than
// an if constexpr inside the device lambda, which nvcc does not allow to capture.
KOKKOS_INLINE_FUNCTION void assign_value(double& out, double re, double) { out = re; }
KOKKOS_INLINE_FUNCTION void assign_value(Zd& out, double re, double im) { out = Zd(re, im); }

// A deterministic fill with multiples of 2^-20 in [-0.5, 0.5) (both parts for complex), different per matrix.
template <class View>
void fill(const View& v, std::uint64_t seed) {
  const std::int64_t rows = v.extent(0), cols = v.extent(1);
  Kokkos::parallel_for(
      "kbla_bench_portable fill", Kokkos::RangePolicy<Exec>(0, rows), KOKKOS_LAMBDA(std::int64_t k) {
        for (std::int64_t j = 0; j < cols; ++j) {
          std::uint64_t h = (std::uint64_t(k) * 0x9E3779B97F4A7C15ull) ^ (std::uint64_t(j) * 0xC2B2AE3D27D4EB4Full) ^
                            (seed * 0x165667B19E3779F9ull);
          h ^= h >> 29;
          h *= 0xBF58476D1CE4E5B9ull;
          h ^= h >> 32;
          const double re = double(h & 0xFFFFF) / double(1 << 20) - 0.5;
          const double im = double((h >> 20) & 0xFFFFF) / double(1 << 20) - 0.5;
          assign_value(v(k, j), re, im);
        }
      });
}

double magnitude(double x) { return std::fabs(x); }
double magnitude(const Zd& z) { return std::hypot(z.real(), z.imag()); }

// Largest |x - ref| over the first `rows` rows, relative to the largest |ref| there.
template <class View>
double rel_diff(const View& x, const View& ref, std::int64_t rows) {
  auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  auto hr = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ref);
  double diff = 0, scale = 0;
  rows = std::min<std::int64_t>(rows, x.extent(0));
  for (std::int64_t k = 0; k < rows; ++k)
    for (std::size_t j = 0; j < x.extent(1); ++j) {
      diff = std::max(diff, magnitude(hx(k, j) - hr(k, j)));
      scale = std::max(scale, magnitude(hr(k, j)));
    }
  return scale > 0 ? diff / scale : diff;
}

double seconds_of(const std::function<void()>& call) {
  Kokkos::fence();
  Kokkos::Timer timer;
  call();
  Kokkos::fence();
  return timer.seconds();
}

struct Timed {
  std::string name;
  std::vector<double> seconds;  // the median of each round
  double check = 0;
};

struct Case {
  std::string op, type, layout;
  int width = 0;
  std::int64_t K = 0;
  double bytes = 0;
  const char* roofline = "read";
  std::vector<Timed> impls;
  std::string note;
  std::string route = "none";        // what the portable route chose for the kbla call (none: it took another path)
  double route_measure_seconds = 0;  // time the route spent measuring this case's class
};

#ifdef KBLA_BENCH_HAVE_OPENBLAS
template <class Scalar>
void openblas_gemm(bool row_major, bool trans_a, int m, int n, int k, const Scalar* a, int lda, const Scalar* b,
                   int ldb, Scalar* c, int ldc) {
  const CBLAS_ORDER order = row_major ? CblasRowMajor : CblasColMajor;
  if constexpr (std::is_same<Scalar, double>::value) {
    cblas_dgemm(order, trans_a ? CblasTrans : CblasNoTrans, CblasNoTrans, m, n, k, 1.0, a, lda, b, ldb, 0.0, c, ldc);
  } else {
    const double one[2] = {1, 0}, zero[2] = {0, 0};
    cblas_zgemm(order, trans_a ? CblasConjTrans : CblasNoTrans, CblasNoTrans, m, n, k, one, a, lda, b, ldb, zero, c,
                ldc);
  }
}
#endif

template <class View>
int leading_dim(const View& v) {
  return static_cast<int>(std::is_same<typename View::array_layout, Kokkos::LayoutRight>::value ? v.stride(0)
                                                                                                  : v.stride(1));
}

template <class Scalar, class Layout>
void run_case(const Settings& s, Case& c) {
  using View = Kokkos::View<Scalar**, Layout, Exec::memory_space>;
  const int w = c.width;
  int K = 0;  // set below (BLAS takes int extents)
  // the OpenBLAS baseline's order (unused when the benchmark is built without OpenBLAS)
  [[maybe_unused]] const bool row_major = std::is_same<Layout, Kokkos::LayoutRight>::value;
  const double value_bytes = sizeof(Scalar);
  const Scalar one(1), zero(0);
  std::vector<std::pair<std::string, std::function<void()>>> impls;
  std::vector<std::function<double()>> checks;
  View A, B, C, X, X0;
  std::vector<View> outputs;

  if (c.op == "inner" || c.op == "update") {
    c.K = std::max<std::int64_t>(64, std::int64_t(s.mbytes * 1e6 / (2.0 * w * value_bytes)));
    c.bytes = double(c.K) * 2 * w * value_bytes;
    K = static_cast<int>(c.K);
    A = View("A", c.K, w);
    B = View("B", c.K, w);
    C = View("C", w, w);
    fill(A, 1);
    fill(B, 2);
    fill(C, 3);
  } else {
    c.K = std::max<std::int64_t>(64, std::int64_t(s.mbytes * 1e6 / (2.0 * w * value_bytes)));
    c.bytes = double(c.K) * 2 * w * value_bytes;
    X = View("X", c.K, w);
    X0 = View("X0", c.K, w);
    C = View("C", w, w);
    fill(X0, 4);
    // A rotation-like C of norm ~1 keeps X bounded over repeated in-place calls.
    fill(C, 5);
    auto hc = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), C);
    for (int i = 0; i < w; ++i)
      for (int j = 0; j < w; ++j) hc(i, j) = (i == j ? Scalar(1) : Scalar(0)) + hc(i, j) * (0.1 / w);
    Kokkos::deep_copy(C, hc);
  }
  c.roofline = c.op == "inner" ? "read" : "copy";
  Exec exec;

  auto output = [&](std::int64_t rows, int cols) {
    outputs.push_back(View("out", rows, cols));
    return outputs.back();
  };
  kbla::InnerOptions inner_options;
  inner_options.tuning.cache_path = s.tuning_cache;
  kbla::UpdateOptions update_options;
  update_options.tuning.cache_path = s.tuning_cache;
  if (c.op == "inner") {
    const View Ck = output(w, w);
    impls.emplace_back("kbla", [=] { kbla::inner(exec, one, A, B, zero, Ck, inner_options); });
    {
      const View Cp = output(w, w);
      impls.emplace_back("kbla_portable", [=] {
        kbla::Impl::InnerPortable<Exec, View, View, View>::run(exec, true, one, A, B, zero, Cp, kbla::InnerOptions());
      });
    }
#ifdef KBLA_BENCH_HAVE_OPENBLAS
    if (Kokkos::SpaceAccessibility<Kokkos::HostSpace, Exec::memory_space>::accessible) {
      const View Co = output(w, w);
      impls.emplace_back("openblas", [=] {
        openblas_gemm<Scalar>(row_major, true, w, w, K, reinterpret_cast<const Scalar*>(A.data()),
                              leading_dim(A), reinterpret_cast<const Scalar*>(B.data()), leading_dim(B),
                              reinterpret_cast<Scalar*>(Co.data()), leading_dim(Co));
      });
    }
#endif
    const View Cb = output(w, w);
    const char* trans = std::is_same<Scalar, Zd>::value ? "C" : "T";
    impls.emplace_back("kokkosblas", [=] { KokkosBlas::gemm(trans, "N", one, A, B, zero, Cb); });
  } else if (c.op == "update") {
    const View Bk = output(c.K, w);
    impls.emplace_back("kbla", [=] { kbla::update(exec, one, A, C, zero, Bk, update_options); });
    {
      const View Bp = output(c.K, w);
      impls.emplace_back("kbla_portable", [=] {
        kbla::Impl::UpdatePortable<Exec, View, View, View>::run(exec, one, A, C, zero, Bp);
      });
    }
#ifdef KBLA_BENCH_HAVE_OPENBLAS
    if (Kokkos::SpaceAccessibility<Kokkos::HostSpace, Exec::memory_space>::accessible) {
      const View Bo = output(c.K, w);
      impls.emplace_back("openblas", [=] {
        openblas_gemm<Scalar>(row_major, false, K, w, w, reinterpret_cast<const Scalar*>(A.data()),
                              leading_dim(A), reinterpret_cast<const Scalar*>(C.data()), leading_dim(C),
                              reinterpret_cast<Scalar*>(Bo.data()), leading_dim(Bo));
      });
    }
#endif
    const View Bb = output(c.K, w);
    impls.emplace_back("kokkosblas", [=] { KokkosBlas::gemm("N", "N", one, A, C, zero, Bb); });
  } else {
    // No vendor call works in place; the JSON says so. The check runs one call from X0 against update().
    impls.emplace_back("kbla", [=] { kbla::update_in_place(exec, one, X, C, update_options); });
    {
      impls.emplace_back("kbla_portable", [=] {
        kbla::Impl::UpdatePortable<Exec, View, View, View>::run(exec, one, X, C, zero, X);
      });
    }
    c.note = "in place: no vendor BLAS call overwrites its input, so none is timed";
  }

  // Correctness: one call each from the same inputs, compared with the first implementation. The first call of
  // kbla is where the route measures a new class: the counters around it say what it chose.
  std::vector<double> check(impls.size(), 0);
  const kbla::PortableRouteStats route_before = kbla::portable_route_stats();
  if (c.op == "update_in_place") {
    const View ref("ref", c.K, w);
    kbla::update(exec, one, X0, C, zero, ref);
    for (std::size_t i = 0; i < impls.size(); ++i) {
      Kokkos::deep_copy(X, X0);
      impls[i].second();
      Kokkos::fence();
      check[i] = rel_diff(X, ref, std::min<std::int64_t>(c.K, 1 << 16));
    }
  } else {
    for (std::size_t i = 0; i < impls.size(); ++i) impls[i].second();
    Kokkos::fence();
    for (std::size_t i = 1; i < impls.size(); ++i)
      check[i] = rel_diff(outputs[i], outputs[0], std::min<std::int64_t>(outputs[0].extent(0), 1 << 16));
  }
  const kbla::PortableRouteStats route_after = kbla::portable_route_stats();
  // (In place the counters also saw the reference update above, so they are not read.)
  if (c.op == "update_in_place") c.route = "portable (in place: no choice)";
  else if (route_after.kokkosblas_chosen > route_before.kokkosblas_chosen) c.route = "kokkosblas";
  else if (route_after.portable_chosen > route_before.portable_chosen) c.route = "portable";
  c.route_measure_seconds = route_after.seconds_measuring - route_before.seconds_measuring;

  for (std::size_t i = 0; i < impls.size(); ++i) c.impls.push_back({impls[i].first, {}, check[i]});
  std::vector<bool> slow(impls.size(), false);
  for (int r = 0; r < s.rounds; ++r)
    for (std::size_t i = 0; i < impls.size(); ++i) {
      if (slow[i]) continue;
      if (c.op == "update_in_place") Kokkos::deep_copy(X, X0);
      // A call slower than a second (KokkosBlas' own kernels on narrow shapes), or one named by --once, is timed
      // once, in the first round only, so that it does not hold up the run.
      const double warm = seconds_of(impls[i].second);
      if (warm > 1.0 || std::find(s.once.begin(), s.once.end(), impls[i].first) != s.once.end()) {
        slow[i] = true;
        c.impls[i].seconds.push_back(seconds_of(impls[i].second));
        continue;
      }
      std::vector<double> t;
      for (int n = 0; n < s.reps; ++n) t.push_back(seconds_of(impls[i].second));
      std::sort(t.begin(), t.end());
      c.impls[i].seconds.push_back(t[t.size() / 2]);
    }
}

double best(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }

}  // namespace

int main(int argc, char** argv) {
  const Settings s = parse(argc, argv);
  Kokkos::initialize(argc, argv);
  int status = 0;
  {
    const kbla_perf::DeviceInfo dev = kbla_perf::device_info();
    const int threads = Exec().concurrency();
#ifdef KBLA_BENCH_HAVE_OPENBLAS
    openblas_set_num_threads(threads);
    const char* openblas = "cblas_dgemm / cblas_zgemm (OpenBLAS, same thread count as Kokkos)";
#else
    const char* openblas = "not built (CMake did not find OpenBLAS)";
#endif
    const std::int64_t probe_n = std::max<std::int64_t>(1024, std::int64_t(s.mbytes * 1e6 / 16) / 1024 * 1024);
    kbla_perf::Bandwidth bw = kbla_perf::measure_bandwidth(probe_n, 10);
    const kbla_perf::Bandwidth bw_first = bw;
    std::printf("kbla_bench_portable on %s (%s, concurrency %d)\n", dev.name.c_str(), Exec::name(), threads);
    std::printf("bandwidth: read %.2f GB/s (%s), copy %.2f GB/s (%s)\nopenblas: %s\n", bw.read_GBs,
                bw.read_form.c_str(), bw.copy_GBs, bw.copy_form.c_str(), openblas);
    std::printf("%-16s %-2s %-2s %5s %12s  %s\n", "op", "T", "L", "width", "K", "GB/s (% of bandwidth) [check]");

    std::vector<Case> cases;
    for (const auto& op : s.ops)
      for (const auto& type : s.types)
        for (const auto& layout : s.layouts)
          for (int w : s.widths) {
            Case c;
            c.op = op;
            c.type = type;
            c.layout = layout;
            c.width = w;
            if (type == "D" && layout == "L") run_case<double, Kokkos::LayoutLeft>(s, c);
            if (type == "D" && layout == "R") run_case<double, Kokkos::LayoutRight>(s, c);
            if (type == "Z" && layout == "L") run_case<Zd, Kokkos::LayoutLeft>(s, c);
            if (type == "Z" && layout == "R") run_case<Zd, Kokkos::LayoutRight>(s, c);
            const double ref_bw = c.op == "inner" ? bw.read_GBs : bw.copy_GBs;
            std::printf("%-16s %-2s %-2s %5d %12lld route %-10s", op.c_str(), type.c_str(), layout.c_str(), w,
                        (long long)c.K, c.route.substr(0, c.route.find(' ')).c_str());
            for (const auto& t : c.impls) {
              const double GBs = c.bytes / best(t.seconds) * 1e-9;
              std::printf(" %s %.2f (%.0f%%)%s", t.name.c_str(), GBs, 100 * GBs / ref_bw,
                          t.check > 1e-8 ? " [CHECK FAILED]" : "");
              if (t.check > 1e-8) status = 3;
            }
            std::printf("\n");
            std::fflush(stdout);
            cases.push_back(c);
          }

    // The probe again after the products; every percentage in the JSON is against the higher of the two rates
    // (on a shared machine a probe that ran while other work was busy would flatter the kernels).
    const kbla_perf::Bandwidth bw_last = kbla_perf::measure_bandwidth(probe_n, 10);
    if (bw_last.read_GBs > bw.read_GBs) {
      bw.read_GBs = bw_last.read_GBs;
      bw.read_form = bw_last.read_form;
    }
    if (bw_last.copy_GBs > bw.copy_GBs) {
      bw.copy_GBs = bw_last.copy_GBs;
      bw.copy_form = bw_last.copy_form;
    }
    std::printf("bandwidth after the products: read %.2f GB/s, copy %.2f GB/s; the JSON uses read %.2f, copy %.2f\n",
                bw_last.read_GBs, bw_last.copy_GBs, bw.read_GBs, bw.copy_GBs);
    FILE* f = std::fopen(s.json.c_str(), "w");
    if (!f) {
      std::fprintf(stderr, "cannot write %s\n", s.json.c_str());
      status = 2;
    } else {
      std::fprintf(f, "{\n  \"benchmark\": \"kbla_bench_portable\",\n  \"args\": \"%s\",\n", s.args.c_str());
      std::fprintf(f,
                   "  \"device\": {\"name\": \"%s\", \"execution_space\": \"%s\", \"concurrency\": %d, "
                   "\"sm_clock_MHz\": %.0f, \"memory_clock_MHz\": %.0f, \"spec_bandwidth_GBs\": %.1f},\n",
                   dev.name.c_str(), Exec::name(), threads, dev.sm_clock_MHz, dev.memory_clock_MHz,
                   dev.spec_bandwidth_GBs);
      std::fprintf(f,
                   "  \"bandwidth\": {\"read_GBs\": %.3f, \"read_form\": \"%s\", \"copy_GBs\": %.3f, "
                   "\"copy_form\": \"%s\", \"probes\": \"the higher of a probe before (read %.3f, copy %.3f) and "
                   "after (read %.3f, copy %.3f) the products\"},\n",
                   bw.read_GBs, bw.read_form.c_str(), bw.copy_GBs, bw.copy_form.c_str(), bw_first.read_GBs,
                   bw_first.copy_GBs, bw_last.read_GBs, bw_last.copy_GBs);
      std::fprintf(f,
                   "  \"method\": \"median of %d calls after a warm-up, per round; %d rounds with the "
                   "implementations taking turns; GBs is the best round (calls slower than 1 s and those named by --once: "
                   "one timed call); "
                   "alpha = 1, beta = 0; M = N = width\",\n",
                   s.reps, s.rounds);
      const kbla::PortableRouteStats route = kbla::portable_route_stats();
      std::fprintf(f,
                   "  \"portable_route\": {\"classes_measured\": %lld, \"seconds_measuring\": %.4g, "
                   "\"portable_chosen\": %lld, \"kokkosblas_chosen\": %lld, \"tuning_cache\": \"%s\"},\n",
                   route.classes_measured, route.seconds_measuring, route.portable_chosen, route.kokkosblas_chosen,
                   s.tuning_cache.c_str());
      std::fprintf(f, "  \"openblas\": \"%s\",\n  \"mbytes_per_call\": %.0f,\n  \"cases\": [\n", openblas,
                   s.mbytes);
      for (std::size_t n = 0; n < cases.size(); ++n) {
        const Case& c = cases[n];
        const double ref_bw = c.op == "inner" ? bw.read_GBs : bw.copy_GBs;
        std::fprintf(f,
                     "    {\"op\": \"%s\", \"type\": \"%s\", \"layout\": \"%s\", \"width\": %d, \"K\": %lld, "
                     "\"bytes\": %.0f, \"roofline\": \"%s\", \"roofline_GBs\": %.3f, \"route\": \"%s\", "
                     "\"route_measure_seconds\": %.4g,%s%s%s\n     \"impls\": {",
                     c.op.c_str(), c.type.c_str(), c.layout == "L" ? "LayoutLeft" : "LayoutRight", c.width,
                     (long long)c.K, c.bytes, c.roofline, ref_bw, c.route.c_str(), c.route_measure_seconds,
                     c.note.empty() ? "" : " \"note\": \"", c.note.c_str(), c.note.empty() ? "" : "\",");
        for (std::size_t i = 0; i < c.impls.size(); ++i) {
          const Timed& t = c.impls[i];
          const double GBs = c.bytes / best(t.seconds) * 1e-9;
          std::fprintf(f,
                       "%s\n       \"%s\": {\"GBs\": %.3f, \"pct_bw\": %.1f, \"seconds\": %.6g, "
                       "\"check_rel_diff\": %.3g, \"GBs_rounds\": [",
                       i ? "," : "", t.name.c_str(), GBs, 100 * GBs / ref_bw, best(t.seconds), t.check);
          for (std::size_t r = 0; r < t.seconds.size(); ++r)
            std::fprintf(f, "%s%.3f", r ? ", " : "", c.bytes / t.seconds[r] * 1e-9);
          std::fprintf(f, "]}");
        }
        std::fprintf(f, "}}%s\n", n + 1 < cases.size() ? "," : "");
      }
      std::fprintf(f, "  ]\n}\n");
      std::fclose(f);
      std::printf("wrote %s\n", s.json.c_str());
    }
  }
  Kokkos::finalize();
  return status;
}
