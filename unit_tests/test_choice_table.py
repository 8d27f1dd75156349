#!/usr/bin/env python3
"""tools/choice_table.py on a synthetic choice cache: runs of buckets, mixed cells, counts, --check, bad files."""

import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "tools", "choice_table.py")
HEADER = "# KokkosBlockLA kernel choices, format 1"
GPU = "Test GPU sm=2 driver=1 cublas=1.0.0 kbla=0"
ROW = "A:R,ld=cols,at%16=0 B:R,ld=cols,at%16=0 C:R beta=0"


def record(op, scalar, shape, bucket, choice, operands=ROW, device=GPU):
    return f"{device}\t{op} {scalar} {shape} rows=b{bucket} {operands}\t{choice}\t1e-05"


def run(args):
    return subprocess.run([sys.executable, SCRIPT] + args, capture_output=True, text=True)


failures = []


def check(condition, what):
    if not condition:
        failures.append(what)


with tempfile.TemporaryDirectory() as tmp:
    cache = os.path.join(tmp, "c.cache")
    lines = [HEADER,
             record("inner", "D", "16x16", 20, "own"),
             record("inner", "D", "16x16", 22, "own"),
             record("inner", "D", "16x16", 24, "cublas"),
             record("inner", "D", "16x16", 26, "own"),
             record("inner", "D", "8x8", 40, "own"),
             record("inner", "D", "8x8", 40, "cublas",
                    "A:R,ld=9,at%16=0 B:R,ld=cols,at%16=0 C:R beta=0"),
             record("update", "Z", "4x4", 30, "cublas",
                    "A:C,ld%32=4,at%16=0 B:C,ld%32=4,at%16=0 C:C beta!=0"),
             record("inner", "D", "2x2", 30, "own", device="Other GPU sm=1 driver=1 cublas=1.0.0 kbla=0")]
    with open(cache, "w") as f:
        f.write("\n".join(lines) + "\n")
    result = run([cache])
    check(result.returncode == 0, f"plain run failed: {result.stderr}")
    page = result.stdout
    check("## Test GPU sm=2" in page and "## Other GPU sm=1" in page, "one section per device key")
    check("7 classes: 4 own, 3 cuBLAS." in page, "device counts")
    check("| 16 × 16 | own 2^10 – 2^11 · **cuBLAS** 2^12 · own 2^13 |" in page, "runs of buckets")
    check("| 8 × 8 | mixed (own ×1, cuBLAS ×1) 2^20 |" in page, "mixed cell")
    check("### update (B = αAC + βB), complex double (Z), column-major, β ≠ 0" in page, "group heading")
    check("| 4 × 4 | **cuBLAS** 2^15 |" in page, "cuBLAS cell")

    out = os.path.join(tmp, "page.md")
    check(run([cache, "-o", out]).returncode == 0, "-o")
    check(run(["--check", out, cache]).returncode == 0, "--check on a current page")
    with open(out, "a") as f:
        f.write("edited\n")
    check(run(["--check", out, cache]).returncode == 1, "--check on a stale page")

    bad = os.path.join(tmp, "bad.cache")
    with open(bad, "w") as f:
        f.write("# something else\n" + lines[1] + "\n")
    check(run([bad]).returncode != 0, "foreign header rejected")
    with open(bad, "w") as f:
        f.write(HEADER + "\n" + GPU + "\tnot a class\town\t1\n")
    check(run([bad]).returncode != 0, "unparsable class rejected")

for f in failures:
    print("FAILED:", f)
print(f"test_choice_table: {len(failures)} failed")
sys.exit(1 if failures else 0)
