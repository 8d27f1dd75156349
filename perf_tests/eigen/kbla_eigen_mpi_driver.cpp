// kbla_eigen_mpi_driver: kbla::eigen over MPI on the 3D Laplacian of an nx x ny x nz grid split by z-planes
// (kbla::mpi::Laplacian3D: matrix-free, one plane of halo to each neighbour). The device of a rank is its index on
// its node modulo the node's GPUs (ranks may outnumber GPUs and then share them). On more than one rank the
// all-reduce route and the halo route are chosen by timing them (--reduce measured, --halo auto). Prints (rank 0)
// the eigenvalues with their residuals and the
// time by phase, the slowest rank's for each phase: operator (halo exchange included), halo exchange,
// orthogonalisation (all-reduces included), all-reduces (count and time), Rayleigh-Ritz, and each per block
// expansion; writes JSON. --compare checks the result against another run's JSON (e.g. one rank against two).
// Exit status: 0 success, 1 bad input / usage, 2 not converged, off the analytic values or off the compared run,
// 3 unexpected failure.
#include <kbla_eigen.hpp>
#include <kbla_mpi.hpp>
#include <mpi/kbla_mpi_fastest.hpp>
#include <mpi/kbla_mpi_laplacian.hpp>
#include <mpi/kbla_mpi_node.hpp>
#include <solvers/kbla_laplacian.hpp>

#include "../common/kbla_device_info.hpp"
#include "driver_text.hpp"

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace kbla_eigen_driver;

using Exec = Kokkos::DefaultExecutionSpace;

const char* const kUsage =
    "usage: mpirun -np P kbla_eigen_mpi_driver (--grid NX NY NZ | --laplacian N) [options]\n"
    "  --grid NX NY NZ     3D Laplacian (7-point, Dirichlet) on an NX x NY x NZ grid, split over the ranks by\n"
    "                      z-planes (NZ >= 1; ranks beyond NZ hold no rows)\n"
    "  --laplacian N       the same on an N x N x N grid\n"
    "  --planes A,B,...    planes per rank (P numbers summing to NZ; default: as even as possible)\n"
    "  -k, --nev K         number of eigenpairs (default 16)\n"
    "  -s, --block S       block size (default 8)\n"
    "  -m, --blocks M      basis of M*S vectors (default: auto, ceil(2K/S) + 8)\n"
    "  --tol T             relative residual (default 1e-10)\n"
    "  --which W           largest | smallest (default largest)\n"
    "  --max-restarts R    (default 2000)\n"
    "  --seed N            starting block seed (default 1)\n"
    "  --chebyshev D       Chebyshev acceleration of degree D (odd, >= 3; 0 = off, the plain iteration, whose\n"
    "                      block steps the per-expansion figures describe; default: EigenOptions' default)\n"
    "  --reduce R          measured (default: time every route this build and MPI offer, keep the fastest) |\n"
    "                      host (host-staged MPI_Allreduce) | device (CUDA-aware MPI) | auto | nccl;\n"
    "                      on one rank the default is the single-process solver (no reducer calls), which\n"
    "                      --reduce puts back under MPI\n"
    "  --halo H            auto (default: host and, where every rank is on one node with GPUs that reach each\n"
    "                      other, ipc, timed; the faster) | host (host-staged halo exchange) |\n"
    "                      device (CUDA-aware MPI) | ipc (CUDA IPC, device-to-device copies between the GPUs\n"
    "                      of one node)\n"
    "  --bcgs2             BCGS2 + CholQR2 over the whole basis every step\n"
    "  --no-overlap        Rayleigh-Ritz's dense eigenproblem after each filling step, not on a host thread during it\n"
    "  --json FILE         write the results as JSON (rank 0)\n"
    "  --compare FILE      exit 2 unless the eigenvalues are within 1e-12 relative of FILE's (a JSON of this\n"
    "                      driver or of kbla_eigen_driver) and the residuals of simple eigenvalues within 1e-12\n"
    "  --check-analytic    exit 2 unless every value is within 1e-10 relative of the analytic one\n"
    "  --quiet             no per-restart progress\n"
    "  --warmup            first a whole solve (not reported), so that one-time costs (the tall & skinny kernel\n"
    "                      selection of each call class, library handles, first launches, buffers) stay out of\n"
    "                      the measured solve, as kbla_eigen_driver's timed second solve\n";

