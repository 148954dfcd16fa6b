#!/usr/bin/env python3
"""Every repository path named in the docs and in code comments must exist (scripts/test.sh).

Scans the tracked text files (git ls-files) for path-like words:
  - repository paths: src/snarkd/..., apps/..., tests/..., docs/..., scripts/..., fuzz/...,
    bench/..., tools/..., packaging/..., proto/..., .ci/...
  - paths relative to src/snarkd: <layer>/<file> for the library's layers (ff/field.hpp,
    cuda/prover.hpp, server/witness.*), with the extensions of our sources.
A trailing "*" or ".*" is a glob. Paths of other projects (bellperson's src/groth16/params.rs,
snarkjs's src/zkey_utils.js) are recognised by not starting with src/snarkd/ or an extension
we never use. Prints each missing path with file:line; exit 1 if any.
"""
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOP = r"(?:src/snarkd|apps|tests|docs|scripts|fuzz|bench|tools|packaging|proto|\.ci)"
LAYERS = r"(?:util|ff|ec|pairing|poly|msm|r1cs|groth16|cuda|engine|server)"
EXT = r"(?:hpp|cpp|cu|cuh|h|md|sh|py|txt|json|toml|proto|mjs|cjs|js|svg|png|service|circom|r1cs|wtns|zkey|params|vk|proof|csr)"
NAME = r"[A-Za-z0-9_.*-]"
# A path starts after a character that cannot continue one (so /var/lib/snarkd and
# build/apps/snarkd are not taken for apps/snarkd).
REPO_PATH = re.compile(r"(?<![A-Za-z0-9_./$-])(" + TOP + r"(?:/" + NAME + r"+)*/?)")
LAYER_PATH = re.compile(r"(?<![A-Za-z0-9_./$-])(" + LAYERS + r"/" + NAME + r"+\." + r"(?:" + EXT + r"|\*))(?![A-Za-z0-9_])")
SCANNED = re.compile(r"\.(md|hpp|cpp|cu|cuh|h|sh|py|txt|cmake|proto|mjs|cjs|toml|service)$|(^|/)CMakeLists\.txt$|^\.ci/run$")


def exists(path):
    """The path, a glob, or a file named by its stem (tests/server/daemon_bench, the tool)."""
    path = path.rstrip("/").rstrip(".")
    if "*" in path:
        return bool(glob.glob(os.path.join(ROOT, path)))
    return os.path.exists(os.path.join(ROOT, path)) or bool(glob.glob(os.path.join(ROOT, path) + ".*"))


def candidates(line):
    for m in REPO_PATH.finditer(line):
        p = m.group(1).rstrip(".,:;)")
        if p in ("src/snarkd",) or p.count("/") == 0:
            continue
        # Other projects' files: a repository path of ours has one of our extensions, or none.
        last = p.rstrip("/").split("/")[-1]
        if "." in last.strip(".*") and not re.fullmatch(r".*\." + EXT + r"|.*\.\*", last):
            continue
        yield p
    for m in LAYER_PATH.finditer(line):
        yield "src/snarkd/" + m.group(1)


def main():
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    missing = []
    for f in files:
        if not SCANNED.search(f) or "/fixtures/" in f:
            continue
        try:
            text = open(os.path.join(ROOT, f), encoding="utf-8").read()
        except (UnicodeDecodeError, FileNotFoundError):
            continue
        for n, line in enumerate(text.splitlines(), 1):
            if line.lstrip().startswith("#include"):  # the compiler checks those, relative to their include dirs
                continue
            for p in candidates(line):
                if not exists(p):
                    missing.append(f"{f}:{n}: {p}")
    for m in missing:
        print("missing path:", m)
    print(f"check_paths: {len(missing)} missing path(s) named in docs and comments")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
