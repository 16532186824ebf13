"""The remediation table (tools/remediation/) and everything that must agree with it: the
rendered system prompts (chat and MCP workflow), the checks' advice, and the references."""

from __future__ import annotations

import re

import pytest

from prompts import render
from tools.references import catalog_text, section_text
from tools.remediation import (
    HEADINGS,
    RULES,
    SLURM_DRAIN,
    FirstAction,
    Replacement,
    Signal,
    advice,
    known,
    prompt_table,
    replacement_first,
    rule,
)
from tools.sections import SECTIONS

# -- the table itself --------------------------------------------------------------------------


def test_one_row_per_signal() -> None:
    signals = [r.signal for r in RULES]
    assert len(signals) == len(set(signals))
    assert set(signals) == set(Signal)


@pytest.mark.parametrize("row", RULES, ids=lambda r: r.signal.value)
def test_each_row_is_consistent(row: object) -> None:
    from tools.remediation import Rule

    assert isinstance(row, Rule)
    assert row.section in SECTIONS
    assert row.source
    # Words are one clause each: a finding appends them after " — ".
    for words in (row.evidence, row.first, row.then):
        assert words == words.strip()
        assert "\n" not in words
        assert not words.endswith(".")
    # A conclusive row replaces first; every other row starts with something milder.
    if row.replacement is Replacement.IMMEDIATELY:
        assert row.first_action is FirstAction.REPLACE
        assert "replace" in row.first.lower()
    else:
        assert row.first_action is not FirstAction.REPLACE
    if row.replacement is Replacement.NEVER:
        assert not re.search(r"\breplace (it|the node)\b", row.advice)
    assert replacement_first(row.signal) is (row.replacement is Replacement.IMMEDIATELY)


def test_rows_that_take_the_node_away_need_a_drain_on_slurm() -> None:
    assert rule(Signal.HARDWARE_XID).drain_first
    assert rule(Signal.GPU_ROW_REMAP_FAILURE).drain_first
    assert not rule(Signal.APPLICATION_XID).drain_first
    assert not rule(Signal.NEURON_HANG_ON_COLLECTIVES).drain_first


def test_lookups_accept_ids_and_refuse_anything_else() -> None:
    assert rule("gpu-row-remap-failure") is rule(Signal.GPU_ROW_REMAP_FAILURE)
    assert known("gpu-row-remap-failure") is Signal.GPU_ROW_REMAP_FAILURE
    for junk in ("", "replace", "GPU-ROW-REMAP-FAILURE", None, 64, ["gpu-row-remap-failure"]):
        assert known(junk) is None
        assert not replacement_first(str(junk))


def test_the_rules_the_issue_names() -> None:
    """The audit's contradictions, settled one way."""
    assert rule(Signal.GPU_UNCORRECTABLE_ECC).first_action is FirstAction.REBOOT
    assert rule(Signal.GPU_UNCORRECTABLE_ECC).replacement is Replacement.AFTER_REBOOT
    assert rule(Signal.GPU_ROW_REMAP_FAILURE).replacement is Replacement.IMMEDIATELY
    assert rule(Signal.HARDWARE_XID_REPEATED).replacement is Replacement.IMMEDIATELY
    assert rule(Signal.NEURON_ACTION_TERMINATE).replacement is Replacement.IMMEDIATELY
    assert rule(Signal.NEURON_HANG_ON_COLLECTIVES).replacement is Replacement.NEVER
    assert rule(Signal.DRIVER_LOADED_DIFFERS).first_action is FirstAction.REBOOT
    assert rule(Signal.DRIVER_LOADED_DIFFERS).replacement is Replacement.NEVER
    drift = rule(Signal.IMAGE_DRIFT)
    assert drift.first_action is FirstAction.UPDATE_CLUSTER_SOFTWARE
    assert drift.replacement is Replacement.AFTER_FIRST_ACTION
    assert "reboot" in drift.first
    assert "UpdateClusterSoftware" in drift.first
    for non_hardware in (Signal.IMAGE_DRIFT, Signal.THREADS_PER_CORE, Signal.FAILED_BOOTSTRAP):
        assert rule(non_hardware).replacement is not Replacement.IMMEDIATELY


# -- the prompt is rendered from it -------------------------------------------------------------

CONTEXTS = {
    "system.jinja2": {
        "cluster": "c",
        "region": "us-west-2",
        "orchestrator": "slurm",
        "node": None,
        "recorded": False,
        "today": "2026-12-01",
        "language": "en",
    },
    "mcp_workflow.jinja2": {
        "cluster": "c",
        "region": "us-west-2",
        "node": None,
        "recorded": True,
        "symptom": "",
        "language": "en",
        "over_mcp": True,
    },
}


def _rows_in(prompt: str) -> dict[str, list[str]]:
    """The prompt's table: heading → its "- …" lines."""
    part = prompt.split("## What the evidence calls for", 1)[1]
    groups: dict[str, list[str]] = {}
    heading = ""
    for line in part.splitlines():
        if line.startswith("#"):
            break
        if line.endswith(":") and not line.startswith("- "):
            heading = line[:-1]
            groups[heading] = []
        elif line.startswith("- ") and heading:
            groups[heading].append(line)
    return groups