struct Args {
  int nx = 0, ny = 0, nz = 0;
  std::vector<int> planes;
  int nev = 16, block = 8, blocks = 0, max_restarts = 2000;
  double tol = 1e-10;
  std::string which = "largest", reduce = "measured", halo = "auto", json, compare;
  bool reduce_given = false;
  std::uint64_t seed = 1;
  bool check_analytic = false, quiet = false, bcgs2 = false, warmup = false, no_overlap = false;
  int chebyshev = kbla::EigenOptions().chebyshev_degree;
};

int parse_extent(const std::string& opt, const std::string& v) {
  const long n = parse_int(opt, v);
  if (n < 1 || n > 4000) throw UsageError(opt + " extents must be between 1 and 4000, got " + v);
  return int(n);
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string opt = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw UsageError(opt + " needs a value");
      return argv[++i];
    };
    if (opt == "-h" || opt == "--help") {
      throw UsageError("");
    } else if (opt == "--grid") {
      a.nx = parse_extent(opt, value());
      a.ny = parse_extent(opt, value());
      a.nz = parse_extent(opt, value());
    } else if (opt == "--laplacian") {
      a.nx = a.ny = a.nz = parse_extent(opt, value());
    } else if (opt == "--planes") {
      std::stringstream ss(value());
      std::string item;
      while (std::getline(ss, item, ',')) a.planes.push_back(int(parse_int(opt, item)));
    } else if (opt == "-k" || opt == "--nev") {
      a.nev = int(parse_int(opt, value()));
      if (a.nev < 1) throw UsageError("k must be at least 1");
    } else if (opt == "-s" || opt == "--block") {
      a.block = int(parse_int(opt, value()));
      if (a.block < 1) throw UsageError("block size must be at least 1");
    } else if (opt == "-m" || opt == "--blocks") {
      a.blocks = int(parse_int(opt, value()));
      if (a.blocks < 0) throw UsageError(opt + " must be >= 0");
    } else if (opt == "--tol") {
      a.tol = parse_double(opt, value());
      if (!(a.tol > 0) || !std::isfinite(a.tol)) throw UsageError("--tol must be a positive number");
    } else if (opt == "--which") {
      a.which = value();
      if (a.which != "largest" && a.which != "smallest") throw UsageError("--which must be largest or smallest");
    } else if (opt == "--max-restarts") {
      a.max_restarts = int(parse_int(opt, value()));
      if (a.max_restarts < 0) throw UsageError("--max-restarts must be >= 0");
    } else if (opt == "--seed") {
      a.seed = std::uint64_t(parse_int(opt, value()));
    } else if (opt == "--chebyshev") {
      a.chebyshev = int(parse_int(opt, value()));
      if (a.chebyshev != 0 && (a.chebyshev < 3 || a.chebyshev % 2 == 0 || a.chebyshev > 99))
        throw UsageError("--chebyshev must be 0 (off) or an odd degree from 3 to 99, got " + std::to_string(a.chebyshev));
    } else if (opt == "--reduce") {
      a.reduce = value();
      a.reduce_given = true;
      if (a.reduce != "measured" && a.reduce != "host" && a.reduce != "device" && a.reduce != "auto" &&
          a.reduce != "nccl")
        throw UsageError("--reduce must be measured, host, device, auto or nccl, got '" + a.reduce + "'");
    } else if (opt == "--halo") {
      a.halo = value();
      if (a.halo != "auto" && a.halo != "host" && a.halo != "device" && a.halo != "ipc")
        throw UsageError("--halo must be auto, host, device or ipc, got '" + a.halo + "'");
    } else if (opt == "--bcgs2") {
      a.bcgs2 = true;
    } else if (opt == "--no-overlap") {
      a.no_overlap = true;
    } else if (opt == "--json") {
      a.json = value();
    } else if (opt == "--compare") {
      a.compare = value();
    } else if (opt == "--check-analytic") {
      a.check_analytic = true;
    } else if (opt == "--warmup") {
      a.warmup = true;
    } else if (opt == "--quiet") {
      a.quiet = true;
    } else {
      throw UsageError("unknown option '" + opt + "'");
    }
  }
  if (a.nx == 0) throw UsageError("give --grid NX NY NZ or --laplacian N");
  return a;
}

