#!/usr/bin/env python3
"""Gathers kbla_driver JSON files of one GPU (e.g. double LayoutLeft, double LayoutRight, complex LayoutLeft) into
the main job's canonical result file perf_tests/results/kbla_driver-<gpu>.json: {"program", "device", "runs": [...]}.

usage: merge_driver_results.py OUT.json RUN.json [RUN.json ...]"""
import json
import sys


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    runs = [json.load(open(p)) for p in argv[2:]]
    names = {r.get("device", {}).get("name") for r in runs}
    if len(names) != 1:
        raise SystemExit("runs from different devices: %s" % sorted(map(str, names)))
    with open(argv[1], "w") as f:
        json.dump({"program": "kbla_driver", "device": runs[0].get("device"), "runs": runs}, f, indent=1)
    print("%s: %d runs" % (argv[1], len(runs)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
