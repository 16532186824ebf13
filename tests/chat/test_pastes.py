"""A multi-line paste stands as a placeholder in the line and is sent whole."""

from __future__ import annotations

from agent.chat.terminal import Pastes


def test_placeholders_expand_to_their_pastes_in_place() -> None:
    pastes = Pastes()
    first = pastes.placeholder("a\nb")
    second = pastes.placeholder("c\nd\ne")
    assert first == "[pasted text #1: 2 lines]"
    assert second == "[pasted text #2: 3 lines]"
    assert pastes.expand(f"see {first} and {second}") == "see a\nb and c\nd\ne"


def test_a_placeholder_edited_away_is_not_expanded() -> None:
    pastes = Pastes()
    placeholder = pastes.placeholder("secret\nlog")
    assert pastes.expand(placeholder[:-3]) == placeholder[:-3]
    assert pastes.expand("[pasted text #9: 2 lines]") == "[pasted text #9: 2 lines]"


def test_a_recalled_line_still_stands_for_its_paste_and_numbers_are_not_reused() -> None:
    pastes = Pastes()
    first = pastes.placeholder("a\nb")
    assert pastes.expand(first) == "a\nb"
    # ↑ brings the sent line back from the history, placeholder and all.
    assert pastes.expand(first) == "a\nb"
    second = pastes.placeholder("c\nd")
    assert second == "[pasted text #2: 2 lines]"
    assert pastes.expand(f"{first} {second}") == "a\nb c\nd"
