"""The replace-before-reboot flag is waived only where the remediation table allows a
replacement first (tools/remediation/), on the evidence this conversation saw."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.safety.model import FLAG_REPLACE_BEFORE_REBOOT, Suggestion
from agent.safety.suggest import SuggestionContext, build_suggestion
from agent.state import ConversationState
from tools.findings import Finding, Priority, Status, fail, info, warn
from tools.remediation import RULES, Replacement, Signal, replacement_first, tagged

NODE = "i-0123456789abcdef0"
OTHER = "i-0fedcba9876543210"
REPLACE = f"aws sagemaker batch-replace-cluster-nodes --cluster-name c --node-ids {NODE}"


def suggest(command: str, state: ConversationState) -> Suggestion:
    context = SuggestionContext(
        triage_done=True,
        rebooted=frozenset(state.rebooted),
        replace_first=dict(state.replace_first),
    )
    return build_suggestion(command, purpose="x", context=context)


def seen(*findings: Finding) -> ConversationState:
    state = ConversationState()
    state.note_findings(findings)
    return state


def evidence_of(signal: Signal | str, node: str = NODE) -> Finding:
    return fail("gpu-row-remap", Priority.P0, "G.1.a", "m", resources=[node], remediation=signal)


CONCLUSIVE = [r.signal for r in RULES if r.replacement is Replacement.IMMEDIATELY]
NOT_CONCLUSIVE = [r.signal for r in RULES if r.replacement is not Replacement.IMMEDIATELY]


@pytest.mark.parametrize("signal", CONCLUSIVE)
def test_conclusive_evidence_on_the_node_waives_the_flag_and_names_the_row(
    signal: Signal,
) -> None:
    s = suggest(REPLACE, seen(evidence_of(signal)))
    assert FLAG_REPLACE_BEFORE_REBOOT not in s.flags
    assert s.replace_basis == [signal.value]


@pytest.mark.parametrize("signal", NOT_CONCLUSIVE)
def test_evidence_that_calls_for_a_reboot_first_keeps_the_flag(signal: Signal) -> None:
    s = suggest(REPLACE, seen(evidence_of(signal)))
    assert FLAG_REPLACE_BEFORE_REBOOT in s.flags
    assert s.replace_basis == []


def test_a_hang_on_collectives_never_waives_it() -> None:
    state = seen(evidence_of(Signal.NEURON_HANG_ON_COLLECTIVES))
    assert FLAG_REPLACE_BEFORE_REBOOT in suggest(REPLACE, state).flags


def test_evidence_on_another_node_does_not_cover_this_one() -> None:
    state = seen(evidence_of(Signal.GPU_ROW_REMAP_FAILURE, OTHER))
    assert FLAG_REPLACE_BEFORE_REBOOT in suggest(REPLACE, state).flags


def test_one_unjustified_node_in_a_batch_keeps_the_flag() -> None:
    state = seen(evidence_of(Signal.GPU_ROW_REMAP_FAILURE))
    both = f"{REPLACE} {OTHER}"
    assert FLAG_REPLACE_BEFORE_REBOOT in suggest(both, state).flags
    state.rebooted.add(OTHER)  # the other one was rebooted: now both are justified
    s = suggest(both, state)
    assert FLAG_REPLACE_BEFORE_REBOOT not in s.flags
    assert s.replace_basis == [Signal.GPU_ROW_REMAP_FAILURE.value]


def test_a_replacement_naming_no_checkable_node_keeps_the_flag() -> None:
    state = seen(evidence_of(Signal.HARDWARE_XID_REPEATED))
    command = "aws sagemaker batch-replace-cluster-nodes --cluster-name c --node-ids $(cat ids)"
    assert FLAG_REPLACE_BEFORE_REBOOT in suggest(command, state).flags


def test_the_node_name_alias_is_covered() -> None:
    state = seen(evidence_of(Signal.HARDWARE_XID_REPEATED))
    command = REPLACE.replace(NODE, f"hyperpod-{NODE}")
    assert FLAG_REPLACE_BEFORE_REBOOT not in suggest(command, state).flags


@pytest.mark.parametrize(
    "finding",
    [
        # A PASS or INFO that names a conclusive row is not evidence of a fault.
        Finding(
            check="gpu-xid",
            status=Status.PASS,
            section="G.2",
            message="m",
            resources=[NODE],
            evidence=tagged(Signal.HARDWARE_XID_REPEATED),
        ),
        info("gpu-xid", "G.2", "m", resources=[NODE], **tagged(Signal.HARDWARE_XID_REPEATED)),
        # A row id that is not in the table, or not quite one, waives nothing.
        warn("x", Priority.P1, "G", "m", resources=[NODE], remediation="replace"),
        warn("x", Priority.P1, "G", "m", resources=[NODE], remediation="gpu-row-remap-failure "),
        warn("x", Priority.P1, "G", "m", resources=[NODE], remediation=["gpu-row-remap-failure"]),
        # Prose saying "replace the node" is not a row.
        fail("x", Priority.P0, "G", f"{NODE}: replace the node", resources=[NODE]),
    ],
)
def test_nothing_but_a_problem_finding_naming_a_conclusive_row_waives_it(
    finding: Finding,
) -> None:
    state = seen(finding)
    assert state.replace_first == {}
    assert FLAG_REPLACE_BEFORE_REBOOT in suggest(REPLACE, state).flags


def test_a_forged_context_row_is_checked_against_the_table() -> None:
    # The context is built by code, but the rule is re-read from the table, not trusted.
    context = SuggestionContext(triage_done=True, replace_first={NODE: "gpu-row-remap-pending"})
    s = build_suggestion(REPLACE, purpose="x", context=context)
    assert FLAG_REPLACE_BEFORE_REBOOT in s.flags
    assert not replacement_first("gpu-row-remap-pending")


def _target_cases() -> list[tuple[str, str]]:
    path = Path(__file__).parent / "data" / "replace_targets.txt"
    rows = [line for line in path.read_text().splitlines() if line and not line.startswith("#")]
    return [(verdict.strip(), command) for verdict, command in (r.split(" | ", 1) for r in rows)]


TARGET_CASES = _target_cases()


def test_the_target_cases_hold_both_answers() -> None:
    assert {verdict for verdict, _ in TARGET_CASES} == {"waived", "flagged"}


@pytest.mark.parametrize(("verdict", "command"), TARGET_CASES)
def test_the_waiver_needs_every_target_written_out_and_checked(verdict: str, command: str) -> None:
    # The node named carries conclusive evidence; what else the command may act on decides.
    state = seen(evidence_of(Signal.GPU_ROW_REMAP_FAILURE))
    s = suggest(command, state)
    assert s.kind == "replace", s
    if verdict == "waived":
        assert FLAG_REPLACE_BEFORE_REBOOT not in s.flags
        assert s.replace_basis == [Signal.GPU_ROW_REMAP_FAILURE.value]
    else:
        assert FLAG_REPLACE_BEFORE_REBOOT in s.flags
        assert s.replace_basis == []


def test_a_replacement_in_a_loop_is_a_replacement() -> None:
    # A loop's body is judged as the command it runs, not by the loop's keywords.
    command = next(c for _, c in TARGET_CASES if c.startswith("for "))
    s = suggest(command, ConversationState())
    assert s.kind == "replace"
    assert FLAG_REPLACE_BEFORE_REBOOT in s.flags
    assert "data-loss" in s.flags
