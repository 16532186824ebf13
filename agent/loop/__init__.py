"""The conversation loop: the seed's workflow on the Messages API, with safety in code.

One user turn: the message is noted (language, ids, error strings), sent with the system
prompt and the tool definitions; tool calls are run through the tool layer and their
results returned as delimited tool output, until the model answers in text or the round
limit is reached. Every piece of model text passes the safety gate before the user sees it:
a state-changing command that is not already a structured suggestion becomes one. After a
proposal the model may not call more tools in that turn (tool_choice none): it answers and
the turn ends, waiting for the user. A proposal is a `suggest_command` call or a
state-changing command the gate found in the model's text; the calls of the same response
after it, other than further proposals, are answered "not run" instead of being run.

When the user reports the change applied (`/done`, or plain words such as "done" while
suggestions are pending), code re-runs triage and the answer opens with what cleared, what
is new and what remains, before the model's reading of it.

One concern a module:

* conversation: the Agent, its messages and one turn's model calls and tool rounds;
* settings: AgentSettings and the defaults;
* context: the system prompt and tool definitions a request carries, and trimming old
  tool results to stay inside the context window;
* tool_calls: one response's tool calls, and "not run" after a proposal;
* answer: the answer as shown (text, suggestion blocks, the IaC note once);
* rollback: a turn that does not finish is cancelled whole;
* retriage: /done, its comparison and its undo;
* hooks: model and tool calls reported to the live display, events to the transcript.
"""

from agent.loop.context import TRIMMED
from agent.loop.conversation import Agent, Emit
from agent.loop.hooks import EventSink
from agent.loop.settings import (
    DEFAULT_CONTEXT_CHARS,
    DEFAULT_MAX_TOKENS,
    DEFAULT_TOOL_ROUNDS,
    AgentSettings,
)

__all__ = [
    "DEFAULT_CONTEXT_CHARS",
    "DEFAULT_MAX_TOKENS",
    "DEFAULT_TOOL_ROUNDS",
    "TRIMMED",
    "Agent",
    "AgentSettings",
    "Emit",
    "EventSink",
]
