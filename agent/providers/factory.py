"""Build the provider the command line asks for; nothing heavy is imported before that."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.providers.base import Provider, ProviderArgumentError, ProviderName

if TYPE_CHECKING:
    from pathlib import Path

# Bedrock default: the global cross-Region inference profile of Claude Sonnet 5.5. No AWS
# or Anthropic model table stored for the search tool lists Sonnet 5.5 yet, so this id rests
# on third-party sources that agree on the format (no date or `-v1:0` suffix, like
# `anthropic.claude-sonnet-4-6`): the Vercel AI SDK release notes adding
# `anthropic.claude-sonnet-5-5` / `us.anthropic.claude-sonnet-5-5` to
# @ai-sdk/amazon-bedrock (github.com/vercel/ai releases, @ai-sdk/amazon-bedrock 4.0.186 and
# 5.0.99), a copy of LiteLLM's model sheet listing `global.` / `us.` / `eu.` / `jp.` /
# `apac.` / `au.` variants of it, and public code that reports `global.` accepted by
# bedrock-runtime (one reports the `us.` profile rejected). `global.` routes to any
# commercial Region, so it works whatever the caller's source Region. Not verified against
# a live account: `aws bedrock list-inference-profiles` shows what an account can call, and
# `--model` overrides the default.
DEFAULT_MODELS: dict[str, str] = {
    "anthropic": "claude-sonnet-5-5",
    "bedrock": "global.anthropic.claude-sonnet-5-5",
}


def make_provider(
    name: ProviderName,
    *,
    model: str | None,
    region: str | None,
    profile: str | None,
    script: Path | None,
) -> Provider:
    """The provider `name`, or ProviderUnavailable with one line saying what is missing
    (ProviderArgumentError when it is an argument: no or a bad --script)."""
    if name == "anthropic":
        from agent.providers.anthropic_api import AnthropicProvider

        return AnthropicProvider.from_environment(model or DEFAULT_MODELS["anthropic"])
    if name == "bedrock":
        from agent.providers.bedrock import BedrockProvider

        return BedrockProvider.from_environment(
            model or DEFAULT_MODELS["bedrock"], region=region, profile=profile
        )
    if script is None:
        raise ProviderArgumentError("--script FILE is required with --provider scripted")
    from agent.providers.scripted import ScriptedProvider

    # The script's own "model" applies unless --model is given ("scripted" if it has none).
    return ScriptedProvider.from_file(script, model=model)