// The numbers of the array `"key": [...]` in a JSON text (the drivers' own output; no general parser needed).
std::vector<double> json_numbers(const std::string& text, const std::string& key, const std::string& file) {
  const std::size_t k = text.find("\"" + key + "\"");
  const std::size_t open = k == std::string::npos ? k : text.find('[', k);
  const std::size_t close = open == std::string::npos ? open : text.find(']', open);
  if (close == std::string::npos) throw std::runtime_error("'" + file + "' has no array \"" + key + "\"");
  std::vector<double> v;
  std::stringstream ss(text.substr(open + 1, close - open - 1));
  std::string item;
  while (std::getline(ss, item, ',')) v.push_back(std::strtod(item.c_str(), nullptr));
  return v;
}

kbla::mpi::HaloTransfer halo_transfer(const std::string& h) {
  return h == "device" ? kbla::mpi::HaloTransfer::device_direct
         : h == "ipc"  ? kbla::mpi::HaloTransfer::device_ipc
                       : kbla::mpi::HaloTransfer::host_staged;
}
const char* halo_name(kbla::mpi::HaloTransfer t) {
  return t == kbla::mpi::HaloTransfer::device_direct ? "device_direct"
         : t == kbla::mpi::HaloTransfer::device_ipc  ? "device_ipc"
                                                     : "host_staged";
}

