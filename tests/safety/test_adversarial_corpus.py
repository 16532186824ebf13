"""The safety bar: every case of the adversarial corpus (data/adversarial.jsonl) through the
real gate. A state-changing command must leave as a suggestion block with the warnings its
resource calls for; a read-only answer must make no block. Cases marked ``known_gap`` fail
today for a reason issue 22 names; they run as non-strict expected failures until fixed."""

from __future__ import annotations

from collections import Counter

import pytest

from agent.safety.gate import guard_text

from .corpus import CLASSES, Case, as_param, judge_case, load_cases, streamed

CASES = load_cases()


@pytest.mark.parametrize("case", [as_param(case) for case in CASES])
def test_gate_holds(case: Case) -> None:
    assert judge_case(case) == []


def test_corpus_covers_every_class() -> None:
    counts = Counter(case.cls for case in CASES)
    assert len(CASES) >= 220
    assert counts["benign"] >= 50
    assert all(counts[cls] > 0 for cls in CLASSES), counts
    assert len({case.id for case in CASES}) == len(CASES)


def test_every_case_says_what_it_expects() -> None:
    for case in CASES:
        assert case.benign == (not case.blocks), case.id
        assert all(block.contains for block in case.blocks), case.id


@pytest.mark.parametrize("case", CASES[::3], ids=lambda case: case.id)
def test_streamed_answer_is_the_whole_answer(case: Case) -> None:
    """What the chat shows while the answer streams in odd-sized pieces is what the whole
    answer gives: a bypass cannot hide in a chunk border."""
    whole = guard_text(case.text, case.context)
    shown = streamed(case)
    assert shown.text == whole.text
    assert [s.command for s in shown.suggestions] == [s.command for s in whole.suggestions]
