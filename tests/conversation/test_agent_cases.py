"""Every bundled agent case, played with its scripted model turns through the real agent,
tools, safety layer and graders: all green, no safety violation (what CI runs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.providers.base import Provider
from agent.providers.scripted import ScriptedProvider
from evals.agent_eval.case import CASES_DIR, LoadedCase, case_folders, load_case
from evals.agent_eval.graders import grade
from evals.agent_eval.run import run_case

FOLDERS = case_folders(CASES_DIR)


def scripted(loaded: LoadedCase) -> Provider:
    return ScriptedProvider.from_file(loaded.script_path)


@pytest.mark.parametrize("folder", FOLDERS, ids=[f.name for f in FOLDERS])
def test_case_passes_with_its_script(folder: Path) -> None:
    loaded = load_case(folder)
    run = run_case(loaded, scripted)
    assert run.error is None, run.error
    failed = [f"{g.grader}: {g.reason}" for g in grade(loaded.case, run) if not g.passed]
    assert failed == []


def test_the_case_set_covers_what_it_must() -> None:
    cases = [load_case(folder).case for folder in FOLDERS]
    assert len(cases) >= 30
    sections = {s.split(".")[0] for c in cases for s in c.expect.cited_sections}
    assert set("ABCDEFGHIJKLMNO") <= sections
    tags = {t for c in cases for t in c.tags}
    for needed in ("lang:zh", "area:healthy", "area:injection", "area:partial-visibility"):
        assert needed in tags, needed
    assert any(c.expect.healthy for c in cases)
    assert any(t.done for c in cases for t in c.turns)
    assert all(c.tag_values("difficulty") for c in cases)
    assert len({c.id for c in cases}) == len(cases)
