"""A recording does not depend on the order concurrent probes happened to finish in."""

from __future__ import annotations

from typing import Any

from tools.probes.model import NodeProbes, ProbeOutput
from tools.recorded.recorder import Recorder


def _record(order: list[str]) -> dict[str, Any]:
    recorder = Recorder()
    for instance in order:
        if instance.endswith("9"):
            recorder.record_probes(
                NodeProbes(instance_id=instance, unreachable="TargetNotConnected")
            )
        else:
            recorder.record_probes(
                NodeProbes(
                    instance_id=instance, outputs={"uptime": ProbeOutput(stdout="1.0 2.0\n")}
                )
            )
    recording = recorder.build(cluster="c", region="us-west-2")
    return recording.model_dump(exclude={"recorded_at"})


def test_nodes_finishing_in_any_order_record_the_same_file() -> None:
    nodes = [
        "i-0000000000000000b",
        "i-0000000000000000a",
        "i-00000000000000009",
        "i-00000000000000019",
    ]
    first = _record(nodes)
    assert first == _record(list(reversed(nodes)))
    assert list(first["probes"]) == sorted(n for n in nodes if not n.endswith("9"))
