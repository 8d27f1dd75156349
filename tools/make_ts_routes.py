#!/usr/bin/env python3
"""Writes src/cuda/tall_skinny_routes.hpp from a tall & skinny benchmark JSON (perf_tests/tall_skinny).

Where cuBLAS measured faster than the library's own kernel (kbla / cuBLAS time ratio below THRESHOLD), the
library calls cuBLAS for that shape and row count: kbla::inner / kbla::update are then never slower than cuBLAS at
the measured shapes, and the own kernels run where they win. Tables are data with their provenance:
  rows    per (type, op, layout, width w = 1..64, M = N = w; non-square shapes outside the narrow class look up
          w = max(M, N)) a 64-bit mask over the row count K in half octaves: bit b set = cuBLAS when
          floor(2 log2 K) = b (K >= 2^31.5 reads bit 63). Half octaves because cuBLAS's own choice can flip inside
          one octave (measured for double Aᴴ·B column-major widths 20-22). Measured points: --sweep FILE (repeatable; the output of `ramp_probe --route-sweep` or
          `--sweep-shapes`, perf_tests/tall_skinny/ramp_probe.cu: own kernel and cuBLAS timed at K = 2^10 or
          2^12, x4, ... up to the benchmark's square size; a later file replaces an earlier one's points of a
          shape) and the benchmark JSONs' square cases (their K). A bucket takes the decision of the nearest
          measured bucket (a tie: the larger one), cuBLAS when any point there says so (run-to-run variation);
          above the largest point the largest point's decision; below the smallest point that point's decision
          when it is a sweep point (the sweeps start small), the own kernel when it is a benchmark point (the own
          kernels win the ramp-up where no one measured it).
  narrow  D, column-major (the block Gram-Schmidt shapes M = p x N = s): per op a list of (N max, M max) boxes
          in which cuBLAS was faster.
Usage: tools/make_ts_routes.py [--sweep SWEEP.txt[:TYPES] ...] RESULT.json[:PARTS] [MORE.json[:PARTS] ...]
       > src/cuda/tall_skinny_routes.hpp
PARTS (optional, comma-separated) limits what a file contributes: D and/or Z (square cases of that type) and/or
krylov (the narrow table), e.g. old.json:Z,krylov when that run's D kernels have since been replaced; finer, a
group TYPE.OP.LAYOUT adds those square cases alone and -TYPE.OP.LAYOUT drops them, e.g. old.json:D,Z,-D.tsmm.C when
only the double column-major A·C kernels changed since (and the new run passes D.tsmm.C or D); a sweep's
TYPES (D and/or Z) likewise, e.g. sweep.txt:D when its Z points are not to replace an older file's.
A shape and row count go to cuBLAS when they were slower in ANY of the files (run-to-run variation of a few widths).
Pass square cases only from runs with the routes off (the library's cuBLAS paths off: TallSkinnyOptions::allow_cublas
= false, which the benchmark must pass through to the raw API): with the routes on, "kbla" is cuBLAS
itself at the routed shapes (a tie, read as "own kernel"); routes-on runs may give their krylov part, but only
together with the files that routed those shapes (a routed narrow shape reads as a tie there: passing a routes-on
krylov part alone loses the narrow boxes, and the Krylov shapes then run below cuBLAS).
"""
import json
import math
import sys

THRESHOLD = 0.97  # ratios within 3 % of cuBLAS count as a tie (run-to-run noise): keep the own kernel


BUCKETS = 64  # row-count buckets floor(2 log2 K) = 0 .. 63 (63: K >= 2^31.5); the CUDA side's row_bucket()


def bucket(K):
    return min(BUCKETS - 1, int(math.floor(2 * math.log2(max(1, K)))))


def main(args):
    sweeps = []
    while args[:1] == ["--sweep"]:
        sweeps.append(args[1])
        args = args[2:]
    paths = args
    points = {}  # (type, op, layout, w) -> {bucket: [cuBLAS faster?, from a sweep?]}
    narrow = {"tsmttsm": set(), "tsmm": set()}
    if sweeps:
        read_sweeps(sweeps, points)
    for arg in paths:
        path, _, parts = arg.partition(":")
        collect(json.load(open(path)), points, narrow, set(parts.split(",")) if parts else {"D", "Z", "krylov"})
    rows = {key: row_mask(pts) for key, pts in points.items()}
    emit(paths + sweeps, json.load(open(paths[0].partition(":")[0])), rows, narrow)


def vote(points, key, K, faster, sweep):
    p = points.setdefault(key, {}).setdefault(bucket(K), [False, sweep])
    p[0] = p[0] or faster
    p[1] = p[1] or sweep


