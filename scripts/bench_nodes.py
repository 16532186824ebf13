"""Benchmark the node level: a 1,000-node EKS cluster with its Kubernetes objects, and
probing 200 nodes with a simulated session time.

    .venv/bin/python scripts/bench_nodes.py [--nodes 1000] [--runs 3]
        [--probe-nodes 200] [--delay 2.0] [--concurrency 16 ...]

Part 1 builds an EKS world of --nodes healthy nodes (Kubernetes Node objects, aws-node /
kube-proxy / workload pods on each, CoreDNS) and times a triage that reads every one of
those objects through the real Kubernetes access layer (paging, slimming) as if from an
API server answering instantly. Then it records a triage of the world through the real
access layer and recorder, as `hyperpod-debug record` would (the file keeps only the
objects the checks looked at), and replays that file the way `triage --recorded` does
(load, replay AWS and Kubernetes and probe outputs, every check, text and JSON output):
median wall time of --runs, tracemalloc peak of one more run, the process's peak RSS.

Part 2 is scripts/bench_probes.py: --probe-nodes simulated nodes, each session taking
--delay seconds, through the real runner and framing, against the ideal
nodes / concurrency x delay. No network anywhere.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

import bench_probes  # noqa: E402

from cluster_simulator import base  # noqa: E402
from cluster_simulator.build import world_sources  # noqa: E402
from cluster_simulator.node_world import add_node_level  # noqa: E402
from cluster_simulator.world import World  # noqa: E402
from tools.aws.session import AwsAccess  # noqa: E402
from tools.recorded.model import dump_recorded, load_recorded  # noqa: E402
from tools.recorded.recorder import Recorder  # noqa: E402
from tools.target import TriageTarget  # noqa: E402
from tools.triage.data import ClusterData  # noqa: E402
from tools.triage.node_sources import replay_sources  # noqa: E402
from tools.triage.open_cluster import recording_time, triage_cluster  # noqa: E402
from tools.triage.render import render_text  # noqa: E402
from tools.triage.runner import run_triage  # noqa: E402


def big_eks(nodes: int) -> World:
    world = base.grow_group(base.healthy_eks(), base.GPU_GROUP, nodes - 2)
    return add_node_level(world)


def triage_world(world: World) -> int:
    """A triage against the world's full Kubernetes objects (every Node and Pod paged and
    slimmed, as from an API server that answers instantly) and its AWS answers."""
    target = TriageTarget(cluster=world.cluster["ClusterName"], region=world.region)
    recorder = Recorder()  # the sources want one; nothing is written
    access = AwsAccess(world.region, replay=world)
    report = run_triage(
        ClusterData(access, target, now=base.RECORDED_AT, sources=world_sources(world, recorder))
    )
    return len(report.findings)


def record_big_eks(world: World, path: Path) -> int:
    target = TriageTarget(cluster=world.cluster["ClusterName"], region=world.region)
    recorder = Recorder()
    access = AwsAccess(world.region, replay=world, recorder=recorder)
    run_triage(
        ClusterData(access, target, now=base.RECORDED_AT, sources=world_sources(world, recorder))
    )
    recording = recorder.build(cluster=target.cluster, region=target.region)
    dump_recorded(recording.model_copy(update={"recorded_at": base.iso(base.RECORDED_AT)}), path)
    return len(world.nodes)


def replay_once(path: Path) -> tuple[int, int]:
    recording = load_recorded(path)
    target = TriageTarget(cluster=recording.cluster, region=recording.region)
    access = AwsAccess(recording.region, replay=recording)
    report = triage_cluster(
        target, access, now=recording_time(recording), sources=replay_sources(recording)
    )
    render_text(report, colour=False)
    report.to_json()
    problems = sum(1 for f in report.findings if f.status in ("FAIL", "WARN"))
    return len(report.findings), problems + len(report.skipped)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--probe-nodes", type=int, default=200)
    parser.add_argument("--delay", type=float, default=2.0)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[16])
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big-eks.json"
        world = big_eks(args.nodes)
        pods = len(world.kubernetes.pods) if world.kubernetes else 0
        live = []
        for _ in range(args.runs):
            started = time.perf_counter()
            triage_world(world)
            live.append(time.perf_counter() - started)
        tracemalloc.start()
        triage_world(world)
        _, live_peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        print(
            f"EKS world: {len(world.nodes)} nodes, {pods} pods; triage reading every Kubernetes "
            f"object through paging and slimming: median {statistics.median(live) * 1000:.0f} ms"
            f" over {args.runs} runs, tracemalloc peak {live_peak / 1024 / 1024:.1f} MiB"
        )
        started = time.perf_counter()
        count = record_big_eks(world, path)
        built = time.perf_counter() - started
        size = path.stat().st_size
        print(f"EKS recording: {count} nodes, {size / 1024 / 1024:.1f} MiB, built in {built:.1f} s")
        times = []
        for _ in range(args.runs):
            started = time.perf_counter()
            findings, problems = replay_once(path)
            times.append(time.perf_counter() - started)
        tracemalloc.start()
        replay_once(path)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(
            f"  replayed triage: median {statistics.median(times) * 1000:.0f} ms over "
            f"{args.runs} runs ({findings} findings, {problems} problems/skips); "
            f"tracemalloc peak {peak / 1024 / 1024:.1f} MiB; ru_maxrss {rss:.0f} MiB"
        )
    print()
    bench_probes.main(
        [
            "--nodes",
            str(args.probe_nodes),
            "--delay",
            str(args.delay),
            "--concurrency",
            *map(str, args.concurrency),
        ]
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
