"""No planted secret survives any output path: a recording (the dumped JSON), the triage
report (text and JSON) read back from it, a conversation transcript, and the ticket
(summary, bundle files, the agent's ticket fields).

The secrets are planted where cluster text enters a triage: a node's status message, a
cluster event's description, lifecycle log lines, a Kubernetes event and a probe output.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cluster_simulator import base
from cluster_simulator.build import record_scenario
from cluster_simulator.edits import FAILED_NODE, add_event, group_of, set_status, write_log
from cluster_simulator.scenario import Scenario
from cluster_simulator.world import World
from tools.recorded.model import RecordedCluster, dump_recorded
from tools.target import TriageTarget
from tools.triage.open_cluster import DataSource, open_cluster
from tools.triage.report import TriageReport
from tools.triage.runner import run_triage

from .planted_secrets import PLANTED, Planted

# Planted inside longer text: a PEM marker cut at the very end of a text
# ("-----BEGIN RSA PRIV") holds no secret once other text follows it.
INSIDE = tuple(p for p in PLANTED if p.kind != "pem-marker-cut")


def _plant(texts: list[str]) -> Scenario:
    message = "\n".join(texts)

    def edit(world: World) -> None:
        group = group_of(world, FAILED_NODE)
        stream = f"LifecycleConfig/{group}/{FAILED_NODE}"
        set_status(world, FAILED_NODE, "Failure", f"Lifecycle scripts did not complete: {message}")
        add_event(world, "ev-planted", FAILED_NODE, "Error", f"Node failed: {message}")
        write_log(world, stream, ["Running on_create.sh", *texts, "exit 1"], timedelta(minutes=9))
        if world.kubernetes is not None and world.kubernetes.events:
            event = dict(world.kubernetes.events[0])
            event["message"] = message
            world.kubernetes.events[0] = event
        for outputs in world.probes.values():
            for name, output in list(outputs.items()):
                outputs[name] = output.model_copy(update={"stdout": output.stdout + "\n" + message})
                break
            break

    return Scenario("planted-secrets", "secrets planted in cluster text", "eks", edit)


def _triage(recording: RecordedCluster) -> TriageReport:
    target = TriageTarget(cluster=recording.cluster, region=recording.region)
    return run_triage(open_cluster(target, source=DataSource(recorded=recording)))


def _outputs(recording: RecordedCluster, tmp: Path) -> dict[str, str]:
    from agent.commands.ticket import bundle_texts
    from agent.state import ConversationState
    from agent.ticket import build_ticket
    from agent.ticket_bundle import render_summary
    from agent.toolset.cluster import ClusterSession
    from agent.toolset.ticket_tool import draft_ticket
    from agent.transcript import Transcript
    from tools.triage.render import render_text

    path = tmp / "recording.json"
    dump_recorded(recording, path)
    report = _triage(recording)
    now = datetime(2025, 1, 1, tzinfo=UTC)
    facts = build_ticket(report, now=now, error_strings=[p.text for p in PLANTED])
    outputs = {
        "recording": path.read_text(encoding="utf-8"),
        "report-text": render_text(report),
        "report-json": json.dumps(report.to_json(), ensure_ascii=False),
        "ticket-summary": render_summary(facts, created=now),
        **{f"bundle-{n}": t for n, t in bundle_texts(report, facts, created=now).items()},
    }
    target = TriageTarget(cluster=recording.cluster, region=recording.region)
    state = ConversationState(cluster=target.cluster, region=target.region)
    state.note_triage(report)
    state.error_strings = [p.text for p in PLANTED]
    payload = draft_ticket(state, ClusterSession(target=target, recordings=[recording]))
    outputs["ticket-fields"] = json.dumps(payload, ensure_ascii=False, default=str)
    transcript = Transcript({"cluster": recording.cluster})
    transcript.add({"type": "user", "text": "\n".join(p.text for p in PLANTED)})
    transcript.add({"type": "tool_result", "name": "triage", "result": report.to_json()})
    transcript.add({"type": "assistant", "text": outputs["report-text"]})
    outputs["transcript"] = "\n".join(transcript.lines())
    return outputs


def _leaks(outputs: dict[str, str], planted: list[Planted]) -> list[str]:
    found = []
    for name, text in outputs.items():
        flat = " ".join(text.split())
        for p in planted:
            secret = " ".join(p.secret.split())
            if secret in text or secret in flat or json.dumps(p.secret)[1:-1] in text:
                found.append(f"{p.kind} in {name}")
    return found


@pytest.fixture(scope="module")
def every_kind_recorded() -> RecordedCluster:
    # One line each: a cut PEM block would otherwise take the kinds after it along.
    return record_scenario(_plant([p.text for p in INSIDE]))


def test_every_planted_kind_stays_out_of_every_output(
    every_kind_recorded: RecordedCluster, tmp_path: Path
) -> None:
    outputs = _outputs(every_kind_recorded, tmp_path)
    assert _leaks(outputs, list(INSIDE)) == []
    # the planted text did reach the outputs (or the test would prove nothing)
    assert "<redacted>" in outputs["recording"]
    assert "<redacted>" in outputs["report-text"]
    assert "<redacted>" in outputs["transcript"]


def test_the_recording_holds_the_texts_redacted_not_dropped(
    every_kind_recorded: RecordedCluster,
) -> None:
    text = every_kind_recorded.model_dump_json()
    assert "Lifecycle scripts did not complete" in text
    assert "Node failed" in text
    assert text.count("<redacted>") >= len(PLANTED)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    planted=st.lists(st.sampled_from(INSIDE), min_size=1, max_size=4, unique_by=lambda p: p.kind),
    glue=st.sampled_from([" ", "\n", "; ", " | "]),
)
def test_any_planted_mix_stays_out_of_every_output(planted: list[Planted], glue: str) -> None:
    import tempfile

    recording = record_scenario(_plant([glue.join(p.text for p in planted)]))
    with tempfile.TemporaryDirectory() as tmp:
        outputs = _outputs(recording, Path(tmp))
    assert _leaks(outputs, planted) == []


def test_recording_time_is_the_scenario_clock(every_kind_recorded: RecordedCluster) -> None:
    assert every_kind_recorded.recorded_at == base.iso(base.RECORDED_AT)
