"""A provider that replays model turns from a file: for tests, evals and demos with no key.

The script is JSON: `{"model": "...", "turns": [turn, ...]}` (or just the list), one turn
per model call, in order. A turn is `{"text": "...", "tool_calls": [{"name": "triage",
"input": {}}]}`; either part may be absent. A turn with tool calls stops with `tool_use`,
so the loop runs the tools (for real, against the cluster) and calls the provider again.
When the script runs out, the call fails with a clear ProviderError.

Streaming is simulated by handing the text over in small pieces, so the streaming path
(and the safety gate on it) is exercised exactly as with a real model.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agent.providers.base import (
    ModelRequest,
    ModelResponse,
    ProviderArgumentError,
    ProviderError,
    TextCallback,
    Usage,
)
from agent.providers.pairing import pairing_problem

if TYPE_CHECKING:
    from anthropic.types import ContentBlockParam

STREAM_PIECE = 7  # characters per simulated delta: small enough to split words and fences


class ScriptedToolCall(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=128)
    input: dict[str, Any] = Field(default_factory=dict)


class ScriptedTurn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str = ""
    tool_calls: list[ScriptedToolCall] = Field(default_factory=list)


class Script(BaseModel):
    model_config = ConfigDict(extra="forbid")

    model: str = "scripted"
    turns: list[ScriptedTurn]


def load_script(path: Path) -> Script:
    from tools.display import argument

    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ProviderArgumentError(
            f"cannot read --script {argument(path)}: {exc.strerror}"
        ) from None
    except (ValueError, RecursionError) as exc:  # ValueError: also a NUL byte in the path
        raise ProviderArgumentError(
            f"--script {argument(path)} is not valid JSON: {exc}"[:300]
        ) from None
    if isinstance(raw, list):
        raw = {"turns": raw}
    try:
        return Script.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ProviderArgumentError(
            f"--script {argument(path)}: {where}: {first['msg']}"[:300]
        ) from None


class ScriptedProvider:
    name: Literal["scripted"] = "scripted"

    def __init__(self, script: Script, model: str | None = None) -> None:
        self.script = script
        self.model = model or script.model
        self.requests: list[ModelRequest] = []
        self._next = 0

    @classmethod
    def from_file(cls, path: Path, model: str | None = None) -> ScriptedProvider:
        return cls(load_script(path), model)

    @classmethod
    def from_turns(cls, turns: list[dict[str, Any]]) -> ScriptedProvider:
        return cls(Script.model_validate({"turns": turns}))

    @property
    def remaining(self) -> int:
        return len(self.script.turns) - self._next

    def complete(self, request: ModelRequest, on_text: TextCallback | None = None) -> ModelResponse:
        self.requests.append(request)
        problem = pairing_problem(request.messages)
        if problem is not None:
            # What the Messages API answers such a request: the replay is no more lenient.
            raise ProviderError(
                f"the conversation is invalid (HTTP 400 from a real API): {problem}"
            )
        if self._next >= len(self.script.turns):
            raise ProviderError(
                f"the script has no model turn left (it had {len(self.script.turns)})"
            )
        turn = self.script.turns[self._next]
        self._next += 1
        calls = [] if _tools_refused(request) else turn.tool_calls
        content: list[ContentBlockParam] = []
        if turn.text:
            if on_text is not None:
                for start in range(0, len(turn.text), STREAM_PIECE):
                    on_text(turn.text[start : start + STREAM_PIECE])
            content.append({"type": "text", "text": turn.text})
        for index, call in enumerate(calls):
            content.append(
                {
                    "type": "tool_use",
                    # Numbered by the conversation's length, not the script's position: ids
                    # stay unique in a resumed conversation, whose script starts again.
                    "id": f"toolu_scripted_{len(request.messages):03d}_{index}",
                    "name": call.name,
                    "input": call.input,
                }
            )
        prompt_chars = len(json.dumps(request.messages)) + sum(
            len(json.dumps(b)) for b in request.system
        )
        return ModelResponse(
            content=content,
            stop_reason="tool_use" if calls else "end_turn",
            usage=Usage(input_tokens=prompt_chars // 4, output_tokens=len(turn.text) // 4),
            model=self.model,
        )


def _tools_refused(request: ModelRequest) -> bool:
    """With tool_choice none a real model cannot call tools; the replay honours that too."""
    return request.tool_choice is not None and request.tool_choice["type"] == "none"
