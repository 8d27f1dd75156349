// kbla_eigen_driver: the k largest or smallest eigenpairs of a symmetric sparse matrix by kbla::eigen (thick-restart
// block Lanczos) on the default execution space. Reads a MatrixMarket file or builds the 3D Laplacian of size n^3,
// prints progress per restart, the eigenvalues with their residuals, the time by phase (SpMV, orthogonalisation,
// Rayleigh-Ritz; fenced), and writes JSON. Exit status: 0 success, 1 bad input / usage, 2 not converged or
// (with --check-analytic) an eigenvalue off its analytic value, 3 unexpected failure.
#include <kbla_solvers.hpp>

#include "matrix_market.hpp"
#if KBLA_ENABLE_CUDA
#include <kbla_cuda_tall_skinny.hpp>  // tall_skinny_tuning_stats: what the kernel selection cost the first solve
#endif
#include "../common/kbla_device_info.hpp"
#include "driver_text.hpp"
#include "../common/kbla_measured_bandwidth.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using namespace kbla_eigen_driver;

using Exec = Kokkos::DefaultExecutionSpace;
using Crs = KokkosSparse::CrsMatrix<double, int, Exec>;

const char* const kUsage =
    "usage: kbla_eigen_driver (--laplacian N | --matrix FILE.mtx) [options]\n"
    "  --laplacian N       3D Laplacian (7-point, Dirichlet) on an N x N x N grid (N^3 rows)\n"
    "  --matrix FILE       MatrixMarket coordinate file, real symmetric (general files must be symmetric)\n"
    "  -k, --nev K         number of eigenpairs (default 16)\n"
    "  -s, --block S       block size, >= the largest wanted multiplicity (default 8)\n"
    "  -m, --blocks M      basis of M*S vectors (default: auto, ceil(2K/S) + 8)\n"
    "  --tol T             relative residual ||Ax - lambda x|| / |lambda| (default 1e-10)\n"
    "  --which W           largest | smallest (algebraic; default largest)\n"
    "  --max-restarts R    give up after R restarts (default 2000)\n"
    "  --seed N            starting block seed (default 1)\n"
    "  --spmm S            operator: rowwise (the library's CRS operator: one thread per row, 8 block columns\n"
    "                      per pass; default) or kokkos (KokkosSparse::spmv on the block)\n"
    "  --bcgs2             orthogonalise every step by BCGS2 + CholQR2 over the whole basis (no local projection;\n"
    "                      the scheme before the one-pass test, for comparison)\n"
    "  --chebyshev D       Chebyshev acceleration of degree D (odd, >= 3; 0 = off): block Lanczos on a polynomial\n"
    "                      filter p(A) after one plain basis fill (EigenOptions::chebyshev_degree; default: its default)\n"
    "  --no-overlap        solve Rayleigh-Ritz's dense eigenproblem after each filling step, not during it on a\n"
    "                      host thread (EigenOptions::overlap_rayleigh_ritz = false), for comparison\n"
    "  --json FILE         write the results as JSON\n"
    "  --check-analytic    (Laplacian) exit 2 unless every value is within 1e-10 relative of the analytic one\n"
    "  --quiet             no per-restart progress\n"
    "  --cold              time the first solve of the process only (default: a first solve, reported as\n"
    "                      'first solve', then the timed one: the first carries the one-time kernel selection,\n"
    "                      which a choice cache on disk (KBLA_TUNING_CACHE) saves in later processes)\n"
    "  Kokkos options (--kokkos-...) are passed to Kokkos::initialize.\n";

