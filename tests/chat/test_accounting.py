"""/cost (tokens, and a price only from given prices) and /context (what the agent holds)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from agent.chat.accounting import (
    KNOWN_PRICES,
    PRICES_VARIABLE,
    cost_text,
    parse_prices,
)
from agent.providers.base import Usage
from agent.providers.factory import DEFAULT_MODELS
from tools.display import age

from .resume_support import AFTER, BEFORE, FIRST_TURN, run, script

USAGE = Usage(
    input_tokens=1_000_000,
    output_tokens=100_000,
    cache_creation_input_tokens=200_000,
    cache_read_input_tokens=2_000_000,
)


def chat(tmp_path: Path, lines: list[str], *extra: str, env: dict[str, str] | None = None) -> str:
    first = script(tmp_path / "first.json", FIRST_TURN)
    args = ["chat", "--no-color", "--provider", "scripted", "--script", str(first)]
    args += ["--recorded", str(BEFORE), "--recorded", str(AFTER), *extra]
    result = run(*args, stdin="\n".join(lines) + "\n", env=env)
    assert result.exit_code == 0, result.output
    return result.output


def test_the_default_anthropic_model_has_a_sourced_price() -> None:
    prices = KNOWN_PRICES[DEFAULT_MODELS["anthropic"]]
    assert "checked" in prices.source
    assert "unverified" in prices.source  # the cache-read figure could not be confirmed
    # 1M in x $2 + 0.1M out x $10 + 0.2M write x $2.50 + 2M read x $0.10
    assert prices.cost(USAGE) == pytest.approx(2.0 + 1.0 + 0.5 + 0.2)


def test_a_model_without_a_known_price_shows_tokens_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(PRICES_VARIABLE, raising=False)
    text = cost_text(DEFAULT_MODELS["bedrock"], USAGE)
    assert "1,000,000 input, 100,000 output, 200,000 cache write, 2,000,000 cache read" in text
    assert "No price is known for global.anthropic.claude-sonnet-5-5: tokens only" in text
    assert "Estimate" not in text


def test_given_prices_override_and_bad_ones_are_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(PRICES_VARIABLE, "in=3,out=15,cache_write=3.75,cache_read=0.3")
    text = cost_text("anything", USAGE)
    assert "Estimate: $5.8500 for anything" in text  # 3 + 1.5 + 0.75 + 0.6
    assert f"prices from {PRICES_VARIABLE}" in text
    # The argument of /cost comes before the environment.
    assert "Estimate: $1.0000" in cost_text(
        "anything", USAGE, "in=1,out=0,cache_write=0,cache_read=0"
    )
    monkeypatch.setenv(PRICES_VARIABLE, "in=3,out=15")
    assert "No estimate: HYPERPOD_DEBUG_PRICES: give every price" in cost_text("x", USAGE)
    for bad, reason in [("in=x", "not a number"), ("tip=1", "unknown price"), ("in=nan", "not a")]:
        with pytest.raises(ValueError, match=reason):
            parse_prices(bad, "test")


def test_cost_in_a_chat_with_and_without_a_price(tmp_path: Path) -> None:
    out = chat(tmp_path, ["my NCCL job hangs", "/cost", "/quit"], env={PRICES_VARIABLE: ""})
    assert "Tokens this conversation:" in out
    assert "No price is known for scripted: tokens only" in out
    out = chat(
        tmp_path,
        ["my NCCL job hangs", "/cost", "/quit"],
        "--model",
        "claude-sonnet-5-5",
        env={PRICES_VARIABLE: ""},
    )
    assert "Estimate: $" in out
    assert "for claude-sonnet-5-5 ($2 in, $10 out, $2.5 cache write, $0.1 cache read" in out


def test_context_lists_cluster_triage_suggestions_and_size(tmp_path: Path) -> None:
    out = chat(tmp_path, ["/context", "my NCCL job hangs", "/context", "/quit"])
    before, after = out.split("you> /context")[1], out.split("you> /context")[2]
    assert "Triages: none yet" in before
    assert "Pending suggestions: none" in before
    assert "Cluster: ml-cluster-eks (us-west-2) · eks · recording 1 of 2" in after
    assert re.search(r"Triages: 1; the last at \d\d:\d\d UTC, \d+ s ago", after)
    assert " s ago: 1 FAIL, 0 WARN" in after  # seconds: the triage has just run
    assert "Pending suggestions: 1\n  1. [config] aws ec2 authorize-security-group-egress" in after
    assert "Focus node: none · language: en" in after
    assert "old tool results are trimmed past 600,000" in after


def test_age_reads_in_the_largest_whole_unit() -> None:
    now = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
    assert age(now - timedelta(seconds=40), now) == "40 s ago"
    assert age(now - timedelta(minutes=3, seconds=59), now) == "3 min ago"
    assert age(now - timedelta(hours=2, minutes=5), now) == "2 h ago"
    assert age(now - timedelta(days=3), now) == "3 d ago"
    assert age(None, now) == "time unknown"
