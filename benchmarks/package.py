"""The package's executables per way of shipping the Swift runtime, and what each way costs a program's start.

Run (root: the programs start in a network namespace of their own; the release builds go into .build, ~10 min on
two cores once the modules are compiled; `make bench-package` does this)::

    .venv/bin/python -m benchmarks.package [--runs 50] [--json]

Options, each a release build (--static-swift-stdlib) of the same sources, one after another:

- ``four``: peerscand, peerscanctl, peerscan-web and peerscan-alerts, each its own executable with its own copy of
  the Swift runtime, Foundation and ICU's data (the package of 0.1.0 until this);
- ``one``: ``peerscan``, one executable that is the four programs (it runs the one it is started as);
- ``one-icu``: the same with ICU's data trimmed (scripts/icu-data);
- ``one-icu-nodyn``: the same without a dynamic symbol table of its own functions (``--no-export-dynamic``) — what
  the package ships (``make release-build``).

For each: the executables' bytes once stripped (``strip --strip-all``, as dh_strip does), those bytes compressed as
dpkg-deb compresses a package's files (xz, level 6), and peerscanctl's start: ``peerscanctl --version`` (the runtime's
and Foundation's start and exit, no connection) timed by hyperfine (``-N``, ``--warmup 5``; mean and min, ms), its
maximum RSS (GNU time's, MiB) and the shared libraries the loader maps for it (ldd). The package's own
size (``make deb``: the .deb and its Installed-Size) is docs/packaging.md's; the rest of the package (manual pages,
units, documents) is under 0.2 MB of it.

Caveats: the machine is shared, so compare the ratios of one run.
"""

from __future__ import annotations

import argparse
import json
import lzma
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROGRAMS = ("peerscand", "peerscanctl", "peerscan-web", "peerscan-alerts")
ICU_DATA = ROOT / ".build" / "icu-data.o"


def build(products: tuple[str, ...], trimmed: bool, exports: bool, into: Path) -> list[Path]:
    """Builds the products (release, runtime linked statically) and copies them, stripped, into `into`."""
    flags: list[str] = [] if exports else ["-Xlinker", "--no-export-dynamic"]
    if trimmed:
        symbol = subprocess.run(
            [ROOT / "scripts" / "icu-data", ICU_DATA], check=True, capture_output=True, text=True
        ).stdout.split()[0]
        flags += ["-Xlinker", f"--wrap={symbol}", "-Xlinker", str(ICU_DATA)]
    into.mkdir(parents=True)
    copies = []
    for product in products:
        subprocess.run(
            ["swift", "build", "-c", "release", "--static-swift-stdlib", "--product", product, *flags],
            cwd=ROOT, check=True, stdout=subprocess.DEVNULL,
        )
        copy = into / product
        subprocess.run(["strip", "--strip-all", "-o", copy, ROOT / ".build" / "release" / product], check=True)
        copies.append(copy)
    return copies


def xz_bytes(files: list[Path]) -> int:
    compressor = lzma.LZMACompressor(preset=6)
    size = 0
    for file in files:
        size += len(compressor.compress(file.read_bytes()))
    return size + len(compressor.flush())


def libraries(executable: Path) -> int:
    """How many shared libraries the dynamic loader maps for the executable (ldd: its NEEDED and theirs)."""
    listing = subprocess.run(["ldd", executable], check=True, capture_output=True, text=True).stdout
    return sum(1 for line in listing.splitlines() if "=>" in line)


def start(peerscanctl: Path, runs: int) -> dict[str, float]:
    """peerscanctl --version: hyperfine's mean and min (ms) and the child's maximum RSS (MiB), in a namespace."""
    with tempfile.NamedTemporaryFile(suffix=".json") as export:
        subprocess.run(
            ["unshare", "--net", "hyperfine", "-N", "--warmup", "5", "--runs", str(runs), "--export-json",
             export.name, f"{peerscanctl} --version"],
            check=True, stdout=subprocess.DEVNULL,
        )
        result = json.loads(Path(export.name).read_text())["results"][0]
    # GNU time's child is forked from time, a small process: its maximum RSS is the program's alone (a child forked
    # from this Python process would count this process's pages it shared before exec).
    measured = subprocess.run(
        ["unshare", "--net", "/usr/bin/time", "-f", "%M", peerscanctl, "--version"],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    max_rss_kib = int(measured.stderr.split()[-1])
    return {
        "mean_ms": round(result["mean"] * 1000, 1),
        "min_ms": round(result["min"] * 1000, 1),
        "max_rss_mib": round(max_rss_kib / 1024, 1),
    }


def measure(name: str, products: tuple[str, ...], trimmed: bool, exports: bool, scratch: Path, runs: int) -> dict:
    files = build(products, trimmed, exports, scratch / name)
    peerscanctl = scratch / name / "peerscanctl"
    if products == ("peerscan",):
        peerscanctl.symlink_to(files[0])  # the program it runs is the name it is started as
    stripped = sum(file.stat().st_size for file in files)
    return {
        "option": name,
        "executables": [file.name for file in files],
        "stripped_mb": round(stripped / 1e6, 1),
        "xz_mb": round(xz_bytes(files) / 1e6, 1),
        "peerscanctl_libraries": libraries(peerscanctl),
        "peerscanctl_version": start(peerscanctl, runs),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if os.geteuid() != 0:
        parser.error("run as root (the programs start in a network namespace of their own)")
    for tool, package in (("hyperfine", "hyperfine"), ("/usr/bin/time", "time")):
        if shutil.which(tool) is None:
            parser.error(f"{tool} is missing: apt-get install {package} (scripts/install-deps)")
    options = (  # name, products, ICU's data trimmed, dynamic symbols exported
        ("four", PROGRAMS, False, True),
        ("one", ("peerscan",), False, True),
        ("one-icu", ("peerscan",), True, True),
        ("one-icu-nodyn", ("peerscan",), True, False),
    )
    with tempfile.TemporaryDirectory() as scratch:
        results = [measure(*option, Path(scratch), args.runs) for option in options]
    if args.json:
        print(json.dumps(results, indent=2))
        return
    header = f"{'stripped MB':>12} {'xz MB':>7} {'libraries':>9} {'--version mean/min ms':>22} {'RSS MiB':>8}"
    print(f"{'option':14} {header}")
    for row in results:
        version = row["peerscanctl_version"]
        print(
            f"{row['option']:14} {row['stripped_mb']:>12} {row['xz_mb']:>7} {row['peerscanctl_libraries']:>9}"
            f" {version['mean_ms']:>13}/{version['min_ms']:<8} {version['max_rss_mib']:>8}"
        )


if __name__ == "__main__":
    main()