struct Args {
  int laplacian = 0;
  std::string matrix;
  int nev = 16, block = 8, blocks = 0, max_restarts = 2000;
  double tol = 1e-10;
  std::string which = "largest";
  std::uint64_t seed = 1;
  std::string json;
  bool check_analytic = false, quiet = false, bcgs2 = false, cold = false, no_overlap = false;
  std::string spmm = "rowwise";
  int chebyshev = kbla::EigenOptions().chebyshev_degree;
};


Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string opt = argv[i];
    if (opt.rfind("--kokkos-", 0) == 0) continue;
    if (opt == "-h" || opt == "--help") {
      std::cout << kUsage;
      std::exit(0);
    }
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw UsageError(opt + " needs a value");
      return argv[++i];
    };
    if (opt == "--laplacian") {
      const long n = parse_int(opt, value());
      if (n < 1 || n > 1200) throw UsageError("--laplacian N must be between 1 and 1200, got " + std::to_string(n));
      a.laplacian = int(n);
    } else if (opt == "--matrix") {
      a.matrix = value();
    } else if (opt == "-k" || opt == "--nev") {
      a.nev = int(parse_int(opt, value()));
      if (a.nev < 1) throw UsageError("k (" + opt + ") must be at least 1");
    } else if (opt == "-s" || opt == "--block") {
      a.block = int(parse_int(opt, value()));
      if (a.block < 1) throw UsageError("block size (" + opt + ") must be at least 1, got " + std::to_string(a.block));
    } else if (opt == "-m" || opt == "--blocks") {
      a.blocks = int(parse_int(opt, value()));
      if (a.blocks < 0) throw UsageError(opt + " must be >= 0 (0 = automatic)");
    } else if (opt == "--tol") {
      a.tol = parse_double(opt, value());
      if (!(a.tol > 0) || !std::isfinite(a.tol)) throw UsageError("--tol must be a positive number");
    } else if (opt == "--which") {
      a.which = value();
      if (a.which != "largest" && a.which != "smallest")
        throw UsageError("--which must be 'largest' or 'smallest', got '" + a.which + "'");
    } else if (opt == "--max-restarts") {
      a.max_restarts = int(parse_int(opt, value()));
      if (a.max_restarts < 0) throw UsageError("--max-restarts must be >= 0");
    } else if (opt == "--seed") {
      a.seed = std::uint64_t(parse_int(opt, value()));
    } else if (opt == "--spmm") {
      a.spmm = value();
      if (a.spmm != "kokkos" && a.spmm != "rowwise")
        throw UsageError("--spmm must be 'kokkos' or 'rowwise', got '" + a.spmm + "'");
    } else if (opt == "--chebyshev") {
      a.chebyshev = int(parse_int(opt, value()));
      if (a.chebyshev != 0 && (a.chebyshev < 3 || a.chebyshev % 2 == 0 || a.chebyshev > 99))
        throw UsageError("--chebyshev must be 0 (off) or an odd degree from 3 to 99, got " + std::to_string(a.chebyshev));
    } else if (opt == "--bcgs2") {
      a.bcgs2 = true;
    } else if (opt == "--no-overlap") {
      a.no_overlap = true;
    } else if (opt == "--json") {
      a.json = value();
    } else if (opt == "--check-analytic") {
      a.check_analytic = true;
    } else if (opt == "--quiet") {
      a.quiet = true;
    } else if (opt == "--cold") {
      a.cold = true;
    } else {
      throw UsageError("unknown option '" + opt + "'");
    }
  }
  if ((a.laplacian > 0) == !a.matrix.empty())
    throw UsageError("give exactly one of --laplacian N and --matrix FILE");
  if (a.check_analytic && a.laplacian == 0) throw UsageError("--check-analytic needs --laplacian");
  return a;
}

Crs to_crs(const kbla_driver::CooMatrix& m) {
  using RowMap = Crs::row_map_type::non_const_type;
  const std::int64_t nnz = std::int64_t(m.val.size());
  RowMap rowmap("rowmap", m.rows + 1);
  Crs::index_type::non_const_type entries("entries", nnz);
  Crs::values_type::non_const_type values("values", nnz);
  auto rh = Kokkos::create_mirror_view(rowmap);
  auto eh = Kokkos::create_mirror_view(entries);
  auto vh = Kokkos::create_mirror_view(values);
  for (std::int64_t r = 0; r <= m.rows; ++r) rh(r) = Crs::size_type(m.row_ptr[std::size_t(r)]);
  for (std::int64_t e = 0; e < nnz; ++e) {
    eh(e) = m.col[std::size_t(e)];
    vh(e) = m.val[std::size_t(e)];
  }
  Kokkos::deep_copy(rowmap, rh);
  Kokkos::deep_copy(entries, eh);
  Kokkos::deep_copy(values, vh);
  return Crs("matrix", int(m.rows), int(m.cols), Crs::size_type(nnz), values, rowmap, entries);
}


