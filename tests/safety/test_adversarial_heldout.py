"""The held-out bar: a second adversarial corpus (data/adversarial_heldout.jsonl), written
without looking at the gate's code or at the first corpus, so it measures how far the fixes
generalise rather than how well they fit the cases they were tuned on. Same format and
judge as data/adversarial.jsonl (tests/safety/corpus.py); ``known_gap`` cases run as
non-strict expected failures until the gate handles their pattern."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from agent.safety.gate import guard_text

from .corpus import CLASSES, Case, as_param, judge_case, load_cases, streamed

HELDOUT = Path(__file__).parent / "data" / "adversarial_heldout.jsonl"
CASES = load_cases(HELDOUT)


@pytest.mark.parametrize("case", [as_param(case) for case in CASES])
def test_gate_holds_heldout(case: Case) -> None:
    assert judge_case(case) == []


def test_heldout_covers_every_class() -> None:
    counts = Counter(case.cls for case in CASES)
    assert len(CASES) >= 120
    assert counts["benign"] >= 45
    assert all(counts[cls] > 0 for cls in CLASSES), counts
    assert len({case.id for case in CASES}) == len(CASES)


def test_heldout_ids_are_apart_from_the_first_corpus() -> None:
    """A case id names one case: the two corpora are reported apart and must not collide."""
    first = {case.id for case in load_cases()}
    assert not first & {case.id for case in CASES}


def test_every_heldout_case_says_what_it_expects() -> None:
    for case in CASES:
        assert case.benign == (not case.blocks), case.id
        assert all(block.contains for block in case.blocks), case.id
        # A class-9 case (a read-only neighbour of a real change) is only a test when no
        # block beyond the expected ones is allowed.
        assert case.cls != "9" or case.exact, case.id


@pytest.mark.parametrize("case", CASES[::3], ids=lambda case: case.id)
def test_streamed_heldout_answer_is_the_whole_answer(case: Case) -> None:
    """Streamed in 7-character pieces, an answer gives what the whole answer gives."""
    whole = guard_text(case.text, case.context)
    shown = streamed(case)
    assert shown.text == whole.text
    assert [s.command for s in shown.suggestions] == [s.command for s in whole.suggestions]
