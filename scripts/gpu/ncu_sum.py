#!/usr/bin/env python3
"""Sums Nsight Compute's per-kernel times (msm_lanes.sh PROFILE=1: ncu --csv --page raw with
gpu__time_duration.sum) by MSM and kernel: an MSM starts at each digits kernel that follows
another MSM's work, its kind is named by the accumulation kernel it runs (affine_*, chunk_xyzz,
accumulate), and each kernel's time is the mean over that kind's MSMs.

usage: python3 scripts/gpu/ncu_sum.py ncu_g2.csv
"""
import csv
import sys
from collections import defaultdict


def short(name):
    """The kernel's function name without namespaces or template arguments."""
    for anon in ("(anonymous namespace)::", "<unnamed>::", "unnamed>::"):  # ncu's spellings
        name = name.replace(anon, "")
    base = name.split("(")[0]
    depth, out = 0, []
    for ch in base:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out).split("::")[-1].split()[-1]  # no namespaces, no return type


def kind_of(names):
    if any(n.startswith("affine_") for n in names):
        return "affine"
    if "chunk_xyzz_kernel" in names:
        return "xyzz"
    if "accumulate_kernel" in names:
        return "legacy"
    return "other"


def read_rows(path):
    with open(path, newline="") as f:
        lines = [l for l in f if l.startswith('"')]
    rows = list(csv.reader(lines))
    head = rows[0]
    name_at, time_at = head.index("Kernel Name"), head.index("gpu__time_duration.sum")
    unit = rows[1][time_at] if len(rows) > 1 else "ns"
    scale = {"ns": 1e-6, "nsecond": 1e-6, "usecond": 1e-3, "us": 1e-3, "msecond": 1.0, "ms": 1.0}.get(unit, 1e-6)
    out = []
    for r in rows[1:]:
        try:
            out.append((short(r[name_at]), float(r[time_at].replace(",", "")) * scale))
        except (ValueError, IndexError):
            continue
    return out


def main(path):
    msms, cur, seen_work = [], [], False
    for name, ms in read_rows(path):
        if name == "tile_kernel":  # the bench's bases, before any MSM
            continue
        if name.startswith("digits_kernel") and seen_work:
            msms.append(cur)
            cur, seen_work = [], False
        if not name.startswith("digits_kernel"):
            seen_work = True
        cur.append((name, ms))
    if cur:
        msms.append(cur)
    by_kind = defaultdict(list)
    for m in msms:
        by_kind[kind_of({n for n, _ in m})].append(m)
    for kind, group in by_kind.items():
        total = defaultdict(float)
        count = defaultdict(int)
        for m in group:
            for n, ms in m:
                total[n] += ms
                count[n] += 1
        per = sum(total.values()) / len(group)
        print(f"{kind}: {len(group)} MSMs, {per:.1f} ms of kernels each")
        for n in sorted(total, key=lambda k: -total[k]):
            print(f"  {n:32s} {total[n] / len(group):9.2f} ms  {count[n] / len(group):7.1f} launches")


if __name__ == "__main__":
    main(sys.argv[1])
