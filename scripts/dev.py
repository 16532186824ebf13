#!/usr/bin/env python3
"""Developer entry point that needs nothing but Python 3.11+.

    python3 scripts/dev.py demo     # create .venv, triage a bundled recorded cluster
    python3 scripts/dev.py test     # create .venv, lint, type-check, run every test
                                    # (pytest -n auto: one worker per core)
    python3 scripts/dev.py bench [NAME] [args]
                                    # benchmarks (figures, not pass/fail), NAME one of
                                    # BENCHMARKS below; default: triage; all targets:
                                    # python3 scripts/dev.py bench targets

The virtual environment is (re)installed from pyproject.toml when it changes.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
STAMP = VENV / ".pyproject.sha256"
DEMO_CLUSTER = ROOT / "evals" / "clusters" / "demo-eks.json"


def run(*args: str | Path) -> None:
    command = [str(a) for a in args]
    print("+", " ".join(command), flush=True)
    result = subprocess.run(command, cwd=ROOT, check=False)
    if result.returncode != 0:
        sys.exit(result.returncode)


def ensure_venv() -> None:
    if sys.version_info < (3, 11):  # noqa: UP036 - this script may be run by an older python3
        sys.exit(f"Python 3.11 or newer is required (this is {sys.version.split()[0]})")
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if (BIN / "python").exists() and STAMP.exists() and STAMP.read_text() == digest:
        return
    if not (BIN / "python").exists():
        print(f"+ creating {VENV}", flush=True)
        venv.create(VENV, with_pip=True)
    run(BIN / "python", "-m", "pip", "install", "--quiet", "--upgrade", "pip")
    run(BIN / "python", "-m", "pip", "install", "--quiet", "-e", ".[dev]")
    run(BIN / "python", "-m", "pip", "check")
    STAMP.write_text(digest)


def demo(extra: list[str]) -> None:
    cluster = DEMO_CLUSTER if DEMO_CLUSTER.exists() else ROOT / "evals/clusters/healthy-eks.json"
    run(BIN / "hyperpod-debug", "triage", "--recorded", cluster, *extra)


def test(extra: list[str]) -> None:
    run(BIN / "ruff", "check", ".")
    run(BIN / "ruff", "format", "--check", ".")
    run(BIN / "mypy")
    # One pytest worker per core (pytest-xdist, a dev dependency): the suite is mostly
    # CPU-bound and independent tests. A caller who picks `-n N` or `-p no:xdist` keeps it.
    chose = any(a.startswith(("-n", "--numprocesses")) or a == "no:xdist" for a in extra)
    run(BIN / "pytest", *([] if chose else ["-n", "auto"]), *extra)


BENCHMARKS = {
    "triage": "scripts/bench_triage.py",  # control-plane triage, CLI start-up
    "nodes": "scripts/bench_nodes.py",  # 1,000-node EKS with Kubernetes, 200-node probing
    "probes": "scripts/bench_probes.py",  # probing only, several concurrencies
    "agent": "scripts/bench_agent.py",  # prompt + tool tokens, largest tool result, chat start-up
    "redaction": "scripts/bench_redaction.py",  # worst case per pattern, 40 KB / 400 KB inputs
    "record": "scripts/bench_record.py",  # record vs triage of a 20,000-node cluster (≤ 2×)
    "faults": "scripts/bench_faults.py",  # live triage with four APIs always failing (loopback)
    "startup": "scripts/bench_startup.py",  # --help and explain vs python -c pass (≤ 4×)
    "latency": "scripts/bench_latency.py",  # replay with 50 ms per answer: the live overlap
    "targets": "scripts/bench_targets.py",  # every issue-12 target, one table
    "mcp": "scripts/bench_mcp.py",  # `mcp` start-up to the first tool list, tool-list size
    "chat": "scripts/bench_chat_startup.py",  # chat's first prompt on a pty vs python -c pass
    "small": "scripts/bench_small_triage.py",  # a small recorded triage vs python -c pass (≤ 0.6 s)
    "hostile": "scripts/bench_hostile.py",  # triage of one 50 MB line (probe, status, event)
}


def bench(extra: list[str]) -> None:
    which = extra[0] if extra and extra[0] in BENCHMARKS else "triage"
    rest = extra[1:] if extra and extra[0] in BENCHMARKS else extra
    run(BIN / "python", BENCHMARKS[which], *rest)


COMMANDS = {"demo": demo, "test": test, "bench": bench}


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        sys.exit(f"usage: python3 scripts/dev.py {{{'|'.join(COMMANDS)}}} [args...]")
    ensure_venv()
    COMMANDS[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    main()
