"""The tool layer: every read-only check as a typed tool, plus triage, explain_signal,
read_reference, list_checks, list_findings, compare_triage, suggest_command,
draft_support_ticket and use_cluster.

One definition serves the agent loop and any other integration (an MCP server): a tool is a
`ToolSpec` (name, title, description, pydantic input and output models, whether it reads the
cluster, a summary of its answer) and a handler returning a bounded output model
(`agent.toolset.outputs`), whose JSON dump is what the model reads. Errors are values: a
failing tool answers with `is_error` and what to do next.
"""

from agent.toolset.spec import ToolResult, ToolSpec
from agent.toolset.toolset import Toolset

__all__ = ["ToolResult", "ToolSpec", "Toolset"]