@pytest.mark.parametrize("template", sorted(CONTEXTS))
def test_the_prompt_states_every_row_under_its_rule_and_nothing_else(template: str) -> None:
    prompt = render(template, **CONTEXTS[template])
    groups = _rows_in(prompt)
    expected: dict[str, list[str]] = {}
    for group in prompt_table().groups:
        lines = expected.setdefault(group.heading, [])
        lines.extend(
            f"- {line.evidence} (§ {line.section}) → {line.words}." for line in group.lines
        )
    assert groups == expected
    assert set(groups) <= set(HEADINGS.values())
    # Every row is stated once, under its own rule's heading, with its own words.
    for row in RULES:
        words = row.first if row.replacement is Replacement.IMMEDIATELY else row.advice
        under = groups[HEADINGS[row.replacement]]
        stating = [line for line in under if row.evidence in line and f"→ {words}." in line]
        assert len(stating) == 1, row.signal
        assert f"(§ {row.section})" in stating[0]
    assert sum(1 for lines in groups.values() for _ in lines) <= len(RULES)


@pytest.mark.parametrize("template", sorted(CONTEXTS))
def test_the_prompt_no_longer_contradicts_itself(template: str) -> None:
    prompt = render(template, **CONTEXTS[template])
    # The old line allowed a replacement on any uncorrectable ECC error, no reboot first.
    assert "Any uncorrectable ECC error" not in prompt
    assert (
        "uncorrectable ECC errors since the driver loaded (§ G.3) → isolate the node, reboot"
        in (prompt)
    )
    assert "or the evidence is conclusive" in prompt
    assert SLURM_DRAIN in prompt
    assert "drain a node before a reboot or a replacement" in prompt


# -- the references say the same ----------------------------------------------------------------


def test_references_agree_with_the_table() -> None:
    f4 = section_text("F.4")
    assert "state=drain" in f4.split("batch-reboot-cluster-nodes", 1)[0]
    assert "evidence is conclusive" in f4
    assert "last step" in f4
    e = section_text("E")
    drift = e[e.index("Version drift between nodes is fixed") :]
    assert drift.index("reboot") < drift.index("update-cluster-software") < drift.index("Replace")
    g5 = section_text("G.5")
    assert "HANG_ON_COLLECTIVES" in g5
    assert "another worker" in g5
    assert "never reboot or replace this node" in g5
    g3 = section_text("G.3")
    assert "Then reboot it" in g3
    assert "isolate and replace the node" in section_text("G.1.a")
    j = section_text("J")
    assert "plan for\nthe existing nodes to need a replacement" not in j
    catalog = catalog_text()
    entry_37 = catalog[catalog.index("### 37.") : catalog.index("### 38.")]
    assert "update-cluster-software" in entry_37
    assert "needs a reboot" in entry_37
    entry_43 = catalog[catalog.index("### 43.") : catalog.index("### 44.")]
    assert "hang on collectives" in entry_43
    assert "never replace the node" in entry_43


def test_advice_is_what_the_checks_print() -> None:
    # One literal finding per kind of check, built by the check itself, carries the row's
    # words and names the row: the words cannot drift from the table.
    from tools.checks.node_versions import judge_versions
    from tools.parsers.versions import NodeVersions

    per_node = {
        "i-1": NodeVersions(driver="550.54.15"),
        "i-2": NodeVersions(driver="535.161.08"),
    }
    [drift] = [f for f in judge_versions(per_node) if f.status.value == "WARN"]
    assert advice(Signal.IMAGE_DRIFT) in drift.message
    assert drift.evidence["remediation"] == Signal.IMAGE_DRIFT


# -- what a replace-first row states must survive the prompt's short form ------------------------


def test_a_replace_first_row_keeps_its_preconditions_in_its_first_words() -> None:
    # The prompt states a conclusive row by its first action alone: a condition to check
    # before replacing must be there, never only in `then`.
    for row in RULES:
        if row.replacement is Replacement.IMMEDIATELY:
            assert not re.search(r"\b(first|before|make sure|unless|once)\b", row.then), row


def test_the_hang_on_compute_caveat_reaches_the_prompt() -> None:
    prompt = render("system.jinja2", **CONTEXTS["system.jinja2"])
    conclusive = _rows_in(prompt)[HEADINGS[Replacement.IMMEDIATELY]]
    [line] = [line for line in conclusive if "hang on compute" in line]
    assert "no other worker reports a hardware error" in line


def test_threads_per_core_counts_vcpus_after_a_reboot_before_replacing() -> None:
    words = rule(Signal.THREADS_PER_CORE).advice
    assert words.index("reboot") < words.index("vCPU") < words.index("replace")
    assert "vCPU count after a reboot" in " ".join(section_text("J").split())


def test_f4_names_every_conclusive_row() -> None:
    # § F.4's list of conclusive cases is the table's replace-first rows, one phrase each.
    f4 = " ".join(section_text("F.4").split())
    phrases = {
        Signal.GPU_ROW_REMAP_FAILURE: "Remapping Failure Occurred: Yes",
        Signal.HARDWARE_XID_REPEATED: "the same hardware Xid on the same GPU after a reboot",
        Signal.NEURON_SRAM_UE: "SRAM",
        Signal.NEURON_NC_UE: "NeuronCore",
        Signal.NEURON_HBM_UE: "unrepairable HBM",
        Signal.NEURON_DMA_ABORT: "DMA abort",
        Signal.NEURON_HANG_ON_COMPUTE: "hang on compute",
        Signal.NEURON_ACTION_TERMINATE: "action=TERMINATE_INSTANCE",
        Signal.DHC_REPLACEMENT_REQUIRED: "replacementRequired",
    }
    assert set(phrases) == {r.signal for r in RULES if r.replacement is Replacement.IMMEDIATELY}
    for phrase in phrases.values():
        assert phrase in f4, phrase
    assert "Xid 64)" not in f4  # a bare Xid 64 is reset first, not conclusive