// Per-rank values: the slowest rank's (max) on every rank, and all of them on rank 0.
double max_over_ranks(double x) {
  MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return x;
}
std::vector<double> gather(double x, int size) {
  std::vector<double> all(std::size_t(size), 0.0);
  MPI_Gather(&x, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return all;
}

// The halo route and how it was chosen.
struct HaloChoice {
  kbla::mpi::HaloTransfer transfer = kbla::mpi::HaloTransfer::host_staged;
  std::string how;  // "given", "measured", or why auto had a single candidate
  std::vector<kbla::mpi::HaloTransfer> timed;
  std::vector<double> seconds;  // per timed route: one application to a block, slowest rank's median
};

// --halo auto: host_staged, and device_ipc where every rank is on one node with GPUs that reach each other (and
// the build is CUDA); with both, one operator of each applies A to a block of `width` columns (a warm-up, then
// the median of 5, slowest rank) and the faster stays. A single candidate is taken untimed.
HaloChoice choose_halo(const Args& args, const kbla::mpi::PlaneRange& mine, int size, int width) {
  HaloChoice c;
  if (args.halo != "auto") {
    c.transfer = halo_transfer(args.halo);
    c.how = "given";
    return c;
  }
  if (size == 1) {
    c.how = "one rank (no halo)";
    return c;
  }
  const bool ipc = kbla::mpi::Laplacian3D<Exec>::ipc_possible() && kbla::mpi::gpus_reach_each_other(MPI_COMM_WORLD);
  if (!ipc) {
    c.how = kbla::mpi::Laplacian3D<Exec>::ipc_possible()
                ? "host only: the ranks span several nodes or their GPUs lack peer access"
                : "host only: no CUDA execution space";
    return c;
  }
  c.how = "measured";
  for (const auto t : {kbla::mpi::HaloTransfer::host_staged, kbla::mpi::HaloTransfer::device_ipc}) {
    const kbla::mpi::Laplacian3D<Exec> op(MPI_COMM_WORLD, args.nx, args.ny, args.nz, mine, t);
    const Kokkos::View<double**, Kokkos::LayoutLeft, Exec> X("halo timing X", op.local_rows(), width),
        Y("halo timing Y", op.local_rows(), width);
    Kokkos::deep_copy(X, 1.0);
    op(X, Y);  // first use: buffers, IPC mapping
    Exec().fence();
    c.timed.push_back(t);
    c.seconds.push_back(kbla::mpi::median_seconds(MPI_COMM_WORLD, 5, [&]() {
      op(X, Y);
      Exec().fence();
    }));
  }
  kbla::mpi::slowest_over_ranks(MPI_COMM_WORLD, c.seconds);
  c.transfer = c.timed[kbla::mpi::index_of_fastest(c.seconds)];
  return c;
}

int run(const Args& args, int rank, int size) {
  const bool root = rank == 0;
  // Planes of each rank.
  std::vector<int> counts(static_cast<std::size_t>(size), 0);
  if (args.planes.empty()) {
    for (int q = 0; q < size; ++q) counts[q] = kbla::mpi::even_planes(args.nz, size, q).count;
  } else {
    if (int(args.planes.size()) != size)
      throw std::invalid_argument("--planes gives " + std::to_string(args.planes.size()) + " counts for " +
                                  std::to_string(size) + " ranks");
    counts = args.planes;
  }
  kbla::mpi::PlaneRange mine;
  for (int q = 0; q < rank; ++q) mine.first += counts[q];
  mine.count = counts[rank];

  // One rank: the single-process solver, the baseline a one-GPU user gets (unless --reduce asks for MPI).
  const bool local = size == 1 && !args.reduce_given;
  Kokkos::Timer setup_timer;
  const HaloChoice halo_choice = choose_halo(args, mine, size, args.block);
  const kbla::mpi::Laplacian3D<Exec> op(MPI_COMM_WORLD, args.nx, args.ny, args.nz, mine, halo_choice.transfer);
  kbla::mpi::ReducerOptions ropt;
  ropt.method = local                     ? kbla::mpi::ReduceMethod::host_staged  // not used
                : args.reduce == "device" ? kbla::mpi::ReduceMethod::device_direct
                : args.reduce == "auto"   ? kbla::mpi::ReduceMethod::automatic
                : args.reduce == "nccl"   ? kbla::mpi::ReduceMethod::nccl
                : args.reduce == "host"   ? kbla::mpi::ReduceMethod::host_staged
                                          : kbla::mpi::ReduceMethod::measured;
  // The sums the solver makes: s x s Gram matrices and the coefficients against a basis of m blocks.
  ropt.measure_block_size = args.block;
  kbla::EigenOptions basis;
  basis.nev = args.nev;
  basis.block_size = args.block;
  basis.num_blocks = args.blocks;
  ropt.measure_basis_blocks = basis.blocks();
  const kbla::mpi::Reducer reducer(MPI_COMM_WORLD, ropt);
  const std::string reduce_name = local ? "none (one rank)" : kbla::mpi::name(reducer.method());
  const std::string reduce_how = local ? "one rank" : args.reduce == "measured" ? "measured" : "given";
  const std::vector<double> gpu_per_rank = gather(double(kbla::mpi::current_gpu()), size);
  const std::int64_t n = op.global_rows();
  if (args.nev > n) {
    std::ostringstream os;
    os << "k = " << args.nev << " eigenpairs requested but the matrix has only n = " << n << " rows";
    throw std::invalid_argument(os.str());
  }
  std::vector<double> analytic = kbla::laplacian_3d_eigenvalues(args.nx, args.ny, args.nz);
  if (args.which == "largest") std::reverse(analytic.begin(), analytic.end());
  analytic.resize(std::size_t(args.nev + 1 < n ? args.nev + 1 : n));  // one more: is the last wanted one simple?
  const double setup_s = max_over_ranks(setup_timer.seconds());

  kbla::EigenOptions opt;
  opt.nev = args.nev;
  opt.block_size = args.block;
  opt.num_blocks = args.blocks;
  opt.tol = args.tol;
  opt.which = args.which == "largest" ? kbla::EigenWhich::largest : kbla::EigenWhich::smallest;
  opt.max_restarts = args.max_restarts;
  opt.seed = args.seed;
  opt.chebyshev_degree = args.chebyshev;
  opt.overlap_rayleigh_ritz = !args.no_overlap;
  if (args.bcgs2) {
    opt.local_projection = false;
    opt.ortho.one_pass_ratio = 0;
  }
  const std::string problem = "3D Laplacian " + std::to_string(args.nx) + "x" + std::to_string(args.ny) + "x" +
                              std::to_string(args.nz);
  const std::string device = kbla_perf::device_info().name;
  if (root) {
    std::printf("kbla_eigen_mpi_driver: %s, %lld rows on %d ranks (%s, %s), setup %.3f s\n", problem.c_str(),
                (long long)n, size, Exec::name(), device.c_str(), setup_s);
    std::printf("  planes per rank:");
    for (const int c : counts) std::printf(" %d", c);
    if (kbla::mpi::visible_gpus() > 0) {
      std::printf("\n  GPU per rank (%d on rank 0's node):", kbla::mpi::visible_gpus());
      for (const double g : gpu_per_rank) std::printf(" %.0f", g);
    }
    std::printf("\n  k = %d %s, block size %d, tol %.1e, all-reduce %s (%s), halo %s (%s)\n", args.nev,
                args.which.c_str(), args.block, args.tol, reduce_name.c_str(), reduce_how.c_str(),
                halo_name(halo_choice.transfer), halo_choice.how.c_str());
    for (const auto& t : reducer.measured_routes())
      std::printf("    all-reduce %-13s %8.2f us (%d x %d + 1)  %8.2f us (%d x %d x %d), slowest rank's median\n",
                  kbla::mpi::name(t.method), 1e6 * t.gram_seconds, ropt.measure_block_size,
                  ropt.measure_block_size, 1e6 * t.coefficients_seconds, ropt.measure_basis_blocks,
                  ropt.measure_block_size, ropt.measure_block_size);
    for (std::size_t i = 0; i < halo_choice.timed.size(); ++i)
      std::printf("    halo %-13s %8.2f us per application to %d columns, slowest rank's median\n",
                  halo_name(halo_choice.timed[i]), 1e6 * halo_choice.seconds[i], args.block);
    if (!args.quiet)
      opt.progress = [](const kbla::EigenProgress& p) {
        std::printf("  restart %4d: converged %3d/%d  max residual %.2e  elapsed %.3f s\n", p.restart + 1,
                    p.converged, p.nev, p.max_residual, p.elapsed);
        std::fflush(stdout);
      };
  }

  // A whole solve, not one restart: after the first restart the kept counts give new call classes (basis widths
  // that are not multiples of the block), whose one-time kernel selection would otherwise land in the timed solve.
  if (args.warmup) {
    kbla::EigenOptions w = opt;
    w.progress = nullptr;
    if (local)
      kbla::eigen<double>(Exec(), op, op.local_rows(), w, kbla::LocalReducer());
    else
      kbla::eigen<double>(Exec(), op, op.local_rows(), w, reducer);
    op.reset_halo_stats();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const auto r = local ? kbla::eigen<double>(Exec(), op, op.local_rows(), opt, kbla::LocalReducer())
                       : kbla::eigen<double>(Exec(), op, op.local_rows(), opt, reducer);
  const auto& t = r.timings;
  const kbla::mpi::HaloStats halo = op.halo_stats();

  // Phases: each the slowest rank's.
  struct Phase {
    const char* key;
    const char* label;
    double local;
  };
  const double other_local =
      std::max(0.0, t.total - t.operator_apply - t.ortho - t.rayleigh_ritz - t.residuals);
  std::vector<Phase> phases = {{"total", "total", t.total},
                               {"operator", "operator (halo included)", t.operator_apply},
                               {"halo_exchange", "halo exchange", halo.seconds},
                               {"orthogonalization", "orthogonalization (all-reduces included)", t.ortho},
                               {"allreduce", "all-reduces", t.allreduce_time},
                               {"rayleigh_ritz", "Rayleigh-Ritz", t.rayleigh_ritz},
                               {"restart_basis_update", "restart basis update", t.restart_rotation},
                               {"projected_eigen", "dense eigenproblems (host)", t.projected_eigen},
                               {"residuals", "residuals", t.residuals},
                               {"other", "other", other_local}};
  std::vector<double> slowest;
  std::vector<std::vector<double>> per_rank;
  for (const Phase& p : phases) {
    slowest.push_back(max_over_ranks(p.local));
    per_rank.push_back(gather(p.local, size));
  }
  const double iterations = std::max(1, r.iterations);
  const double halo_exchanges = max_over_ranks(double(halo.exchanges)), halo_bytes = max_over_ranks(halo.bytes);

  // Comparison with another run (rank 0 reads; the verdict is broadcast).
  int compare_ok = 1;
  double compare_value_diff = 0, compare_residual_diff = 0, compare_residual_diff_all = 0;
  if (!args.compare.empty() && root) {
    std::ifstream in(args.compare);
    if (!in) throw std::runtime_error("cannot read '" + args.compare + "'");
    std::stringstream buf;
    buf << in.rdbuf();
    const std::vector<double> ref_values = json_numbers(buf.str(), "eigenvalues", args.compare),
                              ref_res = json_numbers(buf.str(), "relative_residuals", args.compare);
    if (ref_values.size() != r.eigenvalues.size() || ref_res.size() != r.residuals.size())
      throw std::runtime_error("'" + args.compare + "' holds " + std::to_string(ref_values.size()) +
                               " eigenvalues, this run " + std::to_string(r.eigenvalues.size()));
    for (std::size_t i = 0; i < ref_values.size(); ++i) {
      compare_value_diff = std::max(compare_value_diff, std::abs(r.eigenvalues[i] - ref_values[i]) /
                                                            std::abs(ref_values[i]));
      const double d = std::abs(r.residuals[i] - ref_res[i]);
      compare_residual_diff_all = std::max(compare_residual_diff_all, d);
      // A multiple eigenvalue's vectors are any basis of its eigenspace (rounding picks it): their residuals
      // are only held to the tolerance.
      bool simple = true;
      for (std::size_t j = 0; j < analytic.size(); ++j)
        if (j != i && std::abs(analytic[j] - analytic[i]) <= 1e-10 * std::abs(analytic[i])) simple = false;
      if (simple)
        compare_residual_diff = std::max(compare_residual_diff, d);
      else if (!(r.residuals[i] <= args.tol))
        compare_ok = 0;
    }
    if (!(compare_value_diff <= 1e-12 && compare_residual_diff <= 1e-12)) compare_ok = 0;
  }
  MPI_Bcast(&compare_ok, 1, MPI_INT, 0, MPI_COMM_WORLD);

  double max_err = 0, max_res = 0;
  std::vector<double> errors;
  for (int i = 0; i < args.nev; ++i) {
    max_res = std::max(max_res, r.residuals[i]);
    errors.push_back(std::abs(r.eigenvalues[i] - analytic[i]) / std::abs(analytic[i]));
    max_err = std::max(max_err, errors.back());
  }
  if (root) {
    std::printf("  basis %d (+%d) vectors%s, %d restarts, %d block expansions, %ld operator applications\n",
                r.basis_size, r.block_size, r.dense ? " (dense fallback)" : "", r.restarts, r.iterations,
                r.operator_applications);
    std::printf("\n     i            eigenvalue   rel. residual              analytic   rel. error\n");
    for (int i = 0; i < args.nev; ++i)
      std::printf("  %4d  %20.15f  %14.3e  %20.15f  %11.3e\n", i, r.eigenvalues[i], r.residuals[i], analytic[i],
                  errors[std::size_t(i)]);
    std::printf("\n  time by phase (slowest rank), and per block expansion:\n");
    for (std::size_t p = 0; p < phases.size(); ++p)
      std::printf("    %-42s %9.4f s  %9.4f ms\n", phases[p].label, slowest[p], 1e3 * slowest[p] / iterations);
    std::printf("  all-reduces: %ld (%.1f per block expansion), %.2f us each on average; halo exchanges %.0f, "
                "%.1f MB sent by the busiest rank\n",
                t.allreduces, t.allreduces / iterations, t.allreduces ? 1e6 * slowest[4] / t.allreduces : 0.0,
                halo_exchanges, halo_bytes / 1e6);
    std::printf("  converged: %s, max relative residual %.2e, max relative error vs analytic %.2e\n",
                r.converged ? "yes" : "NO", max_res, max_err);
    if (!args.compare.empty())
      std::printf("  against %s: eigenvalues within %.2e relative, residuals of simple eigenvalues within %.2e "
                  "(all: %.2e): %s\n",
                  args.compare.c_str(), compare_value_diff, compare_residual_diff, compare_residual_diff_all,
                  compare_ok ? "same" : "DIFFERENT");
  }

  if (root && !args.json.empty()) {
    std::ofstream out(args.json);
    if (!out) throw std::runtime_error("cannot write JSON file '" + args.json + "'");
    std::time_t now = std::time(nullptr);
    char stamp[64];
    std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    std::vector<double> planes(counts.begin(), counts.end());
    out << "{\n  \"program\": \"kbla_eigen_mpi_driver\",\n  \"date\": " << json_string(stamp)
        << ",\n  \"device\": {\"name\": " << json_string(device) << ", \"execution_space\": "
        << json_string(Exec::name()) << ", \"ranks\": " << size
        << ", \"gpu_per_rank\": " << json_array(gpu_per_rank) << "},\n"
        << "  \"problem\": {\"name\": " << json_string(problem) << ", \"rows\": " << n << ", \"grid\": ["
        << args.nx << ", " << args.ny << ", " << args.nz << "], \"planes_per_rank\": " << json_array(planes)
        << "},\n"
        << "  \"options\": {\"k\": " << args.nev << ", \"which\": " << json_string(args.which)
        << ", \"block_size\": " << args.block << ", \"num_blocks\": " << args.blocks
        << ", \"basis_size\": " << r.basis_size << ", \"tol\": " << json_number(args.tol)
        << ", \"max_restarts\": " << args.max_restarts << ", \"seed\": " << args.seed
        << ", \"orthogonalization\": " << json_string(args.bcgs2 ? "bcgs2" : "local + one-pass")
        << ", \"chebyshev_degree\": " << args.chebyshev
        << ", \"overlap_rayleigh_ritz\": " << (args.no_overlap ? "false" : "true")
        << ", \"allreduce\": " << json_string(reduce_name) << ", \"allreduce_choice\": " << json_string(reduce_how)
        << ", \"halo\": " << json_string(halo_name(halo_choice.transfer))
        << ", \"halo_choice\": " << json_string(halo_choice.how) << "},\n"
        << "  \"reduce_measured\": {";
    for (const auto& route : reducer.measured_routes())
      out << json_string(kbla::mpi::name(route.method)) << ": {\"gram_us\": " << json_number(1e6 * route.gram_seconds)
          << ", \"coefficients_us\": " << json_number(1e6 * route.coefficients_seconds) << "}, ";
    out << "\"gram_doubles\": " << ropt.measure_block_size * ropt.measure_block_size + 1
        << ", \"coefficients_doubles\": " << ropt.measure_basis_blocks * ropt.measure_block_size * ropt.measure_block_size
        << ", \"chosen\": " << json_string(reduce_name) << "},\n  \"halo_measured\": {";
    for (std::size_t i = 0; i < halo_choice.timed.size(); ++i)
      out << json_string(halo_name(halo_choice.timed[i])) << ": {\"us_per_application\": "
          << json_number(1e6 * halo_choice.seconds[i]) << "}, ";
    out << "\"chosen\": " << json_string(halo_name(halo_choice.transfer))
        << ", \"how\": " << json_string(halo_choice.how) << "},\n"
        << "  \"converged\": " << (r.converged ? "true" : "false") << ",\n  \"dense_fallback\": "
        << (r.dense ? "true" : "false") << ",\n  \"restarts\": " << r.restarts
        << ",\n  \"iterations\": " << r.iterations << ",\n  \"operator_applications\": " << r.operator_applications
        << ",\n  \"operator_calls\": " << r.operator_calls << ",\n  \"eigenvalues\": " << json_array(r.eigenvalues)
        << ",\n  \"relative_residuals\": " << json_array(r.residuals)
        << ",\n  \"analytic\": " << json_array(std::vector<double>(analytic.begin(), analytic.begin() + args.nev))
        << ",\n  \"relative_errors\": " << json_array(errors)
        << ",\n  \"max_relative_error\": " << json_number(max_err) << ",\n  \"time_s\": {";
    for (std::size_t p = 0; p < phases.size(); ++p)
      out << (p ? ", " : "") << json_string(phases[p].key) << ": " << json_number(slowest[p]);
    out << ", \"setup\": " << json_number(setup_s) << "},\n  \"time_per_expansion_ms\": {";
    for (std::size_t p = 0; p < phases.size(); ++p)
      out << (p ? ", " : "") << json_string(phases[p].key) << ": " << json_number(1e3 * slowest[p] / iterations);
    out << "},\n  \"time_s_per_rank\": {";
    for (std::size_t p = 0; p < phases.size(); ++p)
      out << (p ? ", " : "") << json_string(phases[p].key) << ": " << json_array(per_rank[p]);
    out << "},\n  \"allreduces\": " << t.allreduces
        << ",\n  \"allreduces_per_expansion\": " << json_number(t.allreduces / iterations)
        << ",\n  \"allreduce_us_each\": " << json_number(t.allreduces ? 1e6 * slowest[4] / t.allreduces : 0.0)
        << ",\n  \"halo_exchanges\": " << json_number(halo_exchanges)
        << ",\n  \"halo_bytes_max_rank\": " << json_number(halo_bytes)
        << ",\n  \"orthogonalization_bytes_rank0\": " << json_number(t.ortho_bytes);
    if (!args.compare.empty())
      out << ",\n  \"compare\": {\"file\": " << json_string(args.compare)
          << ", \"max_eigenvalue_rel_diff\": " << json_number(compare_value_diff)
          << ", \"max_simple_residual_diff\": " << json_number(compare_residual_diff)
          << ", \"max_residual_diff\": " << json_number(compare_residual_diff_all)
          << ", \"same\": " << (compare_ok ? "true" : "false") << "}";
    out << "\n}\n";
    std::printf("  wrote %s\n", args.json.c_str());
  }
  if (!r.converged) {
    if (root) std::fprintf(stderr, "kbla_eigen_mpi_driver: not converged after %d restarts\n", r.restarts);
    return 2;
  }
  if (args.check_analytic && !(max_err <= 1e-10)) {
    if (root) std::fprintf(stderr, "kbla_eigen_mpi_driver: max relative error vs analytic %.2e > 1e-10\n", max_err);
    return 2;
  }
  if (!compare_ok) {
    if (root) std::fprintf(stderr, "kbla_eigen_mpi_driver: the result differs from %s\n", args.compare.c_str());
    return 2;
  }
  return 0;
}

void initialize_kokkos(int device_id) {
#if KOKKOS_VERSION >= 30700
  Kokkos::InitializationSettings settings;
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP) || defined(KOKKOS_ENABLE_SYCL)
  settings.set_device_id(device_id);
#endif
  Kokkos::initialize(settings);
#else
  Kokkos::InitArguments arguments;
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP) || defined(KOKKOS_ENABLE_SYCL)
  arguments.device_id = device_id;
#endif
  Kokkos::initialize(arguments);
#endif
  (void)device_id;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Args args;
  try {
    args = parse(argc, argv);
  } catch (const UsageError& e) {
    if (rank == 0) {
      if (*e.what()) std::fprintf(stderr, "kbla_eigen_mpi_driver: error: %s\n", e.what());
      std::fprintf(*e.what() ? stderr : stdout, "%s", kUsage);
    }
    MPI_Finalize();
    return *e.what() ? 1 : 0;
  }
  initialize_kokkos(kbla::mpi::node_device_id(MPI_COMM_WORLD));  // node-local rank modulo the node's GPUs
  int status = 0;
  try {
    status = run(args, rank, size);
  } catch (const std::invalid_argument& e) {  // every rank sees the same bad input
    if (rank == 0) std::fprintf(stderr, "kbla_eigen_mpi_driver: error: %s\n", e.what());
    status = 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kbla_eigen_mpi_driver (rank %d): failure: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  Kokkos::finalize();
  MPI_Finalize();
  return status;
}