def read_sweeps(paths, points):
    """A shape takes its points from the last file that has it (a file may measure only some shapes, e.g. the
    ones routed when it ran, so an older file keeps deciding the others)."""
    latest = {}
    for arg in paths:
        path, _, types = arg.partition(":")
        types = set(types.split(",")) if types else {"D", "Z"}
        mine = {}
        for line in open(path):
            f = line.split()
            if len(f) != 8 or f[0] != "SWEEP" or f[1] not in types:
                continue
            mine.setdefault((f[1], f[2], f[3], int(f[4])), []).append((int(f[5]), float(f[6]), float(f[7])))
        latest.update(mine)
    for key, pts in latest.items():
        for K, own, cub in pts:
            vote(points, key, K, cub / own < THRESHOLD, True)


def row_mask(pts):
    measured = sorted(pts)
    lo = measured[0]
    mask = 0
    for b in range(BUCKETS):
        if b < lo and not pts[lo][1]:
            continue  # below a benchmark-only point: the own kernel
        near = min(measured, key=lambda m: (abs(m - b), -m))  # nearest measured bucket, the larger on a tie
        if pts[near][0]:
            mask |= 1 << b
    return mask


def collect(d, points, narrow, parts):
    for e in d.get("cases", []):
        group = "%s.%s.%s" % (e["type"], e["op"], e["layout"])
        wanted = (e["type"] in parts or group in parts) and "-" + group not in parts
        if e["M"] != e["N"] or e["M"] > 64 or not wanted or not e.get("K"):
            continue
        r = e.get("kbla", {}).get("ratio_vs_cublas")
        if r is not None:
            vote(points, (e["type"], e["op"], e["layout"], e["M"]), e["K"], r < THRESHOLD, False)
    for e in d.get("krylov", []) if "krylov" in parts else []:
        r = e.get("kbla", {}).get("ratio_vs_cublas")
        if e["type"] == "D" and e["layout"] == "C" and r is not None and r < THRESHOLD:
            narrow[e["op"]].add((e["N"], e["M"]))


def emit(paths, d, rows, narrow):
    out = []
    out.append("// Generated by tools/make_ts_routes.py from routes-off runs (the own kernels at every shape) of the tall &")
    out.append("// skinny benchmark (perf_tests/tall_skinny, with its ramp_probe row-count sweeps) on %s;"
               % d.get("device", "?"))
    out.append("// git history holds the input files (perf_tests/results). Shapes and row counts where cuBLAS measured")
    pct = round(100 * (1 - THRESHOLD))
    out.append("// faster than the own kernel by more than %d %% go to cuBLAS. Do not edit by hand; re-run the" % pct)
    out.append("// benchmark with the routes off (TallSkinnyOptions::allow_cublas = false; ramp_probe --sweep-shapes) and the script.")
    out.append("#pragma once")
    out.append("#include <cstdint>")
    out.append("namespace kbla {\nnamespace cuda {\nnamespace detail {")
    out.append("// square shapes, [type: 0 D, 1 Z][op: 0 tsmttsm, 1 tsmm][layout: 0 R, 1 C][w - 1]: bit b set = cuBLAS")
    out.append("// when floor(2 log2 K) = b (half octaves of the row count; bit 63 for K >= 2^31.5)")
    out.append("constexpr std::uint64_t kCublasRows[2][2][2][64] = {")
    for t in ("D", "Z"):
        out.append("    {  // " + t)
        for op in ("tsmttsm", "tsmm"):
            vals = []
            for l in ("R", "C"):
                v = [rows.get((t, op, l, w), 0) for w in range(1, 65)]
                quarters = [", ".join("0x%016x" % x for x in v[i:i + 4]) for i in range(0, 64, 4)]
                vals.append("{" + ",\n          ".join(quarters) + "}")
            out.append("        {" + ",\n         ".join(vals) + "},  // " + op)
        out.append("    },")
    out.append("};")
    for op in ("tsmttsm", "tsmm"):
        boxes = sorted(narrow[op])
        name = "kCublasNarrow" + ("Tsmttsm" if op == "tsmttsm" else "Tsmm")
        listed = ", ".join("%dx%d" % (m, n) for n, m in boxes) or "none"
        out.append("// narrow D column-major (N, M) measured slower than cuBLAS: " + listed)
        out.append("constexpr int %sCount = %d;" % (name, len(boxes)))
        out.append("constexpr int %s[%d][2] = {%s};" % (name, max(1, len(boxes)),
                                                    ", ".join("{%d, %d}" % b for b in boxes) or "{0, 0}"))
    out.append("}  // namespace detail\n}  // namespace cuda\n}  // namespace kbla")
    print("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1:])
