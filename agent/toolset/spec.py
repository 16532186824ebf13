"""A tool described once, and the outcome of one call to it.

A `ToolSpec` is everything the model, an MCP client and the interfaces are told about a
tool (name, title, description, input and output models, whether it reads the cluster, the
summary of its answer) and the handler that answers; a `ToolResult` is one call's typed
answer or its `Failure`, never both. `agent.toolset.toolset.Toolset` holds the specs of one
conversation and is the one place a call's errors become values.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from pydantic import BaseModel

from agent.toolset.budget import dumps
from agent.toolset.failures import Failure
from agent.toolset.outputs import ToolOutput
from agent.toolset.schema import model_schema, output_schema

if TYPE_CHECKING:
    # The Messages API's tool shape; for the type checker only (a chat's first prompt comes
    # before the SDK is imported).
    from anthropic.types import ToolParam

CHECK_PREFIX = "check_"


Input = TypeVar("Input", bound=BaseModel)
Output = TypeVar("Output", bound=ToolOutput)


@dataclass(frozen=True)
class ToolSpec(Generic[Input, Output]):
    """One tool, described once: what the model and an MCP client are told about it, its
    typed input and output, and the handler that answers."""

    name: str
    title: str
    """What a client shows in its tool list."""
    description: str
    input_model: type[Input]
    output_model: type[Output]
    handler: Callable[[Input], Output]
    summary: Callable[[Output], str]
    """The few lines an MCP client shows as the text of an answer."""
    reads_cluster: bool = False
    """It reads the cluster itself (AWS, Kubernetes, SSM probes); the other tools read only
    the conversation's own state, the bundled references or the text they are given."""

    def input_schema(self) -> dict[str, Any]:
        """The JSON Schema of the input, as the model and an MCP client read it."""
        return model_schema(self.input_model)

    def schema(self) -> ToolParam:
        """The Messages API tool definition (name, description, JSON Schema input)."""
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": self.input_schema(),
        }

    def output_schema(self) -> dict[str, Any]:
        """The JSON Schema of the answer (shared by the tools of one output model)."""
        return output_schema(self.output_model)


@dataclass(frozen=True)
class ToolResult:
    """One tool call's outcome: a typed answer, or a failure (never both)."""

    name: str
    payload: dict[str, Any]
    """What the model reads: the output's JSON dump, or for a failure {"error", "next"?}."""
    output: ToolOutput | None = None
    """The typed answer (None for a failure)."""
    spec: ToolSpec[Any, Any] | None = None
    """The tool that answered (None for a failure)."""
    failure: Failure | None = None
    """A failure's wordings: the payload holds the model's; a person is shown
    `failure.user_text()` (never part of what the model receives)."""

    @classmethod
    def answer(cls, spec: ToolSpec[Any, Output], output: Output) -> ToolResult:
        return cls(spec.name, output.payload(), output=output, spec=spec)

    @classmethod
    def failed(cls, name: str, failure: Failure) -> ToolResult:
        payload: dict[str, Any] = {"error": failure.error}
        if failure.next:
            payload["next"] = failure.next
        return cls(name, payload, failure=failure)

    @property
    def is_error(self) -> bool:
        return self.failure is not None

    def output_as(self, model: type[Output]) -> Output:
        """The typed answer of a tool known to answer with ``model`` (a caller that just
        called it); a failure or another model is a programming error."""
        if not isinstance(self.output, model):
            raise TypeError(f"{self.name} did not answer with {model.__name__}")
        return self.output

    @property
    def text(self) -> str:
        return dumps(self.payload)


def check_tool_name(check_id: str) -> str:
    return CHECK_PREFIX + check_id.replace("-", "_")
