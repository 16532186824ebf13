"""Benchmark: CLI start-up against the bare interpreter (issue 12, target ≤ 4×).

Medians of N subprocess runs of `python -c pass`, `hyperpod-debug --help` and
`hyperpod-debug explain "NVRM: Xid 79"`, and each command's ratio to the bare interpreter.

Two modes, because the environment may set PYTHONDONTWRITEBYTECODE=1 (no `.pyc` written):
`cached` compiles the sources first (`compileall`) and runs with bytecode caches; `--no-cache`
runs with PYTHONDONTWRITEBYTECODE=1 as found (whatever caches already exist are read).

    python scripts/bench_startup.py [--runs 11] [--no-cache] [--importtime]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_RATIO = 4.0
EXPLAIN_TEXT = "NVRM: Xid 79"


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _medians(
    commands: dict[str, list[str]], runs: int, env: dict[str, str]
) -> dict[str, tuple[float, float]]:
    """Each command's median wall and median CPU (user + system) seconds of `runs` runs,
    after a warm-up. The commands take turns, run by run, so that a burst of load on a
    shared machine slows all of them alike instead of one command's whole series (which
    skews the ratios). CPU time is the steadier figure on a loaded machine."""
    for command in commands.values():  # warm-up
        subprocess.run(command, check=True, capture_output=True, timeout=120, env=env)
    walls: dict[str, list[float]] = {name: [] for name in commands}
    cpus: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, command in commands.items():
            cpu = _children_cpu()
            start = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True, timeout=120, env=env)
            walls[name].append(time.perf_counter() - start)
            cpus[name].append(_children_cpu() - cpu)
    return {
        name: (statistics.median(walls[name]), statistics.median(cpus[name])) for name in commands
    }


def _commands() -> dict[str, list[str]]:
    script = Path(sys.executable).with_name("hyperpod-debug")
    cli = [str(script)] if script.exists() else [sys.executable, "-m", "agent.cli"]
    return {
        "python -c pass": [sys.executable, "-c", "pass"],
        "hyperpod-debug --help": [*cli, "--help"],
        f'hyperpod-debug explain "{EXPLAIN_TEXT}"': [*cli, "explain", EXPLAIN_TEXT],
    }


def importtime_top(
    command: list[str], env: dict[str, str], top: int = 12, *, check: bool = True
) -> None:
    """The largest cumulative imports of one command (`python -X importtime`)."""
    run_env = dict(env, PYTHONPROFILEIMPORTTIME="1")
    done = subprocess.run(
        command, check=check, capture_output=True, text=True, timeout=120, env=run_env
    )
    rows = []
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        fields = line.removeprefix("import time:").split("|")
        rows.append((int(fields[1]), fields[2].rstrip()))
    print(f"  {len(rows)} modules imported; largest (cumulative µs):")
    for cumulative, name in sorted(rows, reverse=True)[:top]:
        print(f"    {cumulative:9,}  {name}")


def cached_env() -> dict[str, str]:
    """The environment with bytecode caches allowed, after compiling the sources."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(ROOT / "agent"), str(ROOT / "tools")],
        check=False,
        capture_output=True,
        env=env,
    )
    return env


def run(runs: int, cached: bool, importtime: bool) -> bool:
    env = cached_env() if cached else dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    mode = "bytecode caches" if cached else "PYTHONDONTWRITEBYTECODE=1"
    print(f"start-up, {mode} (median of {runs} runs after a warm-up):")
    commands = _commands()
    bare_name = next(iter(commands))
    figures = _medians(commands, runs, env)
    bare_wall, bare_cpu = figures[bare_name]
    ok = True
    print(f"  {'':38} {'wall':>8} {'cpu':>8}   ratio to python -c pass (wall / cpu)")
    for name, (wall, cpu) in figures.items():
        line = f"  {name:38} {wall * 1000:5,.0f} ms {cpu * 1000:5,.0f} ms"
        if name != bare_name:
            wall_ratio, cpu_ratio = wall / bare_wall, cpu / bare_cpu
            met = wall_ratio <= TARGET_RATIO
            ok = ok and met
            verdict = "meets" if met else "misses"
            line += f"   {wall_ratio:4.1f}× / {cpu_ratio:4.1f}×  ({verdict} ≤ 4× wall)"
        print(line)
    if importtime:
        for name, command in list(commands.items())[1:]:
            print(f"  {name}:")
            importtime_top(command, env)
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=11, help="timed runs per command")
    parser.add_argument(
        "--no-cache", action="store_true", help="only PYTHONDONTWRITEBYTECODE=1 (no compileall)"
    )
    parser.add_argument(
        "--importtime", action="store_true", help="also list each command's largest imports"
    )
    args = parser.parse_args(argv)
    if not args.no_cache:
        run(args.runs, cached=True, importtime=args.importtime)
        print()
    run(args.runs, cached=False, importtime=args.importtime)
    return 0


if __name__ == "__main__":
    sys.exit(main())
