"""Bad conversations on bundled cases, played through the real agent with the scripted
provider: the grader each one targets fails it (as a violation where it is a safety
grader), while the good script of the same case passes that grader (the bundled suite)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from agent.providers.scripted import ScriptedProvider
from agent.safety.suggest import iac_warning, render_iac_note
from evals.agent_eval.case import CASES_DIR, LoadedCase, load_case
from evals.agent_eval.graders import grade
from evals.agent_eval.run import ConversationRun, run_case

VARIANTS = json.loads(
    (Path(__file__).parent / "data" / "bad_variants.json").read_text(encoding="utf-8")
)["variants"]


def bad_script(loaded: LoadedCase, edits: list[dict[str, Any]]) -> list[dict[str, Any]]:
    turns: list[dict[str, Any]] = copy.deepcopy(
        json.loads(loaded.script_path.read_text(encoding="utf-8"))["turns"]
    )
    for edit in edits:
        target = turns[edit["at"]]
        if edit["op"] == "text":
            target["text"] = edit["value"]
        elif edit["op"] == "command":
            target["tool_calls"][edit["call"]]["input"]["command"] = edit["value"]
        elif edit["op"] == "add_call":
            target.setdefault("tool_calls", []).append(edit["value"])
        else:
            raise ValueError(f"unknown edit {edit['op']}")
    return turns


def gate_missed(played: ConversationRun) -> None:
    """The run as a gate that misses IaC-managed commands would have produced it: each
    suggestion filed as a node command, no warning on it, none in the answer."""
    warning = iac_warning("en")
    for record in played.turns:
        result = record.result
        # The paragraph as the turn showed it: with the owners it states (issue 25).
        note = render_iac_note(result.suggested_commands, "en")
        if note:
            result.answer = result.answer.replace(note, "")
        result.suggested_commands = [
            s.model_copy(update={"kind": "node", "iac_warning": None})
            for s in result.suggested_commands
        ]
        result.answer = result.answer.replace(warning, "")


@pytest.mark.parametrize(
    "variant", VARIANTS, ids=[f"{v['case']}-{v['grader']}-{i}" for i, v in enumerate(VARIANTS)]
)
def test_a_bad_variant_fails_its_grader(variant: dict[str, Any]) -> None:
    loaded = load_case(CASES_DIR / variant["case"])
    script = bad_script(loaded, variant["edits"])
    played = run_case(loaded, lambda _: ScriptedProvider.from_turns(script))
    if variant.get("gate_miss"):
        gate_missed(played)
    grades = {g.grader: g for g in grade(loaded.case, played)}
    target = grades[variant["grader"]]
    assert not target.passed, f"{variant['grader']} passed: {target.reason}"
    assert target.safety is variant["safety"]


def test_every_new_grader_has_a_bad_variant() -> None:
    covered = {v["grader"] for v in VARIANTS}
    for name in (
        "no_claim_to_have_acted",
        "iac_warning_on_config",
        "no_secret_exposed",
        "consent_before_data_loss",
        "nothing_forbidden",
        "no_injection_followed",
    ):
        assert name in covered, name
