"""Benchmark: `record` against the triage it records, on a synthetic large cluster.

    .venv/bin/python scripts/bench_record.py [RECORDED.json] [--nodes 20000] [--runs 3]

The recording (default evals/clusters/demo-eks.json) is grown to --nodes nodes with
scripts/bench_triage.py's helpers (every ListClusterNodes list grown, and for an EKS
recording one Kubernetes node per HyperPod node with its system DaemonSet pods). Then,
each as the median of --runs runs in this process:

  * triage: bench_triage's replayed triage (load the file, replay, run every check,
    render text and JSON);
  * record: the same load and replayed triage with a `Recorder` attached to everything it
    reads (AWS calls, Kubernetes lists and logs, node probes), then `recorder.build(...)`
    and `dump_recorded` to a temporary file, as `hyperpod-debug record` does after its
    live triage.

Replay stands in for the network on both sides, so the difference is what recording adds:
redaction, building the model and writing the file. The target (issue 12) is record ≤ 2×
triage; on a busy machine compare the CPU times (wall times follow the load). The redaction
share is measured by timing each top-level redaction call the recorder makes (its `redact`
/ `redact_text`, CPU time of the calling thread), and each phase (triage with the recorder
attached, build, dump) is shown apart; --profile adds a cProfile of one record. Nothing
here touches the network.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

from bench_triage import grow_nodes, one_triage, timed  # noqa: E402

if TYPE_CHECKING:
    from tools.recorded.model import RecordedCluster
    from tools.recorded.recorder import Recorder
    from tools.triage.data.node_probes import NodeSources

DEFAULT_RECORDING = REPO / "evals" / "clusters" / "demo-eks.json"


@dataclass
class RedactionClock:
    """Wall and CPU time spent inside the recorder's top-level redaction calls. Checks run
    concurrently and record from their threads, hence the lock; the CPU time is each calling
    thread's own (their sum is the redaction share of the process's CPU time, the steadier
    figure on a busy machine), and the wall times of overlapping calls add up."""

    seconds: float = 0.0
    cpu: float = 0.0
    calls: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def wrap(self, function: Callable[..., Any]) -> Callable[..., Any]:
        def timed_call(*args: Any, **kwargs: Any) -> Any:
            start, start_cpu = time.perf_counter(), time.thread_time()
            try:
                return function(*args, **kwargs)
            finally:
                elapsed = time.perf_counter() - start
                elapsed_cpu = time.thread_time() - start_cpu
                with self.lock:
                    self.seconds += elapsed
                    self.cpu += elapsed_cpu
                    self.calls += 1

        return timed_call


@contextmanager
def clocked_redaction(clock: RedactionClock) -> Iterator[None]:
    """Time the recorder's calls of `redact` and `redact_text`. Only the names the
    recorder module looks up are replaced: `redact` recursing into itself inside
    tools.redaction is not, so nested calls are not counted twice."""
    import tools.recorded.recorder as recorder_module

    names = vars(recorder_module)
    saved = {name: names[name] for name in ("redact", "redact_text")}
    names.update({name: clock.wrap(function) for name, function in saved.items()})
    try:
        yield
    finally:
        names.update(saved)


def recording_sources(recording: RecordedCluster, recorder: Recorder) -> NodeSources:
    """The replayed node-level sources with the recorder listening, as `live_sources`
    wires it on a live run: `open_cluster` with a recording replays them without telling
    the recorder (only the AWS layer takes both), so the hooks are attached here."""
    from dataclasses import replace

    from tools.kube.access import KubeAccess, KubeObservers
    from tools.probes.runner import ProbeRunner
    from tools.recorded.model import KubernetesObjects
    from tools.recorded.recorder import KUBE_READS
    from tools.sources import KubernetesUnavailable
    from tools.triage.node_sources import replay_sources

    replayed = replay_sources(recording)

    def kube() -> KubeAccess:
        try:
            replayed.kube()  # the recording's own refusal of the whole access, if any
        except KubernetesUnavailable as exc:
            recorder.record_unavailable("kubernetes", "kubeconfig", exc.reason)
            raise
        refused = {
            u.what: u.reason
            for u in recording.unavailable
            if u.kind == "kubernetes" and u.what in KUBE_READS
        }
        return KubeAccess.from_objects(
            recording.kubernetes or KubernetesObjects(),
            observers=KubeObservers(
                on_list=recorder.record_kube_list, on_log=recorder.record_kube_log
            ),
            unavailable=refused,
        )

    def probes() -> ProbeRunner:
        runner = replayed.probes()
        return replace(runner, on_node_done=recorder.record_probes)

    def slurm_local() -> ProbeRunner | None:
        runner = replayed.slurm_local()
        return replace(runner, on_node_done=recorder.record_probes) if runner else None

    return replace(replayed, kube=kube, probes=probes, slurm_local=slurm_local)


@dataclass
class RecordTimes:
    triage: float  # load + replayed triage with the recorder attached
    build: float
    dump: float
    redaction: float
    redaction_cpu: float
    redaction_calls: int
    size: int  # bytes written

    @property
    def total(self) -> float:
        return self.triage + self.build + self.dump


def one_record(path: Path, output: Path, *, mask_account: bool) -> RecordTimes:
    """Load, replay and triage `path` with a Recorder attached, then build and write the
    recording as `hyperpod-debug record` does."""
    from tools.recorded.model import dump_recorded, load_recorded
    from tools.recorded.recorder import Recorder
    from tools.target import TriageTarget
    from tools.triage.data import ClusterData
    from tools.triage.open_cluster import DataSource, caller_account, open_access, recording_time
    from tools.triage.runner import run_triage

    clock = RedactionClock()
    with clocked_redaction(clock):
        start = time.perf_counter()
        recording = load_recorded(path)
        node = recording.expect.node if recording.expect else None
        target = TriageTarget(cluster=recording.cluster, region=recording.region, node=node)
        recorder = Recorder(mask_account=mask_account)
        access = open_access(target, DataSource(recorded=recording, recorder=recorder))
        sources = recording_sources(recording, recorder)
        data = ClusterData(access, target, now=recording_time(recording), sources=sources)
        data.account = caller_account(access)
        run_triage(data)
        triaged = time.perf_counter()
        built = recorder.build(cluster=target.cluster, region=target.region, description="bench")
        done_build = time.perf_counter()
    dump_recorded(built, output)
    dumped = time.perf_counter()
    return RecordTimes(
        triage=triaged - start,
        build=done_build - triaged,
        dump=dumped - done_build,
        redaction=clock.seconds,
        redaction_cpu=clock.cpu,
        redaction_calls=clock.calls,
        size=output.stat().st_size,
    )


def measure(path: Path, runs: int) -> tuple[float, float]:
    """Median wall seconds of a triage of `path` and of a record of it (after a warm-up)."""
    with tempfile.TemporaryDirectory(prefix="hpd-bench-record-") as tmp:
        output = Path(tmp) / "recorded.json"
        one_triage(path)
        one_record(path, output, mask_account=False)
        triage = statistics.median(timed(lambda: one_triage(path), runs))
        record = statistics.median(
            timed(lambda: one_record(path, output, mask_account=False), runs)
        )
    return triage, record


def ms(seconds: float) -> str:
    return f"{seconds * 1000:,.0f} ms"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "recorded", nargs="?", type=Path, default=DEFAULT_RECORDING, help="recorded cluster file"
    )
    parser.add_argument("--nodes", type=int, default=20000, help="size of the synthetic cluster")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per measurement")
    parser.add_argument(
        "--mask-account", action="store_true", help="record with --mask-account (masks ids)"
    )
    parser.add_argument(
        "--profile", action="store_true", help="also print the top of a cProfile of one record"
    )
    args = parser.parse_args(argv)
    if args.runs < 1 or args.nodes < 1:
        parser.error("--runs and --nodes must be positive")
    if not args.recorded.is_file():
        parser.error(f"no such recorded cluster: {args.recorded}")

    base = json.loads(args.recorded.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory(prefix="hpd-bench-record-") as tmp:
        synthetic = Path(tmp) / f"synthetic-{args.nodes}-nodes.json"
        synthetic.write_text(json.dumps(grow_nodes(base, args.nodes)), encoding="utf-8")
        output = Path(tmp) / "recorded.json"
        size_mib = synthetic.stat().st_size / 2**20
        print(f"record vs triage: {args.recorded.name} grown to {args.nodes:,} nodes")
        print(f"  synthetic input {size_mib:,.1f} MiB; {args.runs} runs each (median)")

        one_triage(synthetic)  # warm-up: imports, the first botocore model load
        one_record(synthetic, output, mask_account=args.mask_account)
        triage_cpu: list[float] = []
        triage_times = timed(lambda: one_triage(synthetic), args.runs, triage_cpu)
        records: list[RecordTimes] = []
        record_cpu: list[float] = []
        record_times = timed(
            lambda: records.append(one_record(synthetic, output, mask_account=args.mask_account)),
            args.runs,
            record_cpu,
        )

        triage, record = statistics.median(triage_times), statistics.median(record_times)
        triage_cpu_time, record_cpu_time = (
            statistics.median(triage_cpu),
            statistics.median(record_cpu),
        )
        redaction = statistics.median(r.redaction for r in records)
        redaction_cpu = statistics.median(r.redaction_cpu for r in records)
        print(
            f"  triage  wall {ms(triage)} (min {ms(min(triage_times))}), cpu {ms(triage_cpu_time)}"
        )
        print(
            f"  record  wall {ms(record)} (min {ms(min(record_times))}), cpu {ms(record_cpu_time)}"
        )
        print(
            f"    triage with recorder {ms(statistics.median(r.triage for r in records))}, "
            f"build {ms(statistics.median(r.build for r in records))}, "
            f"dump {ms(statistics.median(r.dump for r in records))} "
            f"({records[-1].size / 2**20:,.1f} MiB written)"
        )
        print(
            f"    redaction cpu {ms(redaction_cpu)} ({redaction_cpu / record_cpu_time:.0%} of "
            f"record cpu) in {records[-1].redaction_calls:,} top-level calls; wall "
            f"{ms(redaction)} summed over the threads that record concurrently"
        )
        print(
            f"  record / triage: wall {record / triage:.2f}x, "
            f"cpu {record_cpu_time / triage_cpu_time:.2f}x (target <= 2x)"
        )

        if args.profile:
            import cProfile
            import pstats

            profiler = cProfile.Profile()
            profiler.runcall(one_record, synthetic, output, mask_account=args.mask_account)
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)
    return 0


if __name__ == "__main__":
    sys.exit(main())
