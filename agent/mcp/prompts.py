"""The server's MCP prompts, rendered from the agent's own templates in prompts/.

- `workflow`: collect → triage → read the section → propose → await approval → re-triage,
  with the untrusted-text rule, the IaC policy, the recovery order and escalation;
- `iac_policy`: the infrastructure-as-code rule alone;
- `suggested_command_format`: how a proposal reaches the user, with a block rendered by the
  same template and safety code as in the agent.

A prompt that takes the workflow follows the same rules as our own agent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from mcp import types
from mcp.shared.exceptions import MCPError

Language = Literal["en", "zh"]
LANGUAGES: tuple[Language, ...] = ("en", "zh")
SYMPTOM_CHARS = 20_000
EXAMPLE_NODE = "i-0123456789abcdef0"


@dataclass(frozen=True)
class PromptContext:
    """What the server knows when a prompt is asked for."""

    cluster: str | None
    region: str | None
    node: str | None
    recorded: bool


_LANGUAGE_ARGUMENT = types.PromptArgument(
    name="language",
    description="en (default) or zh: the language of the IaC warning and the suggestion "
    "heading the user sees.",
    required=False,
)

PROMPTS: tuple[types.Prompt, ...] = (
    types.Prompt(
        name="workflow",
        title="HyperPod node debugging workflow",
        description="How to diagnose with these tools: collect, triage, read the section, "
        "propose through suggest_command, wait for approval, re-triage; with the IaC policy, "
        "the reboot-before-replace order and when to escalate.",
        arguments=[
            types.PromptArgument(
                name="symptom",
                description="What the user sees: a question, an error message or a node id "
                "(optional).",
                required=False,
            ),
            _LANGUAGE_ARGUMENT,
        ],
    ),
    types.Prompt(
        name="iac_policy",
        title="Infrastructure-as-code policy for proposed changes",
        description="Ask whether resources are managed as IaC before proposing a configuration "
        "change, and name the drift a manual change creates.",
        arguments=[_LANGUAGE_ARGUMENT],
    ),
    types.Prompt(
        name="suggested_command_format",
        title="How to propose a command for the user to run",
        description="suggest_command and the block the user sees: kind, targets, blast radius, "
        "warnings; an example.",
        arguments=[_LANGUAGE_ARGUMENT],
    ),
)


def prompt_list() -> list[types.Prompt]:
    return list(PROMPTS)


def get_prompt(
    name: str, arguments: dict[str, str] | None, context: PromptContext
) -> types.GetPromptResult:
    """Render the prompt ``name``; an unknown name or argument value is an MCP error."""
    from prompts import render

    arguments = arguments or {}
    known = {p.name: p for p in PROMPTS}
    prompt = known.get(name)
    if prompt is None:
        raise MCPError(
            types.INVALID_PARAMS, f"unknown prompt {name[:80]!r}; prompts: {', '.join(known)}"
        )
    allowed = {a.name for a in prompt.arguments or []}
    unexpected = sorted(set(arguments) - allowed)
    if unexpected:
        raise MCPError(
            types.INVALID_PARAMS,
            f"prompt {name} takes {', '.join(sorted(allowed))}; not {unexpected[0][:80]!r}",
        )
    language = _language(arguments.get("language"))
    if name == "workflow":
        symptom = arguments.get("symptom", "").strip()[:SYMPTOM_CHARS]
        text = render(
            "mcp_workflow.jinja2",
            cluster=context.cluster,
            region=context.region,
            node=context.node,
            recorded=context.recorded,
            symptom=symptom,
            language=language,
            over_mcp=True,
        )
    elif name == "iac_policy":
        text = render("_iac.jinja2", language=language)
    else:
        text = render(
            "mcp_suggested_command.jinja2",
            example=example_suggestion(context, language),
            language=language,
        )
    return types.GetPromptResult(
        description=prompt.description,
        messages=[
            types.PromptMessage(role="user", content=types.TextContent(text=text.strip() + "\n"))
        ],
    )


def _language(value: str | None) -> Language:
    if value is None or value == "":
        return "en"
    if value not in LANGUAGES:
        raise MCPError(types.INVALID_PARAMS, f"language must be en or zh, not {value[:20]!r}")
    return value


def example_suggestion(context: PromptContext, language: Language) -> str:
    """A reboot proposal for this server's cluster (or a placeholder one), judged and
    rendered exactly as `suggest_command` would."""
    from agent.safety.suggest import SuggestionContext, build_suggestion, render_suggestion

    cluster = context.cluster or "my-cluster"
    region = context.region or "us-west-2"
    node = context.node or EXAMPLE_NODE
    suggestion = build_suggestion(
        f"aws sagemaker batch-reboot-cluster-nodes --cluster-name {cluster} "
        f"--node-ids {node} --region {region}",
        purpose="Reboot the node so the GPU that fell off the bus comes back; triage again "
        "afterwards.",
        context=SuggestionContext(triage_done=True, known_ids=frozenset({node}), language=language),
        section="G.2",
    )
    return render_suggestion(suggestion, language).rstrip()
