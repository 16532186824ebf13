"""Every speed and size target of the project, measured and printed as one table.

    .venv/bin/python scripts/bench_targets.py [--nodes 20000] [--small 2000] [--runs 3]
    python3 scripts/dev.py bench targets

Rows (targets from issue 12; docs/performance.md explains each and how to read it):
  * recorded triage of the EKS demo cluster grown to --nodes nodes (Kubernetes nodes and
    system pods grown with it, scripts/bench_triage.py): wall against a script that only
    json.loads the same file, tracemalloc peak against that script's peak, and the growth
    from --small to --nodes nodes;
  * the same triage with 50 ms before every replayed answer (scripts/bench_latency.py)
    against 1.2 x (longest serial chain x 50 ms) + the CPU time of the run without latency;
  * `record` of that cluster against the triage it records (scripts/bench_record.py);
  * `hyperpod-debug --help` and `explain TEXT` against `python -c pass`
    (scripts/bench_startup.py, bytecode caches);
  * the JSON report's size at --nodes nodes, EKS and Slurm.
Figures are medians of --runs runs in this process (start-up: subprocesses). Nothing here
touches the network.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

import bench_latency  # noqa: E402
import bench_record  # noqa: E402
import bench_startup  # noqa: E402
from bench_triage import grow_nodes, one_triage, timed, traced_peak  # noqa: E402

EKS = REPO / "evals" / "clusters" / "demo-eks.json"
SLURM = REPO / "evals" / "clusters" / "healthy-slurm.json"
JSON_BUDGET = 100 * 1024


@dataclass(frozen=True)
class Row:
    figure: str
    measured: str
    target: str
    met: bool


def _grown(base: Path, nodes: int, folder: Path) -> Path:
    path = folder / f"{base.stem}-{nodes}.json"
    raw = json.loads(base.read_text(encoding="utf-8"))
    path.write_text(json.dumps(grow_nodes(raw, nodes)), encoding="utf-8")
    return path


def _median_wall(function: Callable[[], object], runs: int) -> float:
    return statistics.median(timed(function, runs))


def _load_only(path: Path) -> Callable[[], object]:
    def load() -> object:
        with path.open(encoding="utf-8") as handle:
            return json.load(handle)

    return load


def scale_rows(small: Path, large: Path, nodes: int, small_nodes: int, runs: int) -> list[Row]:
    one_triage(large)  # warm-up: imports, botocore models
    wall = _median_wall(lambda: one_triage(large), runs)
    small_wall = _median_wall(lambda: one_triage(small), runs)
    load_wall = _median_wall(_load_only(large), runs)
    peak, load_peak = traced_peak(lambda: one_triage(large)), traced_peak(_load_only(large))
    growth = wall / small_wall
    time_ratio, memory_ratio = wall / load_wall, peak / load_peak
    return [
        Row(
            f"triage {nodes:,} nodes / json.load, wall",
            f"{wall:,.2f} s / {load_wall:,.2f} s = {time_ratio:,.1f}x",
            "<= 3x",
            time_ratio <= 3,
        ),
        Row(
            f"triage {nodes:,} nodes / json.load, peak memory",
            f"{peak / 2**20:,.0f} / {load_peak / 2**20:,.0f} MiB = {memory_ratio:,.1f}x",
            "<= 1.5x",
            memory_ratio <= 1.5,
        ),
        Row(
            f"triage {small_nodes:,} -> {nodes:,} nodes, wall",
            f"{small_wall:,.2f} s -> {wall:,.2f} s = {growth:,.1f}x",
            "<= 10x",
            growth <= 10,
        ),
    ]


def latency_row(large: Path, latency: float) -> Row:
    figures = bench_latency.measure(large, latency)
    return Row(
        f"triage with {latency * 1000:,.0f} ms per answer, wall",
        f"{figures.wall:,.2f} s (chain {figures.chain}, {figures.requests} requests, "
        f"cpu {figures.cpu:,.2f} s)",
        f"<= {figures.bound:,.2f} s",
        figures.wall <= figures.bound,
    )


def record_row(large: Path, runs: int) -> Row:
    triage_wall, record_wall = bench_record.measure(large, runs)
    ratio = record_wall / triage_wall
    return Row(
        "record / triage of the same cluster, wall",
        f"{record_wall:,.2f} s / {triage_wall:,.2f} s = {ratio:,.1f}x",
        "<= 2x",
        ratio <= 2,
    )


def startup_rows(runs: int) -> list[Row]:
    commands = bench_startup._commands()
    figures = bench_startup._medians(commands, runs, bench_startup.cached_env())
    names = list(commands)
    bare, _ = figures[names[0]]
    rows = []
    for name in names[1:]:
        wall, _ = figures[name]
        ratio = wall / bare
        rows.append(
            Row(
                f"{name} / python -c pass",
                f"{wall * 1000:,.0f} / {bare * 1000:,.0f} ms = {ratio:,.1f}x",
                "<= 4x",
                ratio <= bench_startup.TARGET_RATIO,
            )
        )
    return rows


def json_size_row(label: str, path: Path, nodes: int) -> Row:
    from tools.recorded.model import load_recorded
    from tools.target import TriageTarget
    from tools.triage.open_cluster import DataSource, open_cluster
    from tools.triage.runner import run_triage

    recording = load_recorded(path)
    target = TriageTarget(cluster=recording.cluster, region=recording.region)
    report = run_triage(open_cluster(target, source=DataSource(recorded=recording)))
    # As `triage --format json` prints it.
    size = len(json.dumps(report.to_json(), indent=2, ensure_ascii=False).encode())
    return Row(
        f"JSON report, {label} {nodes:,} nodes",
        f"{size / 1024:,.0f} KB",
        f"<= {JSON_BUDGET // 1024} KB",
        size <= JSON_BUDGET,
    )


def print_table(rows: list[Row]) -> None:
    widths = [max(len(getattr(r, f)) for r in rows) for f in ("figure", "measured", "target")]
    header = ("figure", "measured", "target")
    print("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)) + "  verdict")
    for row in rows:
        cells = (row.figure, row.measured, row.target)
        line = "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True))
        print(f"{line}  {'meets' if row.met else 'MISSES'}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--nodes", type=int, default=20_000)
    parser.add_argument("--small", type=int, default=2_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--latency", type=float, default=0.05, help="seconds per answer")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="hpd-targets-") as tmp:
        folder = Path(tmp)
        large, small = _grown(EKS, args.nodes, folder), _grown(EKS, args.small, folder)
        slurm = _grown(SLURM, args.nodes, folder)
        rows += scale_rows(small, large, args.nodes, args.small, args.runs)
        rows.append(latency_row(large, args.latency))
        rows.append(record_row(large, args.runs))
        rows += startup_rows(max(args.runs, 5))
        rows.append(json_size_row("EKS", large, args.nodes))
        rows.append(json_size_row("Slurm", slurm, args.nodes))
    print_table(rows)
    print(f"({time.perf_counter() - started:,.0f} s; machine: {_machine()})")
    return 0


def _machine() -> str:
    import os
    import platform

    return f"{os.cpu_count()} CPUs, Python {platform.python_version()}, {platform.system()}"


if __name__ == "__main__":
    sys.exit(main())
