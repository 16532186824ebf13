"""Probe many nodes: bounded concurrency, a per-node budget, retries on transient failures."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from tools.probes.catalog import NODE_TIMEOUT_S
from tools.probes.model import NodeProbes
from tools.probes.transport import NodeUnreachable, ProbeTarget, ProbeTransport, run_bundle

DEFAULT_CONCURRENCY = 16
RETRY_DELAYS_S = (2.0, 5.0)  # TargetNotConnected right after a reboot, SSM throttling


@dataclass(frozen=True)
class ProbePlan:
    target: ProbeTarget
    probes: tuple[str, ...]


@dataclass
class ProbeRunner:
    transport: ProbeTransport
    concurrency: int = DEFAULT_CONCURRENCY
    node_timeout_s: float = NODE_TIMEOUT_S
    retry_delays_s: Sequence[float] = RETRY_DELAYS_S
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep
    on_node_done: Callable[[NodeProbes], None] | None = field(default=None, repr=False)

    def probe_node(self, plan: ProbePlan) -> NodeProbes:
        started = self.clock()
        deadline = started + self.node_timeout_s
        target = plan.target
        attempt = 0
        while True:
            remaining = deadline - self.clock()
            try:
                outputs = run_bundle(self.transport, target, plan.probes, max(remaining, 1.0))
                result = NodeProbes(
                    instance_id=target.instance_id,
                    group=target.group,
                    instance_type=target.instance_type,
                    outputs=outputs,
                    elapsed_s=round(self.clock() - started, 3),
                )
                break
            except NodeUnreachable as exc:
                delay = self.retry_delays_s[attempt] if attempt < len(self.retry_delays_s) else None
                if not exc.transient or delay is None or self.clock() + delay >= deadline:
                    result = NodeProbes(
                        instance_id=target.instance_id,
                        group=target.group,
                        instance_type=target.instance_type,
                        unreachable=exc.reason,
                        elapsed_s=round(self.clock() - started, 3),
                    )
                    break
                attempt += 1
                self.sleep(delay)
        if self.on_node_done is not None:
            self.on_node_done(result)
        return result

    def run(self, plans: Sequence[ProbePlan]) -> dict[str, NodeProbes]:
        """Probe every planned node; results keep the order of `plans`."""
        if not plans:
            return {}
        workers = max(1, min(self.concurrency, len(plans)))
        pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="probe")
        try:
            results = list(pool.map(self.probe_node, plans))
        except BaseException:
            # Ctrl-C in a chat: return at once rather than wait for every node still being
            # probed (up to the node timeout each); nodes not yet started never start.
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown()
        return {result.instance_id: result for result in results}
