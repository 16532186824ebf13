"""Benchmark: probing many nodes through the real runner, framing and guard.

    .venv/bin/python scripts/bench_probes.py [--nodes 200] [--delay 2.0] [--concurrency 16 ...]

Each simulated session sleeps --delay seconds (what one SSM session of the whole probe
bundle costs on a real node, roughly) and then answers with framed output, so the run
exercises the same bundle building, catalogue check, framing and parsing as a live one.
Prints, per concurrency: wall time, the ideal (nodes / concurrency x delay, and the
whole-wave bound ceil(nodes / concurrency) x delay), and the overhead over the latter.
No network: the transport is simulated.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tools.probes.catalog import NodeKind, probes_for
from tools.probes.model import ProbeOutput
from tools.probes.runner import ProbePlan, ProbeRunner
from tools.probes.transport import ProbeTarget, RecordedProbes


def plans(nodes: int) -> list[ProbePlan]:
    names = tuple(n for n in probes_for({NodeKind.NVIDIA, NodeKind.EFA, NodeKind.EKS}))
    return [
        ProbePlan(
            ProbeTarget("abcdef123456", "gpu-workers", f"i-{n:017x}", "ml.p5.48xlarge"), names
        )
        for n in range(nodes)
    ]


def outputs(targets: list[ProbePlan]) -> dict[str, dict[str, ProbeOutput]]:
    sample = {name: ProbeOutput(stdout=f"{name} output line\n" * 20) for name in targets[0].probes}
    return {plan.target.instance_id: sample for plan in targets}


def run(nodes: int, delay: float, concurrency: int) -> tuple[float, int]:
    targets = plans(nodes)
    transport = RecordedProbes(outputs(targets), delay_s=delay)
    runner = ProbeRunner(transport, concurrency=concurrency)
    started = time.perf_counter()
    results = runner.run(targets)
    elapsed = time.perf_counter() - started
    complete = sum(
        1
        for r in results.values()
        if r.unreachable is None and len(r.outputs) == len(targets[0].probes)
    )
    return elapsed, complete


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=200)
    parser.add_argument("--delay", type=float, default=2.0, help="seconds per node session")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[16])
    args = parser.parse_args(argv)
    print(f"probing {args.nodes} simulated nodes, {args.delay:.1f} s per session")
    print(f"{'concurrency':>11} {'wall s':>8} {'ideal s':>8} {'waves s':>8} {'overhead':>9} ok")
    for concurrency in args.concurrency:
        elapsed, complete = run(args.nodes, args.delay, concurrency)
        ideal = args.nodes / concurrency * args.delay
        waves = math.ceil(args.nodes / concurrency) * args.delay
        overhead = (elapsed - waves) / waves * 100
        print(
            f"{concurrency:>11} {elapsed:>8.2f} {ideal:>8.2f} {waves:>8.2f} {overhead:>8.1f}% "
            f"{complete}/{args.nodes}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
