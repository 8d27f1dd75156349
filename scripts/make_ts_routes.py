#!/usr/bin/env python3
"""Writes src/cuda/tall_skinny_routes.hpp from a tall & skinny benchmark JSON (perf_tests/tall_skinny).

Where cuBLAS measured faster than the library's own kernel (kbla / cuBLAS time ratio below THRESHOLD), the
library calls cuBLAS for that shape: kbla::inner / kbla::update are then never slower than cuBLAS at the
measured shapes, and the own kernels run where they win. Tables are data with their provenance:
  square  per (type, op, layout): bit w-1 set = width w in 1..64 goes to cuBLAS (M = N = w; non-square shapes
          outside the narrow class look up w = max(M, N))
  narrow  D, column-major (the block Gram-Schmidt shapes M = p x N = s): per op a list of (N max, M max) boxes
          in which cuBLAS was faster.
  rows    per routed square shape, log2 of the row count K from which cuBLAS is used (0: at any K). From
          --sweep FILE (repeatable, later files win per shape), the output of `ramp_probe --route-sweep` (perf_tests/tall_skinny/ramp_probe.cu): own kernel
          and cuBLAS timed at K = 2^12, 2^14, ... and the benchmark's square size; a shape goes to cuBLAS from
          the smallest K on at which cuBLAS is faster at every measured K >= it (at any K when that is the sweep's
          smallest K); a shape where cuBLAS was not faster at the sweep's square size is not routed at all.
Usage: scripts/make_ts_routes.py [--sweep SWEEP.txt[:TYPES] ...] RESULT.json[:PARTS] [MORE.json[:PARTS] ...]
       > src/cuda/tall_skinny_routes.hpp
PARTS (optional, comma-separated) limits what a file contributes: D and/or Z (square cases of that type) and/or
krylov (the narrow table), e.g. run13.json:Z,krylov when that run's D kernels have since been replaced; a sweep's
TYPES (D and/or Z) likewise, e.g. sweep.txt:D when its Z points are not to replace an older file's.
A shape goes to cuBLAS when it was slower in ANY of the files (run-to-run variation of a few widths). Files from
runs with the routes on are read only where "kbla" was the own kernel there, i.e. at shapes not routed then:
pass the older (routes-off, KBLA_TS_NO_ROUTES=1 or before the routes existed) run first.
"""
import json
import math
import sys

THRESHOLD = 0.97  # ratios within 3 % of cuBLAS count as a tie (run-to-run noise): keep the own kernel


def main(args):
    sweeps = []
    while args[:1] == ["--sweep"]:
        sweeps.append(args[1])
        args = args[2:]
    paths = args
    masks = {}
    narrow = {"tsmttsm": set(), "tsmm": set()}
    files = []
    rows = {}
    for arg in paths:
        path, _, parts = arg.partition(":")
        files.append(path)
        collect(json.load(open(path)), masks, narrow, set(parts.split(",")) if parts else {"D", "Z", "krylov"}, rows)
    if sweeps:
        apply_sweeps(sweeps, masks, rows)
    emit(paths + sweeps, json.load(open(files[0])), masks, narrow, rows)


def apply_sweeps(paths, masks, rows):
    """rows[(type, op, layout, w)] = log2 of the K from which cuBLAS goes; clears the bit of shapes where
    cuBLAS was not faster at the sweep's largest K. A shape takes its points from the last file that has it
    (a sweep measures only the shapes routed when it ran, so an older file keeps deciding the others)."""
    points = {}
    for arg in paths:
        path, _, types = arg.partition(":")
        types = set(types.split(",")) if types else {"D", "Z"}
        mine = {}
        for line in open(path):
            f = line.split()
            if len(f) != 8 or f[0] != "SWEEP" or f[1] not in types:
                continue
            key = (f[1], f[2], f[3], int(f[4]))
            mine.setdefault(key, []).append((int(f[5]), float(f[6]), float(f[7])))
        points.update(mine)
    for key, pts in points.items():
        pts.sort()
        k0 = None
        for K, own, cub in reversed(pts):  # walk down from the largest K while cuBLAS stays faster
            if cub / own < THRESHOLD:
                k0 = K
            else:
                break
        mkey = key[:3]
        bit = 1 << (key[3] - 1)
        if k0 is None:
            masks[mkey] = masks.get(mkey, 0) & ~bit
        elif k0 == pts[0][0]:
            rows[key] = 0  # faster already at the smallest K measured: below it the own kernel's fixed cost weighs more
        else:
            rows[key] = int(math.floor(math.log2(k0)))


