"""The blast radius speaks the conversation's language (issue 24, item 8): English and
Chinese sentences for every kind, ids and the classifier's reason kept as they are. The
commands come from a data file as strings and are never run."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.safety.suggest import SuggestionContext, build_suggestion, render_suggestion

DATA = Path(__file__).with_name("data") / "radius_languages.txt"
ROWS = [
    tuple(part.strip() for part in line.split(" | ", 2))
    for line in DATA.read_text("utf-8").splitlines()
    if line.strip() and not line.startswith("#")
]
ENGLISH_FRAMES = ("reboots", "replaces", "removes", "destroys", "changes", "interrupts", "every")


@pytest.mark.parametrize(("english", "chinese", "command"), ROWS)
def test_the_radius_in_each_language(english: str, chinese: str, command: str) -> None:
    en = build_suggestion(command, purpose="p", context=SuggestionContext(triage_done=True))
    zh = build_suggestion(
        command, purpose="p", context=SuggestionContext(triage_done=True, language="zh")
    )
    assert en.blast_radius == english
    assert zh.blast_radius == chinese
    # Outside the classifier's reason (in parentheses), no English sentence is left.
    frame = zh.blast_radius.split("（", 1)[0]
    assert not [word for word in ENGLISH_FRAMES if word in frame]
    assert f"- 影响范围：{chinese}" in render_suggestion(zh, "zh")


def test_the_data_file_covers_every_kind() -> None:
    kinds = {
        build_suggestion(c, purpose="p", context=SuggestionContext(triage_done=True)).kind
        for _, _, c in ROWS
    }
    assert kinds == {"investigate", "config", "reboot", "replace", "workload", "node"}
