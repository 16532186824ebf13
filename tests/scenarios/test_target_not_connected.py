"""The bundled TargetNotConnected scenario replays with the live transport's own reason."""

from __future__ import annotations

from pathlib import Path

from evals.grading import replay
from tools.findings import Status
from tools.probes.ssm import TARGET_NOT_CONNECTED
from tools.recorded.model import load_recorded

SCENARIO = (
    Path(__file__).resolve().parents[2] / "evals" / "clusters" / "ssm-target-not-connected.json"
)


def test_the_refused_node_is_reported_in_the_live_wording() -> None:
    report = replay(load_recorded(SCENARIO))
    [refused] = [
        f for f in report.findings if f.check == "node-reachability" and f.status is Status.FAIL
    ]
    assert refused.evidence["reason"] == TARGET_NOT_CONNECTED
    assert TARGET_NOT_CONNECTED in refused.message
