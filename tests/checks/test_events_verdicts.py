"""Rules of tools/checks/events.py on literal events: which family an event points to and
how problem events group (the verdicts), without the finding wording."""

from __future__ import annotations

from tools.checks._cluster_events import EventScan
from tools.checks._event_families import UNMAPPED
from tools.checks._event_history import CURRENT, GONE
from tools.checks.events import event_groups, explained
from tools.triage.data.sagemaker_model import ClusterEvent

from ._events import event, parsed

EFA = "EFA health check failed on the instance"
OPAQUE = "Instance creation for i-0aaa failed"


def test_the_description_decides_else_the_failure_message() -> None:
    [efa, opaque] = parsed([event(EFA), event(OPAQUE, event_id="e-2")])
    family, text = explained(efa, {})
    assert (family.key, text) == ("efa-health-check", EFA)
    assert explained(opaque, {}) == (UNMAPPED, OPAQUE)
    metadata = {"Instance": {"FailureMessage": EFA}}
    detail = ClusterEvent.from_api(
        {**event(OPAQUE, event_id="e-2"), "EventDetails": {"EventMetadata": metadata}}
    )
    family, text = explained(opaque, {"e-2": detail})
    assert (family.key, text) == ("efa-health-check", f"{OPAQUE}: {EFA}")


def test_events_group_by_family_level_and_state_current_first() -> None:
    events = parsed(
        [
            event(EFA, instance="i-0gone", event_id="e-1"),
            event(EFA, event_id="e-2"),
            event(EFA, event_id="e-3", minutes_ago=5),
        ]
    )
    scan = EventScan(events=tuple(events), nodes={"i-0aaa": "Pending"})
    groups = event_groups(events, scan)
    assert [(g.family.key, g.level, g.state, len(g.events)) for g in groups] == [
        ("efa-health-check", "Error", CURRENT, 2),
        ("efa-health-check", "Error", GONE, 1),
    ]
