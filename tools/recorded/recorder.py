"""Capture what a triage reads, with secrets redacted, into a RecordedCluster.

Every AWS call (except the SSM session calls of the node probes: their answers carry
session tokens and replay never makes them), the Kubernetes lists and log tails, each
probed node's outputs, and what could not be read at all.
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal

from tools.aws.allowlist import SESSION_OPERATIONS, iam_action
from tools.aws.errors import ACCESS_DENIED_CODES
from tools.recorded.model import (
    PAGING_PARAMS,
    KubernetesObjects,
    Paging,
    ProbeRecord,
    RecordedCall,
    RecordedCluster,
    RecordedError,
    Unavailable,
)
from tools.recorded.replay import call_key
from tools.redaction import MASKED_ACCOUNT, REDACTED, AccountMasker, redact, redact_text
from tools.version import tool_version

if TYPE_CHECKING:
    from tools.probes.model import NodeProbes

UnavailableKind = Literal["api", "tool", "node", "kubernetes"]
_KUBE_KINDS = frozenset({"nodes", "pods", "daemonsets", "deployments", "events", "namespaces"})
# What a per-read `unavailable` entry of kind "kubernetes" may name: a list kind or the
# log tails. A whole-kubeconfig failure is recorded with what="kubeconfig" instead.
KUBE_READS = _KUBE_KINDS | {"logs"}

__all__ = ["MASKED_ACCOUNT", "REDACTED", "Recorder", "redact"]


class Recorder:
    """Collects calls in order; a repeated identical call is stored once."""

    def __init__(self, *, mask_account: bool = False) -> None:
        # One masker for the whole recording: each real account keeps one fake id.
        self.mask_account: AccountMasker | bool = AccountMasker() if mask_account else False
        # The recording's clock: pass it as the triage's `now` so time-windowed calls
        # (FilterLogEvents startTime/endTime) are made with the parameters replay will use.
        self.now = datetime.now(UTC).replace(microsecond=0)
        self._calls: dict[str, RecordedCall] = {}
        self.unavailable: list[Unavailable] = []
        self._probes: dict[str, dict[str, ProbeRecord | str]] = {}
        self._kube: dict[str, dict[tuple[str, str], dict[str, Any]]] = {}
        self._kube_logs: dict[str, str] = {}
        # Probe results arrive from the runner's worker threads.
        self._lock = threading.Lock()

    def _store(self, call: RecordedCall) -> None:
        if (call.service, call.operation) in SESSION_OPERATIONS:
            # StartSession answers with a session token; replay answers probes from
            # `probes` and never opens a session, so these calls are never kept.
            return
        with self._lock:
            self._calls[call_key(call.service, call.operation, call.params)] = call

    def _identity(self, params: dict[str, Any]) -> dict[str, Any]:
        identity = {k: v for k, v in params.items() if k not in PAGING_PARAMS}
        result: dict[str, Any] = redact(identity, mask_account=self.mask_account)
        return result

    def record_response(
        self,
        service: str,
        operation: str,
        params: dict[str, Any],
        response: dict[str, Any],
        *,
        paging: Paging | None = None,
    ) -> None:
        if (service, operation) == ("sts", "GetCallerIdentity"):
            # Only the account is used; the caller's role session name is personal data.
            response = {**response, "UserId": REDACTED, "Arn": REDACTED}
        self._store(
            RecordedCall(
                service=service,
                operation=operation,
                params=self._identity(params),
                response=redact(response, mask_account=self.mask_account),
                paging=paging,
            )
        )

    def record_error(
        self,
        service: str,
        operation: str,
        params: dict[str, Any],
        *,
        code: str,
        message: str,
        status: int,
    ) -> None:
        self._store(
            RecordedCall(
                service=service,
                operation=operation,
                params=self._identity(params),
                error=RecordedError(
                    code=code,
                    message=redact(message, mask_account=self.mask_account),
                    http_status=min(max(status, 300), 599),
                ),
            )
        )

    # -- node-level sources ------------------------------------------------------------------

    def _text(self, text: str) -> str:
        return redact_text(text, mask_account=self.mask_account)

    def record_probes(self, node: NodeProbes) -> None:
        """One probed node (the runner's `on_node_done`): its outputs, or why it was
        unreachable. A node probed twice (node probes, then the Slurm controller probes)
        keeps both sets."""
        if node.unreachable is not None:
            self.record_unavailable("node", node.instance_id, node.unreachable)
            return
        records: dict[str, ProbeRecord | str] = {}
        for name, output in node.outputs.items():
            stdout = self._text(output.stdout)
            # A plain string is the common case (finished, exit 0) and reads best by hand.
            records[name] = (
                stdout
                if output.ok
                else ProbeRecord(
                    stdout=stdout, exit_code=output.exit_code, truncated=output.truncated
                )
            )
        with self._lock:
            self._probes.setdefault(node.instance_id, {}).update(records)

    def record_kube_list(self, kind: str, items: list[dict[str, Any]]) -> None:
        """A Kubernetes list as read; objects met in several lists are kept once."""
        if kind not in _KUBE_KINDS:
            raise ValueError(f"not a recorded Kubernetes kind: {kind!r}")
        with self._lock:
            stored = self._kube.setdefault(kind, {})
            for item in items:
                metadata = item.get("metadata") or {}
                key = (str(metadata.get("namespace") or ""), str(metadata.get("name") or ""))
                stored[key] = redact(item, mask_account=self.mask_account)

    def record_kube_log(self, key: str, text: str) -> None:
        with self._lock:
            self._kube_logs[key] = self._text(text)

    def record_kube_unavailable(self, kind: str, reason: str) -> None:
        """A Kubernetes read that failed (KubeAccess's `on_error`): e.g. pods forbidden
        while nodes were readable. Replay raises the same reason for that kind."""
        if kind not in KUBE_READS and kind != "kubeconfig":
            raise ValueError(f"not a recorded Kubernetes read: {kind!r}")
        self.record_unavailable("kubernetes", kind, reason)

    def record_unavailable(self, kind: UnavailableKind, what: str, reason: str) -> None:
        """Something that could not be read at all (a node, a tool, Kubernetes)."""
        entry = Unavailable(kind=kind, what=what, reason=self._text(reason))
        with self._lock:
            if entry not in self.unavailable:
                self.unavailable.append(entry)

    def _kubernetes(self) -> KubernetesObjects | None:
        if not self._kube and not self._kube_logs:
            return None
        # Sorted, like the AWS calls: checks read concurrently, in any order.
        lists = {kind: [items[key] for key in sorted(items)] for kind, items in self._kube.items()}
        return KubernetesObjects(
            **lists, logs={k: self._kube_logs[k] for k in sorted(self._kube_logs)}
        )

    def build(self, *, cluster: str, region: str, description: str = "") -> RecordedCluster:
        with self._lock:
            return RecordedCluster(
                # Which version asked these calls: a newer one replaying the file knows
                # that a call it lacks is one this version never made.
                tool_version=tool_version(),
                description=description,
                recorded_at=self.now.strftime("%Y-%m-%dT%H:%M:%SZ"),
                cluster=redact(cluster, mask_account=self.mask_account),
                region=region,
                # Sorted by call: checks run concurrently and make their calls in any
                # order, so the same cluster must not record differently from run to run.
                aws=[self._calls[key] for key in sorted(self._calls)],
                kubernetes=self._kubernetes(),
                # Sorted: nodes are probed concurrently and finish in any order, so the same
                # cluster must not record differently from one run to the next.
                probes={node: dict(self._probes[node]) for node in sorted(self._probes)},
                unavailable=[
                    *sorted(self.unavailable, key=lambda u: (u.kind, u.what)),
                    *self._denied_apis(),
                ],
            )

    def _denied_apis(self) -> list[Unavailable]:
        """Every API the recording could not read for lack of permission, at a glance."""
        return [
            Unavailable(kind="api", what=iam_action(c.service, c.operation), reason=c.error.code)
            for c in (self._calls[key] for key in sorted(self._calls))
            if c.error is not None and c.error.code in ACCESS_DENIED_CODES
        ]
