"""The Messages API's rule on a conversation (agent.providers.pairing), each way it can be
broken, in both strengths: as the API checks a request, and strict, as a saved file is
checked before it is resumed."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from agent.chat.resume import checked_messages
from agent.providers.pairing import Broken, RuleBreak, pairing_problem, rule_break

if TYPE_CHECKING:
    from anthropic.types import MessageParam

HI: MessageParam = {"role": "user", "content": [{"type": "text", "text": "hi"}]}
ANSWER: MessageParam = {"role": "assistant", "content": [{"type": "text", "text": "ok"}]}
CALL_T1: MessageParam = {
    "role": "assistant",
    "content": [
        {"type": "text", "text": "Let me look."},
        {"type": "tool_use", "id": "t1", "name": "triage", "input": {}},
    ],
}
CALL_T1_T2: MessageParam = {
    "role": "assistant",
    "content": [
        {"type": "tool_use", "id": "t1", "name": "triage", "input": {}},
        {"type": "tool_use", "id": "t2", "name": "list_checks", "input": {}},
    ],
}
RESULT_T1: MessageParam = {
    "role": "user",
    "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "{}"}],
}
RESULTS_T2_T1: MessageParam = {
    "role": "user",
    "content": [
        {"type": "tool_result", "tool_use_id": "t2", "content": "{}"},
        {"type": "tool_result", "tool_use_id": "t1", "content": "{}"},
        {"type": "text", "text": "Tool-round limit reached."},
    ],
}


def _kind(messages: list[MessageParam], **strength: bool) -> Broken | None:
    found = rule_break(messages, **strength)
    return None if found is None else found.kind


@pytest.mark.parametrize(
    "messages",
    [
        [HI],
        [HI, ANSWER],
        [HI, CALL_T1, RESULT_T1],
        [HI, CALL_T1, RESULT_T1, ANSWER],
        [HI, CALL_T1_T2, RESULTS_T2_T1, ANSWER, HI],
        [{"role": "user", "content": "a plain string"}, ANSWER],
    ],
)
def test_a_conversation_this_program_writes_keeps_the_rule_in_both_strengths(
    messages: list[MessageParam],
) -> None:
    assert rule_break(messages) is None
    assert rule_break(messages, strict=True) is None
    assert pairing_problem(messages) is None


@pytest.mark.parametrize(
    ("messages", "kind", "index", "ids"),
    [
        ([], Broken.EMPTY, 0, ()),
        ([ANSWER, HI], Broken.FIRST_NOT_USER, 0, ()),
        ([HI, CALL_T1], Broken.UNANSWERED_CALL, 2, ("t1",)),
        ([HI, CALL_T1, HI], Broken.UNANSWERED_CALL, 2, ("t1",)),
        ([HI, CALL_T1, ANSWER], Broken.UNANSWERED_CALL, 2, ("t1",)),
        ([HI, CALL_T1_T2, RESULT_T1], Broken.UNANSWERED_CALL, 2, ("t2",)),
        ([RESULT_T1, ANSWER], Broken.RESULT_WITHOUT_CALL, 0, ("t1",)),
        ([HI, ANSWER, RESULT_T1], Broken.RESULT_WITHOUT_CALL, 2, ("t1",)),
        ([HI, CALL_T1, RESULTS_T2_T1], Broken.RESULT_FOR_OTHER_CALL, 2, ("t2",)),
    ],
)
def test_each_way_a_request_breaks_the_rule(
    messages: list[MessageParam], kind: Broken, index: int, ids: tuple[str, ...]
) -> None:
    assert rule_break(messages) == RuleBreak(kind, index, ids)


def test_the_api_wording_of_each_break() -> None:
    assert pairing_problem([]) == "messages: at least one message is required"
    assert pairing_problem([ANSWER]) == "messages: the first message must use the user role"
    assert pairing_problem([HI, CALL_T1_T2, HI]) == (
        "messages.2: `tool_use` ids were found without `tool_result` blocks immediately "
        "after: t1, t2. Each `tool_use` block must have a corresponding `tool_result` block "
        "in the next message."
    )
    assert pairing_problem([HI, CALL_T1, RESULTS_T2_T1]) == (
        "messages.2.content: unexpected `tool_use_id` found in `tool_result` blocks: t2. "
        "Each `tool_result` block must have a corresponding `tool_use` block in the "
        "previous message."
    )


RESULT_T1_TWICE: MessageParam = {
    "role": "user",
    "content": [
        {"type": "tool_result", "tool_use_id": "t1", "content": "{}"},
        {"type": "tool_result", "tool_use_id": "t1", "content": "{}"},
    ],
}
TEXT_THEN_RESULT: MessageParam = {
    "role": "user",
    "content": [
        {"type": "text", "text": "first"},
        {"type": "tool_result", "tool_use_id": "t1", "content": "{}"},
    ],
}
CALL_T1_TWICE: MessageParam = {
    "role": "assistant",
    "content": [
        {"type": "tool_use", "id": "t1", "name": "triage", "input": {}},
        {"type": "tool_use", "id": "t1", "name": "triage", "input": {}},
    ],
}


@pytest.mark.parametrize(
    ("messages", "kind", "index"),
    [
        ([HI, HI], Broken.SAME_ROLE_TWICE, 1),
        ([HI, ANSWER, ANSWER], Broken.SAME_ROLE_TWICE, 2),
        ([HI, CALL_T1, RESULT_T1_TWICE], Broken.RESULT_TWICE, 2),
        ([HI, CALL_T1, TEXT_THEN_RESULT], Broken.RESULTS_NOT_FIRST, 2),
        ([HI, CALL_T1_TWICE, RESULT_T1], Broken.CALL_ID_TWICE, 1),
    ],
)
def test_what_only_the_strict_rule_refuses(
    messages: list[MessageParam], kind: Broken, index: int
) -> None:
    assert rule_break(messages) is None  # the API merges or accepts these
    found = rule_break(messages, strict=True)
    assert found is not None
    assert (found.kind, found.index) == (kind, index)
    assert found.api_text().startswith(f"messages.{index}")


def test_strict_reports_the_roles_before_the_pairing() -> None:
    # Two assistant messages in a row: the roles are what is wrong, not the unanswered call.
    assert _kind([HI, CALL_T1, ANSWER], strict=True) is Broken.SAME_ROLE_TWICE
    assert _kind([HI, CALL_T1, ANSWER]) is Broken.UNANSWERED_CALL


def test_an_open_ended_conversation_may_be_empty_or_stop_at_its_calls() -> None:
    assert rule_break([], open_ended=True) is None
    assert rule_break([HI, CALL_T1], strict=True, open_ended=True) is None
    # Open-ended forgives only the end: a call answered wrongly is still wrong.
    assert _kind([HI, CALL_T1, HI, ANSWER], strict=True, open_ended=True) is (
        Broken.UNANSWERED_CALL
    )


def test_untrusted_messages_do_not_crash_the_check() -> None:
    # What a request body may hold: content that is not a list, blocks that are not dicts.
    odd: list[MessageParam] = [
        {"role": "user", "content": "plain"},
        {"role": "assistant", "content": [{"type": "text", "text": "x"}]},
    ]
    assert rule_break(odd) is None
    junk: list[object] = [{"role": "user", "content": [1, "two", None]}]
    assert pairing_problem(junk) is None  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("messages", "said"),
    [
        ([ANSWER], "message 1: a assistant message where a user one is due"),
        ([HI, HI], "message 2: a user message where a assistant one is due"),
        ([HI, CALL_T1, HI, ANSWER], "message 3: the tool results do not answer the calls"),
        ([HI, CALL_T1, RESULTS_T2_T1], "message 3: the tool results do not answer the calls"),
        ([HI, CALL_T1, RESULT_T1_TWICE], "message 3: the tool results do not answer the calls"),
        ([HI, CALL_T1, TEXT_THEN_RESULT], "message 3: the tool results do not answer the calls"),
        ([RESULT_T1, ANSWER], "message 1: a tool result without its call"),
        ([HI, CALL_T1_TWICE, RESULT_T1], "message 2: two tool calls with one id"),
    ],
)
def test_resume_words_each_break_of_the_strict_rule(
    messages: list[MessageParam], said: str
) -> None:
    with pytest.raises(ValueError, match=f"^{said}$"):
        checked_messages(list(messages))


EMPTY_ANSWER: MessageParam = {"role": "assistant", "content": []}


@pytest.mark.parametrize(
    ("messages", "index"),
    [
        ([HI, EMPTY_ANSWER, HI], 1),
        ([HI, CALL_T1, RESULT_T1, EMPTY_ANSWER, HI], 3),
        ([{"role": "user", "content": []}], 0),
        ([{"role": "user", "content": ""}, ANSWER], 0),
    ],
)
def test_a_message_with_no_content_breaks_the_rule(
    messages: list[MessageParam], index: int
) -> None:
    assert rule_break(messages) == RuleBreak(Broken.EMPTY_CONTENT, index)
    assert pairing_problem(messages) == (
        f"messages.{index}: all messages must have non-empty content except for the optional "
        "final assistant message"
    )


def test_only_a_final_assistant_message_may_be_empty_and_not_in_a_saved_file() -> None:
    assert rule_break([HI, EMPTY_ANSWER]) is None  # a prefill, as the API allows
    # Saved, it would stand before the next user message: damage, not a variant.
    assert _kind([HI, EMPTY_ANSWER], strict=True, open_ended=True) is Broken.EMPTY_CONTENT


@pytest.mark.parametrize(
    ("messages", "said"),
    [
        # An earlier version kept an empty model answer (agent.loop.empty), then saved it.
        ([HI, EMPTY_ANSWER], "message 2 has no content"),
        ([HI, EMPTY_ANSWER, HI, ANSWER], "message 2 has no content"),
        ([HI, {"role": "assistant", "content": ""}], "message 2 has no content"),
        ([{"role": "user", "content": ""}, ANSWER], "message 1 has no content"),
    ],
)
def test_resume_words_a_message_with_no_content(messages: list[MessageParam], said: str) -> None:
    with pytest.raises(ValueError, match=f"^{said}$"):
        checked_messages(list(messages))


BLANK_BEFORE_CALL: MessageParam = {
    "role": "assistant",
    "content": [
        {"type": "text", "text": "\n\n"},
        {"type": "tool_use", "id": "t1", "name": "triage", "input": {}},
    ],
}


@pytest.mark.parametrize(
    ("messages", "index"),
    [
        ([HI, BLANK_BEFORE_CALL, RESULT_T1], 1),
        ([{"role": "user", "content": [{"type": "text", "text": ""}]}], 0),
        ([{"role": "user", "content": " "}, ANSWER], 0),
    ],
)
def test_a_text_block_with_no_visible_text_breaks_the_rule(
    messages: list[MessageParam], index: int
) -> None:
    """The API refuses a blank text block wherever it is, beside a tool call too (a model
    may write one there: the loop drops it, agent.loop.empty)."""
    assert rule_break(messages) == RuleBreak(Broken.BLANK_TEXT, index)
    assert pairing_problem(messages) == (
        f"messages.{index}: text content blocks must contain non-whitespace text"
    )
    with pytest.raises(ValueError, match=f"^message {index + 1} has a text block with no "):
        checked_messages([*messages, ANSWER] if messages[-1]["role"] == "user" else messages)
