"""How a bundle of probes reaches a node: live over SSM, replayed, or simulated.

Every transport receives the framed bundle command (never probe names alone) and returns
the session's raw output; `run_bundle` builds the command, checks it against the catalogue,
and parses the output back. Replay and simulation therefore exercise the same framing and
the same guard as a live session.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from tools.probes.framing import build_bundle, bundle_probes, frame, new_nonce, parse_bundle
from tools.probes.model import ProbeOutput


@dataclass(frozen=True)
class ProbeTarget:
    """One node to probe. `ssm_target` uses the cluster id, never its name."""

    cluster_id: str
    group: str
    instance_id: str
    instance_type: str = ""

    @property
    def ssm_target(self) -> str:
        return f"sagemaker-cluster:{self.cluster_id}_{self.group}-{self.instance_id}"


class NodeUnreachable(Exception):
    """No session could be opened (or it died before any probe ran)."""

    def __init__(self, reason: str, *, transient: bool = False) -> None:
        self.reason = reason
        self.transient = transient
        super().__init__(reason)


class ProbeTransport(Protocol):
    def run_command(self, target: ProbeTarget, command: str, timeout_s: float) -> str:
        """Run one catalogue bundle on the node and return everything it printed (partial
        output on timeout). Raises NodeUnreachable when no session could be opened."""
        ...


def run_bundle(
    transport: ProbeTransport, target: ProbeTarget, names: Sequence[str], timeout_s: float
) -> dict[str, ProbeOutput]:
    nonce = new_nonce()
    command = build_bundle(names, nonce)
    if bundle_probes(command) is None:  # defence in depth: never send a non-catalogue command
        raise ValueError("refusing a command that is not a catalogue bundle")
    output = transport.run_command(target, command, timeout_s)
    return parse_bundle(output, nonce, names)


def _nonce_of(command: str) -> str:
    return command.split("@@HPD-", 1)[1][:16]


class RecordedProbes:
    """Answers bundles from recorded probe outputs; a node recorded as unreachable raises,
    and a probe that was not recorded is simply absent (the check says so)."""

    def __init__(
        self,
        outputs: Mapping[str, Mapping[str, ProbeOutput]],
        unreachable: Mapping[str, str] | None = None,
        *,
        delay_s: float = 0.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._outputs = outputs
        self._unreachable = dict(unreachable or {})
        self._delay_s = delay_s  # the simulated time of one session (benchmarks)
        self._sleep = sleep

    def run_command(self, target: ProbeTarget, command: str, timeout_s: float) -> str:
        names = bundle_probes(command)
        if names is None:
            raise ValueError("not a catalogue bundle")
        if self._delay_s:
            self._sleep(min(self._delay_s, timeout_s))
        reason = self._unreachable.get(target.instance_id)
        if reason is not None:
            raise NodeUnreachable(reason)
        recorded = self._outputs.get(target.instance_id, {})
        chosen = {name: recorded[name] for name in names if name in recorded}
        return frame(chosen, _nonce_of(command))
