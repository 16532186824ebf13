"""Benchmark: how much of a live triage overlaps, measured on a replay with simulated latency.

    .venv/bin/python scripts/bench_latency.py [RECORDED.json] [--nodes 20000] [--latency 0.05]

The recording (default evals/clusters/demo-eks.json) is grown to --nodes nodes as
scripts/bench_triage.py grows it (the added nodes spread over the instance groups), then
triaged twice in this process with node probes off: once without latency (its CPU time is
the work), once with every replayed AWS and Kubernetes answer delayed by --latency seconds
(`triage --simulate-latency`), as a network round trip would delay it. Every request is
counted. The longest serial chain is the number of requests that must follow one another
whatever the concurrency: the two start-up calls (sts:GetCallerIdentity, DescribeCluster)
plus the most pages any one listing needed (each page needs the previous page's token).

Target (issue 12): wall with latency <= 1.2 x (chain x latency) + the CPU time without.
Without the overlap the wall would be about (requests x latency) + CPU.
Nothing here touches the network.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

from bench_triage import grow_nodes  # noqa: E402

DEFAULT_RECORDING = REPO / "evals" / "clusters" / "demo-eks.json"
TARGET_FACTOR = 1.2


class CountingResponder:
    """The replay store, counting the requests it answers: one per unpaged call, and the
    pages of each listing (a listing's first page plus one per continuation token)."""

    def __init__(self, store: Any) -> None:
        self._store = store
        self._lock = threading.Lock()
        self.unpaged = 0
        self.pages: Counter[str] = Counter()

    def respond(self, service: str, operation: str, params: dict[str, Any]) -> Any:
        call = self._store.respond(service, operation, params)
        token_keys = ("NextToken", "nextToken", "Marker")
        identity = {k: v for k, v in params.items() if k not in token_keys}
        key = f"{service}:{operation}:{json.dumps(identity, sort_keys=True, default=str)}"
        with self._lock:
            if call.paging is None:
                self.unpaged += 1
            elif any(params.get(k) for k in token_keys):
                self.pages[key] += 1
            else:
                # The first page; paginate() also looks the whole list up once more after
                # its last page (no size key then): that look-up is not a request.
                sized = any(k in params for k in ("MaxResults", "maxResults", "Limit", "limit"))
                if sized:
                    self.pages[key] += 1
        return call

    @property
    def requests(self) -> int:
        return self.unpaged + sum(self.pages.values())


class KubeCounter:
    """Counts replayed Kubernetes requests, pages per list."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.pages: Counter[str] = Counter()

    def wrap(self, answer: Any) -> Any:
        def counted(objects: Any, path: str, query: Any, selections: Any = None) -> Any:
            params = dict(query.items() if hasattr(query, "items") else query)
            identity = {k: v for k, v in params.items() if k not in ("continue", "limit")}
            with self._lock:
                self.pages[f"{path}?{json.dumps(identity, sort_keys=True)}"] += 1
            return answer(objects, path, query, selections)

        return counted


def one_run(path: Path, latency: float) -> tuple[float, float, CountingResponder, KubeCounter]:
    """Wall and CPU seconds of one triage of `path` (probes off), with its request counts."""
    from tools.aws.session import AwsAccess
    from tools.kube import responder
    from tools.recorded.model import load_recorded
    from tools.recorded.replay import ReplayStore
    from tools.target import TriageTarget
    from tools.triage.data import ClusterData
    from tools.triage.node_sources import NodeOptions, replay_sources
    from tools.triage.open_cluster import caller_account, recording_time
    from tools.triage.render import render_text
    from tools.triage.runner import run_triage

    recording = load_recorded(path)
    target = TriageTarget(cluster=recording.cluster, region=recording.region)
    aws = CountingResponder(ReplayStore(recording))
    kube = KubeCounter()
    original = responder.answer
    responder.answer = kube.wrap(original)
    try:
        start, start_cpu = time.perf_counter(), time.process_time()
        options = NodeOptions(probes=False, replay_latency=latency)
        access = AwsAccess(target.region, replay=aws)
        access.pace_replay(latency)
        data = ClusterData(
            access,
            target,
            now=recording_time(recording),
            sources=replay_sources(recording, options),
        )
        data.account = caller_account(access)
        report = run_triage(data)
        render_text(report)
        json.dumps(report.to_json())
        wall, cpu = time.perf_counter() - start, time.process_time() - start_cpu
    finally:
        responder.answer = original
    return wall, cpu, aws, kube


@dataclass(frozen=True)
class Overlap:
    wall: float  # with latency
    cpu: float  # CPU time of the same triage without latency
    requests: int
    aws_requests: int
    longest_aws: int  # pages of the longest AWS listing
    longest_kube: int  # pages of the longest Kubernetes listing
    latency: float

    @property
    def chain(self) -> int:
        return 2 + max(self.longest_aws, self.longest_kube)

    @property
    def bound(self) -> float:
        return TARGET_FACTOR * self.chain * self.latency + self.cpu

    @property
    def serial(self) -> float:
        return self.requests * self.latency + self.cpu


def measure(grown: Path, latency: float) -> Overlap:
    """A warm-up, a run without latency (its CPU time) and a run with `latency`."""
    one_run(grown, 0.0)  # warm-up: imports, botocore models
    _, cpu, _, _ = one_run(grown, 0.0)
    wall, _, aws, kube = one_run(grown, latency)
    return Overlap(
        wall=wall,
        cpu=cpu,
        requests=aws.requests + sum(kube.pages.values()),
        aws_requests=aws.requests,
        longest_aws=max(aws.pages.values(), default=1),
        longest_kube=max(kube.pages.values(), default=0),
        latency=latency,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("recorded", nargs="?", type=Path, default=DEFAULT_RECORDING)
    parser.add_argument("--nodes", type=int, default=20_000, help="size of the grown cluster")
    parser.add_argument("--latency", type=float, default=0.05, help="seconds per answer")
    args = parser.parse_args(argv)
    base = json.loads(args.recorded.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory(prefix="hpd-bench-") as tmp:
        grown = Path(tmp) / f"grown-{args.nodes}.json"
        grown.write_text(json.dumps(grow_nodes(base, args.nodes)), encoding="utf-8")
        o = measure(grown, args.latency)
    print(f"live-path overlap: {args.recorded.name} grown to {args.nodes:,} nodes, probes off")
    print(f"  latency per answer      {o.latency * 1000:,.0f} ms")
    kube_requests = o.requests - o.aws_requests
    print(
        f"  requests                {o.requests:,} "
        f"({o.aws_requests:,} AWS, {kube_requests:,} Kubernetes)"
    )
    print(
        f"  longest serial chain    {o.chain} requests (2 start-up + the longest listing: "
        f"AWS {o.longest_aws} pages, Kubernetes {o.longest_kube})"
    )
    print(f"  cpu without latency     {o.cpu:,.2f} s")
    print(f"  wall with latency       {o.wall:,.2f} s")
    print(f"  target                  {o.bound:,.2f} s (1.2 x chain x latency + cpu)")
    print(f"  if every request waited {o.serial:,.2f} s (requests x latency + cpu)")
    print(f"  verdict                 {'meets' if o.wall <= o.bound else 'misses'} the target")
    return 0


if __name__ == "__main__":
    sys.exit(main())
