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


def test_a_placeholder_edited_away_is_not_expanded_and_pastes_do_not_outlive_the_line() -> None:
    pastes = Pastes()
    placeholder = pastes.placeholder("secret\nlog")
    assert pastes.expand(placeholder[:-3]) == placeholder[:-3]
    # The next line cannot bring back a paste of an earlier one by typing its placeholder.
    assert pastes.expand(placeholder) == placeholder
