"""A finding's evidence stays bounded whatever the cluster size: lists and mappings keep
their first EVIDENCE_ITEMS items with `<name>_total` / `<name>_not_shown` counts."""

from __future__ import annotations

import json
from typing import Any

from tools.findings import EVIDENCE_ITEMS, Priority, bounded, cap_evidence, fail, info

NODES = [f"i-0{i:016x}" for i in range(20_000)]


def test_bounded_keeps_the_first_items_and_counts_the_rest() -> None:
    kept = bounded("nodes", iter(NODES))
    assert kept["nodes"] == NODES[:EVIDENCE_ITEMS]
    assert kept["nodes_total"] == 20_000
    assert kept["nodes_not_shown"] == 20_000 - EVIDENCE_ITEMS
    assert bounded("nodes", NODES[:3]) == {"nodes": NODES[:3]}
    cut = bounded("nodes", NODES[:5], 5, total=20_000)
    assert (cut["nodes"], cut["nodes_total"], cut["nodes_not_shown"]) == (NODES[:5], 20_000, 19_995)


def test_a_check_fed_20000_items_yields_bounded_evidence() -> None:
    finding = fail(
        "demo",
        Priority.P1,
        "A",
        "20,000 nodes are down",
        resources=NODES,
        nodes=NODES,
        states=dict.fromkeys(NODES, "down"),
        groups=[{"name": "workers", "members": NODES}],
        count=len(NODES),
    )
    evidence = finding.evidence
    assert evidence["nodes"] == NODES[:EVIDENCE_ITEMS]
    assert (evidence["nodes_total"], evidence["nodes_not_shown"]) == (20_000, 19_950)
    assert list(evidence["states"]) == NODES[:EVIDENCE_ITEMS]
    assert (evidence["states_total"], evidence["states_not_shown"]) == (20_000, 19_950)
    group = evidence["groups"][0]
    assert group["members"] == NODES[:EVIDENCE_ITEMS]
    assert (group["members_total"], group["members_not_shown"]) == (20_000, 19_950)
    assert finding.resources == NODES[:EVIDENCE_ITEMS]
    assert (evidence["resources_total"], evidence["resources_not_shown"]) == (20_000, 19_950)
    assert evidence["count"] == 20_000
    assert len(json.dumps(finding.to_json())) < 20_000


def test_bounded_evidence_is_left_as_the_check_made_it() -> None:
    finding = info("demo", "A", "many", **bounded("rows", NODES, 80))
    assert len(finding.evidence["rows"]) == 80
    assert finding.evidence["rows_total"] == 20_000


def test_small_evidence_is_unchanged() -> None:
    evidence: dict[str, Any] = {"nodes": ("a", "b"), "by_group": {"w": ["a"]}, "n": 2, "note": None}
    assert cap_evidence(evidence) == evidence
    assert info("demo", "A", "few", **evidence).evidence == evidence