def collect(d, masks, narrow, parts, rows):
    for e in d.get("cases", []):
        if e["M"] != e["N"] or e["M"] > 64 or e["type"] not in parts:
            continue
        r = e.get("kbla", {}).get("ratio_vs_cublas")
        if r is None:
            continue
        key = (e["type"], e["op"], e["layout"])
        if r < THRESHOLD:
            masks[key] = masks.get(key, 0) | (1 << (e["M"] - 1))
            # without sweep points, cuBLAS only from the measured row count on (the own kernels win the ramp-up)
            k = key + (e["M"],)
            rows[k] = min(rows.get(k, 99), int(math.floor(math.log2(e["K"]))) if e.get("K") else 0)
        else:
            masks.setdefault(key, 0)
    for e in d.get("krylov", []) if "krylov" in parts else []:
        r = e.get("kbla", {}).get("ratio_vs_cublas")
        if e["type"] == "D" and e["layout"] == "C" and r is not None and r < THRESHOLD:
            narrow[e["op"]].add((e["N"], e["M"]))


def emit(paths, d, masks, narrow, rows):
    out = []
    out.append("// Generated by scripts/make_ts_routes.py from")
    for p in paths:
        out.append("//   " + p.split("/")[-1])
    out.append("// (" + d.get("device", "?") + ", read " + str(d.get("bw_read_GBs")) + " GB/s): shapes where cuBLAS measured faster than")
    out.append("// the own kernel by more than %d %% go to cuBLAS. Do not edit by hand; re-run the benchmark with" % round(100 * (1 - THRESHOLD)))
    out.append("// KBLA_TS_NO_ROUTES=1 and the script on its JSON.")
    out.append("#pragma once")
    out.append("#include <cstdint>")
    out.append("namespace kbla {\nnamespace cuda {\nnamespace detail {")
    out.append("// square: bit w-1 = width w (1..64) to cuBLAS; index [type: 0 D, 1 Z][op: 0 tsmttsm, 1 tsmm][layout: 0 R, 1 C]")
    out.append("constexpr std::uint64_t kCublasSquare[2][2][2] = {")
    for t in ("D", "Z"):
        row = []
        for op in ("tsmttsm", "tsmm"):
            row.append("{" + ", ".join("0x%016xull" % masks.get((t, op, l), 0) for l in ("R", "C")) + "}")
        out.append("    {" + ", ".join(row) + "},  // " + t)
    out.append("};")
    out.append("// per routed square shape: cuBLAS from K >= 2^value rows on (0: any K); [type][op][layout][w - 1]")
    out.append("constexpr std::uint8_t kCublasMinRowsLog2[2][2][2][64] = {")
    for t in ("D", "Z"):
        out.append("    {  // " + t)
        for op in ("tsmttsm", "tsmm"):
            vals = []
            for l in ("R", "C"):
                v = [rows.get((t, op, l, w), 0) if (masks.get((t, op, l), 0) >> (w - 1)) & 1 else 0 for w in range(1, 65)]
                quarters = [", ".join("%2d" % x for x in v[i:i + 16]) for i in range(0, 64, 16)]
                vals.append("{" + ",\n          ".join(quarters) + "}")
            out.append("        {" + ",\n         ".join(vals) + "},  // " + op)
        out.append("    },")
    out.append("};")
    for op in ("tsmttsm", "tsmm"):
        boxes = sorted(narrow[op])
        name = "kCublasNarrow" + ("Tsmttsm" if op == "tsmttsm" else "Tsmm")
        out.append("// narrow D column-major (N, M) measured slower than cuBLAS: " + (", ".join("%dx%d" % (m, n) for n, m in boxes) or "none"))
        out.append("constexpr int %sCount = %d;" % (name, len(boxes)))
        out.append("constexpr int %s[%d][2] = {%s};" % (name, max(1, len(boxes)),
                                                    ", ".join("{%d, %d}" % b for b in boxes) or "{0, 0}"))
    out.append("}  // namespace detail\n}  // namespace cuda\n}  // namespace kbla")
    print("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1:])
