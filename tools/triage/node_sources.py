"""Where the node-level sources come from: a live cluster, a recording, or a live run being
recorded.

`NodeSources` holds factories; each is called only when a check first needs its source, and
raises SourceUnavailable when the source cannot be used (the checks that need it are then
skipped with the reason). Heavy imports (the Kubernetes client) stay inside the factories.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from tools.probes.local import local_slurm_runner
from tools.probes.model import ProbeOutput
from tools.probes.runner import DEFAULT_CONCURRENCY, ProbeRunner
from tools.probes.ssm import PLUGIN, SsmSessionTransport, find_plugin
from tools.probes.transport import RecordedProbes
from tools.recorded.model import KubernetesObjects
from tools.recorded.recorder import KUBE_READS
from tools.sources import KubernetesUnavailable, ProbesUnavailable, SourceUnavailable
from tools.triage.data.node_probes import LOCAL, MAX_FAILING_NODES, NodeSources

if TYPE_CHECKING:
    from tools.aws.session import AwsAccess
    from tools.kube.access import KubeAccess
    from tools.recorded.model import ProbeRecord, RecordedCluster
    from tools.recorded.recorder import Recorder

T = TypeVar("T")
PROBES_DISABLED = "node probes disabled (--no-probes)"
# `unavailable` entries of kind "tool" name what was missing or switched off.
DISABLED_TOOL = "node probes"


@dataclass(frozen=True)
class NodeOptions:
    """The command line's say over node-level sources."""

    kubeconfig: Path | None = None
    context: str | None = None
    probes: bool = True
    probe_concurrency: int = DEFAULT_CONCURRENCY
    max_probe_nodes: int = MAX_FAILING_NODES
    # Replay only: seconds waited before each recorded Kubernetes answer (--simulate-latency).
    replay_latency: float = 0.0


def _once(factory: Callable[[], T]) -> Callable[[], T]:
    """Build a source once per run (both the node probes and the Slurm probes ask for the
    runner); a failure is remembered and raised again."""
    lock = threading.Lock()
    done: list[T] = []
    failed: list[SourceUnavailable] = []

    def call() -> T:
        with lock:
            if failed:
                raise failed[0]
            if not done:
                try:
                    done.append(factory())
                except SourceUnavailable as exc:
                    failed.append(exc)
                    raise
            return done[0]

    return call


# -- live ------------------------------------------------------------------------------------


def live_sources(
    access: AwsAccess,
    options: NodeOptions,
    *,
    profile: str | None = None,
    endpoint_url: str | None = None,
    recorder: Recorder | None = None,
) -> NodeSources:
    """Kubernetes from the kubeconfig, node probes over SSM, Slurm probes here when this
    machine has sinfo. With a recorder, everything they read (and what they could not) is
    captured for the recording."""
    on_node_done = recorder.record_probes if recorder is not None else None

    def kube() -> KubeAccess:
        from tools.kube.access import KubeAccess, KubeObservers

        try:
            return KubeAccess.from_kubeconfig(
                options.kubeconfig,
                options.context,
                observers=KubeObservers(
                    on_list=recorder.record_kube_list if recorder is not None else None,
                    on_log=recorder.record_kube_log if recorder is not None else None,
                    on_error=recorder.record_kube_unavailable if recorder is not None else None,
                ),
            )
        except KubernetesUnavailable as exc:
            if recorder is not None:
                recorder.record_unavailable("kubernetes", "kubeconfig", exc.reason)
            raise

    def probes() -> ProbeRunner:
        if not options.probes:
            if recorder is not None:
                recorder.record_unavailable("tool", DISABLED_TOOL, PROBES_DISABLED)
            raise ProbesUnavailable(PROBES_DISABLED, hint="")
        plugin = find_plugin()
        if plugin is None:
            reason = f"{PLUGIN} not found on PATH"
            if recorder is not None:
                recorder.record_unavailable("tool", PLUGIN, reason)
            raise ProbesUnavailable(reason)
        transport = SsmSessionTransport(access, plugin, profile=profile, endpoint_url=endpoint_url)
        return ProbeRunner(
            transport, concurrency=options.probe_concurrency, on_node_done=on_node_done
        )

    def slurm_local() -> ProbeRunner | None:
        if not options.probes:
            return None  # --no-probes: nothing runs, here or on a node
        return local_slurm_runner(on_node_done=on_node_done)

    return NodeSources(
        kube=_once(kube),
        probes=_once(probes),
        slurm_local=_once(slurm_local),
        max_failing_nodes=options.max_probe_nodes,
    )


# -- replay ----------------------------------------------------------------------------------


def _output(record: ProbeRecord | str) -> ProbeOutput:
    if isinstance(record, str):
        return ProbeOutput(stdout=record)
    return ProbeOutput(stdout=record.stdout, exit_code=record.exit_code, truncated=record.truncated)


def replay_sources(recording: RecordedCluster, options: NodeOptions | None = None) -> NodeSources:
    """The node-level sources as the recording saw them: its Kubernetes objects, its probe
    outputs, and the same "unavailable" answers where the live run had none."""
    options = options or NodeOptions()
    outputs: dict[str, dict[str, ProbeOutput]] = {
        node: {name: _output(record) for name, record in probes.items()}
        for node, probes in recording.probes.items()
    }
    unreachable = {u.what: u.reason for u in recording.unavailable if u.kind == "node"}
    tools = {u.what: u.reason for u in recording.unavailable if u.kind == "tool"}
    # Kubernetes entries name either one read the live run could not make (a list kind or
    # "logs": replayed as that read failing again) or the whole access ("kubeconfig").
    kube_entries = [u for u in recording.unavailable if u.kind == "kubernetes"]
    kube_refused = {u.what: u.reason for u in kube_entries if u.what in KUBE_READS}
    kube_reasons = [u.reason for u in kube_entries if u.what not in KUBE_READS]
    # Recorded sessions are replayed as they ended: nothing transient to retry.
    no_retries: tuple[float, ...] = ()

    def kube() -> KubeAccess:
        from tools.kube.access import KubeAccess

        if kube_reasons:
            raise KubernetesUnavailable(kube_reasons[0])
        if recording.kubernetes is None and not kube_refused:
            raise KubernetesUnavailable("not recorded: Kubernetes objects")
        return KubeAccess.from_objects(
            recording.kubernetes or KubernetesObjects(),
            unavailable=kube_refused,
            latency=options.replay_latency,
        )

    def probes() -> ProbeRunner:
        if not options.probes:
            raise ProbesUnavailable(PROBES_DISABLED, hint="")
        if DISABLED_TOOL in tools:
            raise ProbesUnavailable(tools[DISABLED_TOOL], hint="")
        if PLUGIN in tools:
            raise ProbesUnavailable(tools[PLUGIN])
        # A planned node with neither outputs nor an "unavailable" entry answers with no
        # outputs (each check then says it could not read them): a live run that probed
        # no node at all records nothing, and must replay the same.
        node_outputs = {node: probes for node, probes in outputs.items() if node != LOCAL}
        return ProbeRunner(
            RecordedProbes(node_outputs, unreachable),
            concurrency=options.probe_concurrency,
            retry_delays_s=no_retries,
        )

    def slurm_local() -> ProbeRunner | None:
        if not options.probes or LOCAL not in outputs:
            return None
        return ProbeRunner(
            RecordedProbes({LOCAL: outputs[LOCAL]}), concurrency=1, retry_delays_s=no_retries
        )

    return NodeSources(
        kube=kube,
        probes=_once(probes),
        slurm_local=slurm_local,
        max_failing_nodes=options.max_probe_nodes,
    )
