"""The labelled cases: accuracy gates, and the scorer's command line."""

from __future__ import annotations

import subprocess
import sys

import pytest

from evals.explain.score import CASES_PATH, Tally, load_cases, score


@pytest.fixture(scope="module")
def report() -> dict[str, Tally]:
    return score(load_cases())


def test_case_file_is_big_and_mixed_enough() -> None:
    cases = load_cases()
    assert len(cases) >= 60
    assert sum(c.lang == "zh" for c in cases) >= 12
    assert sum(c.holdout for c in cases) >= 15
    assert len({c.id for c in cases}) == len(cases)
    assert all(c.source for c in cases)


@pytest.mark.parametrize("group", ["overall", "en", "zh"])
def test_accuracy_gates(report: dict[str, Tally], group: str) -> None:
    tally = report[group]
    assert tally.top3_acceptable >= 0.9, tally
    assert tally.top1_acceptable >= 0.75, tally


def test_held_out_cases_stay_useful(report: dict[str, Tally]) -> None:
    tally = report["holdout"]
    assert tally.top3_acceptable >= 0.8, tally


def test_module_entry_point_prints_the_table() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "evals.explain.score", "--cases", str(CASES_PATH)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out.splitlines()[0].split()[:2] == ["group", "cases"]
    assert {line.split()[0] for line in out.splitlines()[1:]} == {
        "overall",
        "en",
        "zh",
        "dev",
        "holdout",
    }