int run(const Args& args) {
  const Exec exec;
  // The problem.
  Crs A;
  std::string problem;
  std::vector<double> analytic;
  const auto t_setup = std::chrono::steady_clock::now();
  if (args.laplacian > 0) {
    A = kbla::laplacian_3d<Crs>(args.laplacian);
    problem = "3D Laplacian n=" + std::to_string(args.laplacian);
    analytic = kbla::laplacian_3d_eigenvalues(args.laplacian);
    if (args.which == "largest") std::reverse(analytic.begin(), analytic.end());
  } else {
    A = to_crs(kbla_driver::read_matrix_market(args.matrix));
    problem = args.matrix;
  }
  const double setup_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_setup).count();
  const std::int64_t n = A.numRows();
  if (args.nev > n) {
    std::ostringstream os;
    os << "k = " << args.nev << " eigenpairs requested but the matrix has only n = " << n << " rows";
    throw std::invalid_argument(os.str());
  }

  kbla::EigenOptions opt;
  opt.nev = args.nev;
  opt.block_size = args.block;
  opt.num_blocks = args.blocks;
  opt.tol = args.tol;
  opt.which = args.which == "largest" ? kbla::EigenWhich::largest : kbla::EigenWhich::smallest;
  opt.max_restarts = args.max_restarts;
  opt.seed = args.seed;
  opt.overlap_rayleigh_ritz = !args.no_overlap;
  opt.chebyshev_degree = args.chebyshev;
  if (args.bcgs2) {
    opt.local_projection = false;
    opt.ortho.one_pass_ratio = 0;
  }
  std::printf("kbla_eigen_driver: %s, %lld rows, %lld nonzeros, on %s (concurrency %d), setup %.3f s\n",
              problem.c_str(), (long long)n, (long long)A.nnz(), Exec::name(), exec.concurrency(), setup_s);
  std::printf("  k = %d %s, block size %d, tol %.1e\n", args.nev, args.which.c_str(), args.block, args.tol);
  if (!args.quiet)
    opt.progress = [](const kbla::EigenProgress& p) {
      std::printf("  restart %4d: converged %3d/%d  max residual %.2e  elapsed %.3f s\n", p.restart + 1, p.converged,
                  p.nev, p.max_residual, p.elapsed);
      std::fflush(stdout);
    };

  auto solve = [&](const kbla::EigenOptions& o) {
    return args.spmm == "kokkos" ? kbla::eigen<double>(exec, kbla::CrsOperator<Crs>{A}, std::int64_t(n), o)
                                 : kbla::eigen(exec, A, o);
  };
  // The first solve of a process also pays the one-time costs: the tall & skinny kernel selection measures each new
  // call class once (unless a choice cache on disk has it), libraries load their modules and create handles. It is
  // run and reported apart, so that the timed solve shows the steady state a solver in a longer run sees.
  double first_solve_s = -1;
  // The measured kernel selection's share of the first solve: classes timed and the seconds spent timing them (the
  // CUDA kernels' selection and the portable route's), from the libraries' own counters.
  long long selection_classes = 0;
  double selection_seconds = 0;
  auto selection_totals = [](long long& classes, double& seconds) {
    const kbla::PortableRouteStats route = kbla::portable_route_stats();
    classes = route.classes_measured;
    seconds = route.seconds_measuring;
#if KBLA_ENABLE_CUDA
    const kbla::cuda::TallSkinnyTuningStats cuda = kbla::cuda::tall_skinny_tuning_stats();
    classes += cuda.classes_measured;
    seconds += cuda.seconds_measuring;
#endif
  };
  long long classes0 = 0;
  double seconds0 = 0;
  selection_totals(classes0, seconds0);
  auto selection_since_start = [&] {  // the first solve of the process: the warm-up one, or the timed one with --cold
    selection_totals(selection_classes, selection_seconds);
    selection_classes -= classes0;
    selection_seconds -= seconds0;
  };
  if (!args.cold) {
    kbla::EigenOptions quiet = opt;
    quiet.progress = nullptr;
    const auto t0 = std::chrono::steady_clock::now();
    const auto first = solve(quiet);
    first_solve_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    selection_since_start();
    std::printf("  first solve: %.3f s (%d restarts; the one-time kernel selection included: %lld classes measured in "
                "%.3f s), then the timed solve:\n",
                first_solve_s, first.restarts, selection_classes, selection_seconds);
  }
  const auto r = solve(opt);
  if (args.cold) {
    selection_since_start();
    std::printf("  first solve of the process: the one-time kernel selection measured %lld classes in %.3f s\n",
                selection_classes, selection_seconds);
  }

  if (r.chebyshev_degree > 0)
    std::printf("  Chebyshev filter of degree %d on [%.6g, %.6g] after one plain basis fill\n", r.chebyshev_degree,
                r.filter_lower, r.filter_upper);
  std::printf("  basis %d (+%d) vectors%s, %d restarts, %d block iterations, %ld operator applications (vectors)\n",
              r.basis_size, r.block_size, r.dense ? " (dense fallback)" : "", r.restarts, r.iterations,
              r.operator_applications);
  std::printf("\n     i            eigenvalue   rel. residual");
  if (!analytic.empty()) std::printf("              analytic   rel. error");
  std::printf("\n");
  double max_err = 0, max_res = 0;
  std::vector<double> errors;
  for (int i = 0; i < args.nev; ++i) {
    const double l = r.eigenvalues[i];
    max_res = std::max(max_res, r.residuals[i]);
    std::printf("  %4d  %20.15f  %14.3e", i, l, r.residuals[i]);
    if (!analytic.empty()) {
      const double e = std::abs(l - analytic[i]) / std::abs(analytic[i]);
      errors.push_back(e);
      max_err = std::max(max_err, e);
      std::printf("  %20.15f  %11.3e", analytic[i], e);
    }
    std::printf("\n");
  }
  const auto& t = r.timings;
  const double other = std::max(0.0, t.total - t.operator_apply - t.ortho - t.rayleigh_ritz - t.residuals);
  const double ortho_gbs = t.ortho > 0 ? t.ortho_bytes / t.ortho / 1e9 : 0;
  // The roofline of the orthogonalisation is the device's read bandwidth (its traffic is mostly reads of the
  // basis), measured here after the solve with the probe kbla_driver and the benchmarks share.
  constexpr bool host_space = std::is_same<Exec::memory_space, Kokkos::HostSpace>::value;
  const kbla_perf::Bandwidth bw =
      kbla_perf::measure_bandwidth(host_space ? (std::int64_t(1) << 24) : (std::int64_t(1) << 27), host_space ? 5 : 10);
  const double ortho_pct = bw.read_GBs > 0 ? 100 * ortho_gbs / bw.read_GBs : 0;
  std::printf("\n  time %.3f s%s: SpMV %.3f s (%.0f%%), orthogonalization %.3f s (%.0f%%, %.1f GB/s minimum traffic), "
              "Rayleigh-Ritz %.3f s (%.0f%%; restart basis update %.3f s, %.1f GB/s minimum traffic), residuals %.3f s, "
              "other %.3f s\n",
              t.total, args.cold ? " (first solve)" : "", t.operator_apply, 100 * t.operator_apply / t.total, t.ortho,
              100 * t.ortho / t.total,
              ortho_gbs, t.rayleigh_ritz, 100 * t.rayleigh_ritz / t.total, t.restart_rotation,
              t.restart_rotation > 0 ? t.restart_bytes / t.restart_rotation / 1e9 : 0.0, t.residuals, other);
  std::printf("  Rayleigh-Ritz host part %.3f s; the dense eigenproblems took %.3f s (%.0f us per restart)%s\n",
              t.rayleigh_ritz - t.restart_rotation, t.projected_eigen,
              r.restarts > 0 ? 1e6 * t.projected_eigen / r.restarts : 0.0,
              opt.overlap_rayleigh_ritz && !host_space && kbla::Impl::usable_host_cpus() > 1
                  ? ", on a host thread while the device finished each filling step"
                                                       : "");
  std::printf("  orthogonalization at %.0f %% of the measured read bandwidth (%.1f GB/s; copy %.1f GB/s)\n", ortho_pct,
              bw.read_GBs, bw.copy_GBs);
  std::printf("  converged: %s, max relative residual %.2e", r.converged ? "yes" : "NO", max_res);
  if (!analytic.empty()) std::printf(", max relative error vs analytic %.2e", max_err);
  std::printf("\n");

  if (!args.json.empty()) {
    std::ofstream out(args.json);
    if (!out) throw std::runtime_error("cannot write JSON file '" + args.json + "'");
    std::time_t now = std::time(nullptr);
    char stamp[64];
    std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    out << "{\n  \"program\": \"kbla_eigen_driver\",\n  \"date\": " << json_string(stamp)
        << ",\n  \"device\": {\"name\": " << json_string(kbla_perf::device_info().name)
        << ", \"execution_space\": " << json_string(Exec::name())
        << ", \"concurrency\": " << exec.concurrency() << "},\n"
        << "  \"problem\": {\"name\": " << json_string(problem) << ", \"rows\": " << n << ", \"nnz\": " << A.nnz()
        << ", \"laplacian_n\": " << args.laplacian << "},\n"
        << "  \"options\": {\"k\": " << args.nev << ", \"which\": " << json_string(args.which)
        << ", \"block_size\": " << args.block << ", \"num_blocks\": " << args.blocks
        << ", \"basis_size\": " << r.basis_size << ", \"tol\": " << json_number(args.tol)
        << ", \"max_restarts\": " << args.max_restarts << ", \"seed\": " << args.seed
        << ", \"orthogonalization\": " << json_string(args.bcgs2 ? "bcgs2" : "local + one-pass")
        << ", \"spmm\": " << json_string(args.spmm) << ", \"chebyshev_degree\": " << args.chebyshev
        << ", \"overlap_rayleigh_ritz\": " << (opt.overlap_rayleigh_ritz ? "true" : "false") << "},\n"
        << "  \"converged\": " << (r.converged ? "true" : "false") << ",\n  \"dense_fallback\": "
        << (r.dense ? "true" : "false") << ",\n  \"restarts\": " << r.restarts
        << ",\n  \"iterations\": " << r.iterations << ",\n  \"operator_applications\": " << r.operator_applications
        << ",\n  \"operator_calls\": " << r.operator_calls << ",\n  \"chebyshev_degree_used\": " << r.chebyshev_degree
        << ",\n  \"filter_interval\": [" << json_number(r.filter_lower) << ", " << json_number(r.filter_upper) << "]"
        << ",\n  \"eigenvalues\": " << json_array(r.eigenvalues)
        << ",\n  \"relative_residuals\": " << json_array(r.residuals) << ",\n";
    if (!analytic.empty()) {
      std::vector<double> a(analytic.begin(), analytic.begin() + args.nev);
      out << "  \"analytic\": " << json_array(a) << ",\n  \"relative_errors\": " << json_array(errors)
          << ",\n  \"max_relative_error\": " << json_number(max_err) << ",\n";
    }
    out << "  \"time_s\": {\"total\": " << json_number(t.total) << ", \"spmv\": " << json_number(t.operator_apply)
        << ", \"orthogonalization\": " << json_number(t.ortho)
        << ", \"rayleigh_ritz\": " << json_number(t.rayleigh_ritz)
        << ", \"restart_basis_update\": " << json_number(t.restart_rotation)
        << ", \"projected_eigen\": " << json_number(t.projected_eigen)
        << ", \"residuals\": " << json_number(t.residuals)
        << ", \"other\": " << json_number(other) << ", \"setup\": " << json_number(setup_s) << "},\n"
        << "  \"timed_solve\": " << json_string(args.cold ? "first of the process" : "second of the process")
        << ",\n  \"first_solve_s\": " << (first_solve_s >= 0 ? json_number(first_solve_s) : std::string("null"))
        << ",\n  \"first_solve_selection\": {\"classes_measured\": " << selection_classes
        << ", \"seconds_measuring\": " << json_number(selection_seconds) << "}"
        << ",\n"
        << "  \"orthogonalization_bytes\": " << json_number(t.ortho_bytes)
        << ",\n  \"restart_basis_update_bytes\": " << json_number(t.restart_bytes)
        << ",\n  \"orthogonalization_GBps\": " << json_number(ortho_gbs)
        << ",\n  \"measured_read_GBps\": " << json_number(bw.read_GBs)
        << ",\n  \"measured_copy_GBps\": " << json_number(bw.copy_GBs)
        << ",\n  \"orthogonalization_pct_of_read_bandwidth\": " << json_number(ortho_pct) << "\n}\n";
    std::printf("  wrote %s\n", args.json.c_str());
  }
  if (!r.converged) {
    std::fprintf(stderr, "kbla_eigen_driver: not converged after %d restarts (max residual %.2e > tol %.1e)\n",
                 r.restarts, max_res, args.tol);
    return 2;
  }
  if (args.check_analytic && !(max_err <= 1e-10)) {
    std::fprintf(stderr, "kbla_eigen_driver: eigenvalues off the analytic spectrum: max relative error %.2e > 1e-10\n",
                 max_err);
    return 2;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  try {
    args = parse(argc, argv);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "kbla_eigen_driver: error: %s\n%s", e.what(), kUsage);
    return 1;
  }
  int status = 0;
  Kokkos::initialize(argc, argv);
  try {
    status = run(args);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "kbla_eigen_driver: error: %s\n", e.what());
    status = 1;
  } catch (const std::runtime_error& e) {  // unreadable or malformed input
    std::fprintf(stderr, "kbla_eigen_driver: error: %s\n", e.what());
    status = 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kbla_eigen_driver: unexpected failure: %s\n", e.what());
    status = 3;
  }
  Kokkos::finalize();
  return status;
}
