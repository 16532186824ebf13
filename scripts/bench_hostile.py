"""Benchmark: a triage of a recording with one huge hostile value in it.

    .venv/bin/python scripts/bench_hostile.py [--mb 50] [--only KIND] [--profile]

Each case copies the bundled demo-eks recording, puts one value of MB megabytes into one
field (one line with no newline in it, the worst case for line-based parsers) and times
`hyperpod-debug triage --recorded FILE --format json` on it, as a user runs it. The files are
written to a temporary folder and removed. Issue 26 set the bound: linear work stays
linear, at most 5 s for 50 MB (a 50 MB probe line took 49 s and a 50 MB node status message
55 s before). Figures, not pass/fail: tests/hostile/test_hostile_huge.py checks the output
on smaller values. --profile runs each case in-process under cProfile and prints the top
functions by cumulative time instead.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BASE = ROOT / "evals" / "clusters" / "demo-eks.json"
CLI = Path(sys.executable).with_name("hyperpod-debug")


def _calls(raw: dict[str, Any], operation: str) -> list[dict[str, Any]]:
    return [c for c in raw["aws"] if c.get("operation") == operation and c.get("response")]


def node_status_message(raw: dict[str, Any], value: str) -> None:
    """The status message of the first node listed."""
    call = _calls(raw, "ListClusterNodes")[0]
    call["response"]["ClusterNodeSummaries"][0]["InstanceStatus"]["Message"] = value


def every_node_status(raw: dict[str, Any], value: str) -> None:
    """The value shared out over the status messages of every node listed (MB in all)."""
    nodes = [
        n for c in _calls(raw, "ListClusterNodes") for n in c["response"]["ClusterNodeSummaries"]
    ]
    share = len(value) // max(len(nodes), 1)
    for node in nodes:
        node["InstanceStatus"]["Message"] = value[:share]


def cluster_event(raw: dict[str, Any], value: str) -> None:
    """The description of the first cluster event."""
    _calls(raw, "ListClusterEvents")[0]["response"]["Events"][0]["Description"] = value


def probe_line(probe: str) -> Callable[[dict[str, Any], str], None]:
    """One line appended to the output of ``probe`` on the first probed node."""

    def mutate(raw: dict[str, Any], value: str) -> None:
        outputs = next(iter(raw["probes"].values()))
        record = outputs[probe]
        if isinstance(record, dict):
            record["stdout"] = f"{record.get('stdout', '')}\n{value}\n"
        else:
            outputs[probe] = f"{record}\n{value}\n"

    return mutate


# The probes whose parsers read their output in the most different ways: kernel messages
# (line patterns), package lists (a version per word), the deep health check log (JSON
# lines), nvidia-smi CSV, systemd unit states.
PROBES = ("kernel_log", "efa_packages", "deep_health_check_log", "gpu_query", "services")
CASES: dict[str, Callable[[dict[str, Any], str], None]] = {
    "node-status-message": node_status_message,
    "node-status-every-node": every_node_status,
    "cluster-event": cluster_event,
    **{f"probe-line:{probe}": probe_line(probe) for probe in PROBES},
}


def hostile_value(size: int) -> str:
    """Words and digits with no newline and no secret shape: the text a runaway process
    prints, which every parser and redaction step has to look at."""
    unit = "NVRM: Xid 13, pid=1234 x"
    return (unit * (size // len(unit) + 1))[:size]


def write_case(folder: Path, kind: str, size: int) -> Path:
    raw = json.loads(BASE.read_text(encoding="utf-8"))
    raw.pop("expect", None)
    CASES[kind](raw, hostile_value(size))
    path = folder / f"{kind.replace(':', '-')}.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    return path


def run_cli(path: Path) -> tuple[float, float, int, int]:
    """Wall seconds, CPU seconds (user + system: steadier on a busy machine), exit code and
    output size of one triage."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [str(CLI), "triage", "--recorded", str(path), "--format", "json"],
        capture_output=True,
        check=False,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.returncode, len(done.stdout)


def profile(path: Path) -> None:
    import cProfile
    import pstats

    sys.path.insert(0, str(ROOT))
    from typer.testing import CliRunner

    from agent.cli import app
    from tools.triage import runner

    # One check at a time, in this thread: cProfile sees only the thread it runs in.
    runner.run_checks.__kwdefaults__ = {**(runner.run_checks.__kwdefaults__ or {}), "workers": 1}
    profiler = cProfile.Profile()
    profiler.enable()
    CliRunner().invoke(app, ["triage", "--recorded", str(path), "--format", "json"])
    profiler.disable()
    pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=50.0, help="size of the value in MB")
    parser.add_argument("--only", choices=sorted(CASES), action="append")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    size = int(args.mb * 1_000_000)
    print(f"{'case':<34} {'size':>8} {'wall s':>7} {'cpu s':>6} {'exit':>5} {'output':>10}")
    with tempfile.TemporaryDirectory(prefix="hpd-bench-hostile-") as folder:
        for kind in args.only or list(CASES):
            path = write_case(Path(folder), kind, size)
            if args.profile:
                print(f"-- {kind}")
                profile(path)
                continue
            wall, cpu, code, output = run_cli(path)
            print(f"{kind:<34} {args.mb:>6g}MB {wall:>7.1f} {cpu:>6.1f} {code:>5} {output:>9,}B")
            path.unlink()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
