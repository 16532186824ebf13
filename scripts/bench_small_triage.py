"""Benchmark: a small recorded triage against `python -c pass` (issue 26, target ≤ 0.6 s).

Medians of N subprocess runs of `hyperpod-debug triage --recorded FILE` (text, and JSON
for the first file) for a few bundled recordings of a handful of nodes, next to
`python -c pass`, each with its ratio to the bare interpreter. The commands take turns run
by run, so that a burst of load on a shared machine slows them alike; CPU time (user +
system of the child) is the steadier figure on a loaded machine.

Two modes, as scripts/bench_chat_startup.py:

* with bytecode caches: a fresh PYTHONPYCACHEPREFIX that the warm-up run fills;
* without: PYTHONDONTWRITEBYTECODE=1 and a new, empty PYTHONPYCACHEPREFIX for every run,
  so every module (the project's and its dependencies') is compiled from source each time.

    python scripts/bench_small_triage.py [--runs 11] [--no-cache-only] [--importtime]
        [FILE ...]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_startup import importtime_top

ROOT = Path(__file__).resolve().parent.parent
CLUSTERS = ROOT / "evals" / "clusters"
# Bundled recordings of 1 to 6 HyperPod nodes: an EKS and a Slurm cluster.
DEFAULT_RECORDINGS = ("demo-eks.json", "healthy-slurm.json", "healthy-eks.json")
TARGET_SECONDS = 0.6
BARE = "python -c pass"


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _cli() -> list[str]:
    script = Path(sys.executable).with_name("hyperpod-debug")
    return [str(script)] if script.exists() else [sys.executable, "-m", "agent.cli"]


def _commands(recordings: list[Path]) -> dict[str, list[str]]:
    commands = {BARE: [sys.executable, "-c", "pass"]}
    for index, path in enumerate(recordings):
        triage = [*_cli(), "triage", "--recorded", str(path)]
        commands[f"triage {path.name}"] = triage
        if index == 0:
            commands[f"triage {path.name} --format json"] = [*triage, "--format", "json"]
    return commands


def _base_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "PYTHONPYCACHE"))}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    # Nothing may reach AWS, not even the instance metadata service.
    env["AWS_EC2_METADATA_DISABLED"] = "true"
    return env


def _run(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """One run's wall and CPU seconds. A triage exits 1 when it finds a problem: only a
    code above 1 is a failure of the benchmark."""
    cpu = _children_cpu()
    start = time.perf_counter()
    done = subprocess.run(command, check=False, capture_output=True, timeout=120, env=env)
    wall = time.perf_counter() - start
    if done.returncode > 1:
        sys.exit(f"{' '.join(command)} exited {done.returncode}: {done.stderr.decode()[-400:]}")
    return wall, _children_cpu() - cpu


def measure(
    commands: dict[str, list[str]], runs: int, cached: bool
) -> dict[str, tuple[float, float]]:
    """Each command's median wall and CPU seconds over `runs` runs after a warm-up round."""
    env = _base_env()
    walls: dict[str, list[float]] = {name: [] for name in commands}
    cpus: dict[str, list[float]] = {name: [] for name in commands}
    with tempfile.TemporaryDirectory(prefix="bench-small-triage-") as scratch:
        for attempt in range(runs + 1):  # round 0 is the warm-up (it fills the caches)
            for name, command in commands.items():
                run_env = dict(env)
                if cached:
                    run_env["PYTHONPYCACHEPREFIX"] = str(Path(scratch) / "cache")
                else:
                    # A new empty cache directory every run: nothing is read from an
                    # earlier run, and nothing is written.
                    prefix = Path(scratch) / f"{len(walls[name])}-{attempt}-{hash(name)}"
                    run_env.update(
                        {"PYTHONDONTWRITEBYTECODE": "1", "PYTHONPYCACHEPREFIX": str(prefix)}
                    )
                wall, cpu = _run(command, run_env)
                if attempt:
                    walls[name].append(wall)
                    cpus[name].append(cpu)
    return {
        name: (statistics.median(walls[name]), statistics.median(cpus[name])) for name in commands
    }


def report(figures: dict[str, tuple[float, float]], cached: bool, runs: int) -> bool:
    mode = (
        "with bytecode caches"
        if cached
        else "without (PYTHONDONTWRITEBYTECODE=1, a fresh empty PYTHONPYCACHEPREFIX per run)"
    )
    print(f"small recorded triage, {mode}, median of {runs} runs:")
    bare_wall, bare_cpu = figures[BARE]
    print(f"  {'':48} {'wall':>8} {'cpu':>8}   ratio to {BARE} (wall / cpu)")
    met_all = True
    for name, (wall, cpu) in figures.items():
        line = f"  {name:48} {wall * 1000:5,.0f} ms {cpu * 1000:5,.0f} ms"
        if name != BARE:
            met = wall <= TARGET_SECONDS
            met_all = met_all and met
            verdict = "meets" if met else "misses"
            line += f"   {wall / bare_wall:5.1f}× / {cpu / bare_cpu:5.1f}×  "
            line += f"({verdict} ≤ {TARGET_SECONDS} s wall)"
        print(line)
    return met_all


def importtime(command: list[str], top: int = 15) -> None:
    """The largest cumulative imports of one cached run (`python -X importtime`)."""
    with tempfile.TemporaryDirectory(prefix="bench-small-triage-") as scratch:
        env = dict(_base_env(), PYTHONPYCACHEPREFIX=scratch)
        # A first run fills the cache, so the one measured is a cached run.
        subprocess.run(command, check=False, capture_output=True, timeout=120, env=env)
        importtime_top(command, env, top, check=False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("files", nargs="*", type=Path, help="recordings (default: three small)")
    parser.add_argument("--runs", type=int, default=11, help="timed runs per command and mode")
    parser.add_argument("--no-cache-only", action="store_true", help="skip the cached mode")
    parser.add_argument(
        "--importtime", action="store_true", help="also list the first triage's largest imports"
    )
    args = parser.parse_args(argv)
    recordings = args.files or [CLUSTERS / name for name in DEFAULT_RECORDINGS]
    commands = _commands(recordings)
    for cached in [False] if args.no_cache_only else [True, False]:
        report(measure(commands, args.runs, cached), cached, args.runs)
        print()
    if args.importtime:
        importtime(list(commands.values())[1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
