"""`/cost` and `/context`: what the conversation has used and what the agent holds.

`/cost` counts the tokens of every model call of the conversation (a resumed one included)
and estimates their price from a table of given prices, never a guess: a model the table
does not know gets its tokens only, unless prices are given (HYPERPOD_DEBUG_PRICES, or
`/cost in=…,out=…,cache_write=…,cache_read=…`, USD per million tokens).

`/context` lists what the agent works from: the cluster, the triages and how old their
evidence is, the suggestions waiting for the user, and how much of the context window the
messages take before old tool results are trimmed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from agent.chat.slash import SlashCommand
from tools.display import age, argument

if TYPE_CHECKING:
    from agent.chat.session import ChatSession
    from agent.providers.base import Usage
    from tools.triage.report import TriageReport

PRICES_VARIABLE = "HYPERPOD_DEBUG_PRICES"
_MILLION = 1_000_000
_PRICE_KEYS = ("in", "out", "cache_write", "cache_read")


@dataclass(frozen=True)
class Prices:
    """USD per million tokens of each kind, and where the figures come from."""

    input: float
    output: float
    cache_write: float
    cache_read: float
    source: str

    def cost(self, usage: Usage) -> float:
        return (
            usage.input_tokens * self.input
            + usage.output_tokens * self.output
            + usage.cache_creation_input_tokens * self.cache_write
            + usage.cache_read_input_tokens * self.cache_read
        ) / _MILLION

    def rates(self) -> str:
        return (
            f"${self.input:g} in, ${self.output:g} out, ${self.cache_write:g} cache write, "
            f"${self.cache_read:g} cache read per million tokens"
        )


# List prices of the default models (agent/providers/factory.py DEFAULT_MODELS).
#
# claude-sonnet-5-5 on the Claude API: input $2, output $10 and a 5-minute cache write
# $2.50 per million tokens (the loop's cache marks carry no ttl: 5 minutes), from Anthropic's
# model page (https://platform.claude.com/docs/en/models/sonnet-5-5/overview, "Pricing"),
# checked 2026-12-02 in a stored copy. Cache read: that copy says $0.20; two price trackers
# (kurofune/claudit v1.9.2, TheKrush/PromptFuel v1.0.23) report Anthropic's pricing page
# (https://platform.claude.com/docs/en/about-claude/pricing) cutting it to $0.10 from
# 2026-10-07. $0.10 is taken and marked unverified.
#
# global.anthropic.claude-sonnet-5-5 on Bedrock: Bedrock sets its own prices
# (https://aws.amazon.com/bedrock/pricing/) and no figure for this model was found to check,
# so it has none here: /cost shows its tokens and asks for HYPERPOD_DEBUG_PRICES.
KNOWN_PRICES: dict[str, Prices] = {
    "claude-sonnet-5-5": Prices(
        input=2.0,
        output=10.0,
        cache_write=2.5,
        cache_read=0.1,
        source="Claude API list price, checked 2026-12-02; the cache-read price is unverified",
    ),
}


def parse_prices(text: str, source: str) -> Prices:
    """`in=3,out=15,cache_write=3.75,cache_read=0.3` (USD per million tokens, all four);
    ValueError naming what is wrong."""
    values: dict[str, float] = {}
    for part in text.replace(" ", "").split(","):
        if not part:
            continue
        key, _, number = part.partition("=")
        if key not in _PRICE_KEYS:
            raise ValueError(f"unknown price {argument(key, 30)} (use {', '.join(_PRICE_KEYS)})")
        try:
            value = float(number)
        except ValueError:
            raise ValueError(f"{key}={argument(number, 30)} is not a number") from None
        if not 0 <= value < 10_000:  # also refuses nan and inf
            raise ValueError(f"{key}={argument(number, 30)} is not a price per million tokens")
        values[key] = value
    missing = [k for k in _PRICE_KEYS if k not in values]
    if missing:
        raise ValueError(f"give every price: {', '.join(missing)} missing")
    return Prices(values["in"], values["out"], values["cache_write"], values["cache_read"], source)


def prices_for(model: str, given: str = "") -> tuple[Prices | None, str]:
    """The prices to use (given ones first: the argument, then the environment, then the
    table) and a note when given prices could not be read."""
    for text, source in ((given, "/cost"), (os.environ.get(PRICES_VARIABLE, ""), PRICES_VARIABLE)):
        if text.strip():
            try:
                return parse_prices(text, f"prices from {source}"), ""
            except ValueError as exc:
                return None, f"{source}: {exc}"
    return KNOWN_PRICES.get(model), ""


def cost_text(model: str, usage: Usage, given: str = "") -> str:
    lines = [
        f"Tokens this conversation: {usage.input_tokens:,} input, "
        f"{usage.output_tokens:,} output, {usage.cache_creation_input_tokens:,} cache write, "
        f"{usage.cache_read_input_tokens:,} cache read"
    ]
    prices, problem = prices_for(model, given)
    if problem:
        lines.append(f"No estimate: {problem}")
    elif prices is None:
        lines.append(
            f"No price is known for {argument(model, 80)}: tokens only. Give prices with "
            f"{PRICES_VARIABLE}=in=…,out=…,cache_write=…,cache_read=… (USD per million tokens)."
        )
    else:
        lines.append(
            f"Estimate: ${prices.cost(usage):,.4f} for {argument(model, 80)} "
            f"({prices.rates()}; {prices.source})"
        )
    return "\n".join(lines)


def _cost(session: ChatSession, argument_text: str) -> bool:
    agent = session.agent
    session.printer.note(cost_text(agent.provider.model, agent.usage, argument_text))
    return True


# -- /context -----------------------------------------------------------------------------------


def triage_counts(report: TriageReport) -> tuple[int, int]:
    summary = report.summary.by_status
    return summary.get("FAIL", 0), summary.get("WARN", 0)


def context_text(session: ChatSession, now: datetime | None = None) -> str:
    agent = session.agent
    state, cluster_session = agent.state, agent.toolset.session
    now = now or datetime.now(UTC)
    if state.cluster:
        where = f"{argument(state.cluster, 100)} ({argument(state.region or '?', 40)})"
        if state.orchestrator:
            where += f" · {argument(state.orchestrator, 20)}"
    else:
        where = "none yet" + (f" (region {argument(state.region, 40)})" if state.region else "")
    if cluster_session.recorded:
        where += f" · recording {cluster_session.position + 1} of {len(cluster_session.recordings)}"
    lines = [f"Cluster: {where}"]
    report = state.latest
    if report is None:
        lines.append("Triages: none yet")
    else:
        fails, warns = triage_counts(report)
        last = state.latest_time
        at = f"at {last:%H:%M} UTC, " if last is not None else ""
        lines.append(
            f"Triages: {len(state.triages)}; the last {at}{age(last, now)}: "
            f"{fails} FAIL, {warns} WARN"
            + (f" (re-triages after a change: {state.retriages})" if state.retriages else "")
        )
    if state.pending:
        lines.append(f"Pending suggestions: {len(state.pending)}")
        for number, suggestion in enumerate(state.pending, start=1):
            lines.append(f"  {number}. [{suggestion.kind}] {argument(suggestion.command, 100)}")
    else:
        lines.append("Pending suggestions: none")
    if state.applied:
        lines.append(f"Applied (reported by you): {len(state.applied)}")
    if state.rebooted:
        lines.append(f"Rebooted: {', '.join(argument(n, 40) for n in sorted(state.rebooted))}")
    focus = argument(state.focus_node, 60) if state.focus_node else "none"
    lines.append(f"Focus node: {focus} · language: {state.language}")
    if state.instance_ids or state.error_strings:
        lines.append(
            f"Noted from the conversation: {len(state.instance_ids)} instance id(s), "
            f"{len(state.error_strings)} error line(s)"
        )
    size = sum(len(str(m.get("content"))) for m in agent.messages)
    share = 100 * size / agent.context_chars if agent.context_chars else 0
    lines.append(
        f"Messages: {len(agent.messages)}, about {size:,} characters (~{size // 4:,} tokens); "
        f"old tool results are trimmed past {agent.context_chars:,} ({share:.0f}% used)"
    )
    return "\n".join(lines)


def _context(session: ChatSession, _argument: str) -> bool:
    session.printer.note(context_text(session))
    return True


COMMANDS: tuple[SlashCommand, ...] = (
    SlashCommand("/cost", "/cost", "tokens used so far and an estimated price", _cost),
    SlashCommand(
        "/context", "/context", "what the agent holds: cluster, triages, suggestions", _context
    ),
)
