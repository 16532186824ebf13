"""Benchmark: `chat` time to its first prompt on a terminal (issue 24), against `python -c pass`.

Each command runs in a pseudo-terminal (pexpect), as a user starts it; the time is from
spawning to the first "you>" (for `python -c pass`: to its exit). Commands:

* `chat --provider anthropic`: a fake key and ANTHROPIC_BASE_URL on a closed loopback port,
  so nothing reaches the network (the first prompt needs no model call);
* `chat --provider bedrock`: fake static AWS keys, a region and AWS_ENDPOINT_URL_BEDROCK_RUNTIME
  on a closed loopback port (again no model call before the first prompt);
* `chat --provider scripted` with an empty script;
* `python -c pass`.

Both modes of issue 12's start-up benchmark (scripts/bench_startup.py): with bytecode
caches (sources compiled first), and without (PYTHONDONTWRITEBYTECODE=1 and a fresh, empty
PYTHONPYCACHEPREFIX, so every module is compiled from source on every run). Each figure is
the median of N runs, the commands taking turns run by run so that load on a shared
machine slows them alike.

    python scripts/bench_chat_startup.py [--runs 7] [--no-cache-only]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pexpect

ROOT = Path(__file__).resolve().parent.parent
PROMPT = "you>"
TIMEOUT = 60
RECORDING = ROOT / "evals" / "clusters" / "demo-eks.json"
FAKE_KEY = "sk-ant-bench-0123456789abcdef"


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _cli() -> list[str]:
    script = Path(sys.executable).with_name("hyperpod-debug")
    return [str(script)] if script.exists() else [sys.executable, "-m", "agent.cli"]


def _commands(script: Path) -> dict[str, tuple[list[str], dict[str, str]]]:
    chat = [*_cli(), "chat", "--recorded", str(RECORDING)]
    anthropic_env = {
        "ANTHROPIC_API_KEY": FAKE_KEY,
        "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{_closed_port()}",
    }
    bedrock_env = {
        "AWS_ACCESS_KEY_ID": "AKIAFAKEFAKEFAKEFAKE",
        "AWS_SECRET_ACCESS_KEY": "fake-secret-for-the-benchmark",
        "AWS_REGION": "us-west-2",
        "AWS_ENDPOINT_URL_BEDROCK_RUNTIME": f"http://127.0.0.1:{_closed_port()}",
    }
    return {
        "python -c pass": ([sys.executable, "-c", "pass"], {}),
        "chat --provider scripted": (
            [*chat, "--provider", "scripted", "--script", str(script)],
            {},
        ),
        "chat --provider anthropic": ([*chat, "--provider", "anthropic"], anthropic_env),
        "chat --provider bedrock": ([*chat, "--provider", "bedrock"], bedrock_env),
    }


def _base_env() -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("ANTHROPIC_", "AWS_", "PYTHONPYCACHEPREFIX"))
    }
    env.update({"TERM": "xterm-256color", "LANG": "C.UTF-8", "AWS_EC2_METADATA_DISABLED": "true"})
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _time_to_prompt(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    child = pexpect.spawn(
        command[0], command[1:], cwd=str(ROOT), env=env, dimensions=(40, 80), encoding="utf-8"
    )
    try:
        if command[1:] == ["-c", "pass"]:
            child.expect(pexpect.EOF, timeout=TIMEOUT)
        else:
            child.expect_exact(PROMPT, timeout=TIMEOUT)
        elapsed = time.perf_counter() - started
        if child.isalive():
            child.send("/quit\r")  # Enter as a terminal sends it (prompt_toolkit reads \r)
            child.expect(pexpect.EOF, timeout=TIMEOUT)
    finally:
        child.close(force=True)
    return elapsed


def run(runs: int, cached: bool, script: Path) -> dict[str, float]:
    env = _base_env()
    if cached:
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", str(ROOT / "agent"), str(ROOT / "tools")],
            check=False,
            capture_output=True,
            env=env,
        )
    commands = _commands(script)
    times: dict[str, list[float]] = {name: [] for name in commands}
    with tempfile.TemporaryDirectory(prefix="bench-pycache-") as scratch:
        for attempt in range(runs + 1):  # the first round is a warm-up, not counted
            for name, (command, extra) in commands.items():
                run_env = {**env, **extra}
                if not cached:
                    # A new empty cache directory for every run: nothing is read from
                    # an earlier run, and nothing is written (PYTHONDONTWRITEBYTECODE).
                    prefix = Path(scratch) / f"{name.replace(' ', '_')}-{attempt}"
                    run_env.update(
                        {"PYTHONDONTWRITEBYTECODE": "1", "PYTHONPYCACHEPREFIX": str(prefix)}
                    )
                elapsed = _time_to_prompt(command, run_env)
                if attempt:
                    times[name].append(elapsed)
    return {name: statistics.median(values) for name, values in times.items()}


def report(figures: dict[str, float], cached: bool, runs: int) -> None:
    mode = "with bytecode caches" if cached else "without (PYTHONDONTWRITEBYTECODE=1, empty cache)"
    print(f"time to first prompt on a terminal, {mode}, median of {runs} runs:")
    bare = figures["python -c pass"]
    for name, seconds in figures.items():
        ratio = "" if name == "python -c pass" else f"   {seconds / bare:4.1f}× python -c pass"
        print(f"  {name:28} {seconds * 1000:6,.0f} ms{ratio}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=7, help="timed runs per command and mode")
    parser.add_argument("--no-cache-only", action="store_true", help="skip the cached mode")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-chat-") as directory:
        script = Path(directory) / "script.json"
        script.write_text('{"turns": []}', encoding="utf-8")
        modes = [False] if args.no_cache_only else [True, False]
        for cached in modes:
            report(run(args.runs, cached, script), cached, args.runs)
            print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
