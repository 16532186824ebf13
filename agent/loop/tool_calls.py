"""The tool calls of one model response: run in order, each answered by its result, and
once a change is proposed the calls after it are answered "not run" instead."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.activity import ToolEnded
from agent.loop import hooks
from agent.toolset import ToolResult
from agent.toolset.failures import Failure, FailureKind
from agent.turn import ToolCallRecord, TurnResult, tool_output

if TYPE_CHECKING:
    from anthropic.types import ToolResultBlockParam, ToolUseBlockParam

    from agent.loop.conversation import Agent
    from agent.safety.model import Suggestion

SUGGEST = "suggest_command"
# What a tool call made after a proposal gets instead of its result.
NOT_RUN_AFTER_PROPOSAL = (
    "not run: a change was proposed in this response. End the turn: answer the user and "
    "wait for them to apply it or decline."
)


def run_tool_calls(
    agent: Agent,
    uses: list[ToolUseBlockParam],
    result: TurnResult,
    text_suggestions: list[Suggestion],
) -> list[ToolResultBlockParam]:
    """Run the tool calls of one response, in order. Once a proposal stands, the calls
    after it are not run (other proposals are: they only add blocks): the user has a
    change to consider, and the turn ends with the answer. Each call still gets its
    result, as the Messages API wants one per tool use."""
    blocks: list[ToolResultBlockParam] = []
    for use in uses:
        name, arguments = use["name"], use["input"]
        recorded_input = arguments if isinstance(arguments, dict) else {}
        if name != SUGGEST and agent.proposed(text_suggestions):
            outcome = ToolResult.failed(name, Failure(FailureKind.TOOL, NOT_RUN_AFTER_PROPOSAL))
            hooks.report(agent.on_progress, ToolEnded(name, recorded_input, 0.0, ran=False))
        else:
            outcome = hooks.tool_call(
                agent.toolset, name, recorded_input, arguments, agent.on_progress
            )
        result.tool_calls.append(
            ToolCallRecord(name=name, input=recorded_input, is_error=outcome.is_error)
        )
        agent.log_event(
            {
                "type": "tool_call",
                "name": name,
                "input": recorded_input,
                "is_error": outcome.is_error,
                "result": outcome.payload,
            }
        )
        blocks.append(
            {
                "type": "tool_result",
                "tool_use_id": use["id"],
                "content": tool_output(name, outcome.text),
                "is_error": outcome.is_error,
            }
        )
    return blocks
