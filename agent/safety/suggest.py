"""Turn a command into a `Suggestion`: its kind, targets, blast radius, IaC note and flags.

This is the public entry: `build_suggestion` judges a command in a `SuggestionContext`
(what the conversation tells: triage done, nodes rebooted, Slurm controllers, known ids,
language) and `render_suggestion` shows it. The parts live in their own modules: the kind
and the verdict in `agent.safety.kinds` (commands run elsewhere: `tools.command_safety.remote`),
the targets in `agent.safety.targets`, the blast radius in `agent.safety.radius`, and the
inert text shown from the model's input in `agent.safety.inert`. The flags, which depend
on the conversation, are set here (`_flags`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from agent.safety.inert import _purpose, inert_line
from agent.safety.kinds import _Facts, _kind, _line_facts, _verdict
from agent.safety.markdown import fence_for
from agent.safety.model import (
    FLAG_BEFORE_TRIAGE,
    FLAG_DATA_LOSS,
    FLAG_REPLACE_BEFORE_REBOOT,
    FLAG_SLURM_CONTROLLER,
    FLAG_UNCLASSIFIED,
    Suggestion,
    SuggestionKind,
)
from agent.safety.radius import _blast_radius
from agent.safety.shell import judge
from agent.safety.targets import (
    _named_nodes,
    open_targets,
    targets_acted_on,
    targets_of,
    words_naming,
)
from prompts import render
from tools.command_safety import CommandClass
from tools.ownership.model import IacOwner
from tools.redaction import redact_output
from tools.remediation import replacement_first
from tools.visible import visible

Language = Literal["en", "zh"]


@dataclass(frozen=True)
class SuggestionContext:
    """What the safety layer knows of the conversation when it judges a command."""

    triage_done: bool = False
    rebooted: frozenset[str] = field(default_factory=frozenset)
    """Nodes whose reboot the user reported done: instance ids and node names
    (hyperpod-i-…, ip-…), as the reboot named them."""
    slurm_controllers: frozenset[str] = field(default_factory=frozenset)
    """Instance ids of the Slurm controller nodes."""
    replace_first: Mapping[str, str] = field(default_factory=dict, hash=False)
    """Nodes (instance ids and node names) whose findings in this conversation fall under a
    remediation-table row that allows replacing before a reboot, with that row's id."""
    known_ids: frozenset[str] = field(default_factory=frozenset)
    """Ids seen in the cluster (node names, groups...): counted as targets when named."""
    language: Language = "en"
    owner_of: Callable[[str], IacOwner | None] | None = field(
        default=None, compare=False, hash=False
    )
    """Who manages a target (tools.ownership.resolve.Owners.of, over the conversation's
    cluster), None for a target it does not look up; None when no cluster is open."""


_DEFAULT_PURPOSE: dict[SuggestionKind, tuple[str, str]] = {
    "investigate": ("Read the current state to confirm the diagnosis.", "读取当前状态以确认诊断。"),
    "config": ("Change the configuration that causes the problem.", "修改导致问题的配置。"),
    "workload": ("Restart or stop the affected workload.", "重启或停止受影响的工作负载。"),
    "node": ("Change the node's state to fix the problem.", "修改节点状态以修复问题。"),
    "reboot": ("Reboot the node to recover it.", "重启节点以恢复。"),
    "replace": (
        "Replace the node or remove the data, only once a reboot has not helped.",
        "在重启无效后，替换节点或删除数据。",
    ),
}


_SECTION_CHARS = 40
_RADIUS_CHARS = 1_000


def iac_warning(language: Language, owners: Iterable[IacOwner] = (), *, ask: bool = True) -> str:
    """The IaC paragraph: who manages each resource the change acts on, as far as it was
    read, then the IaC question and drift warning when an owner is unknown (``ask``), or
    only the drift reminder when every one is known. Without owners, the question alone."""
    owners = list(owners)
    if not owners:
        return render("iac_warning.jinja2", language=language).strip()
    text = render("iac_owner.jinja2", owners=owners, ask=ask, language=language)
    return "\n".join(line for line in text.splitlines() if line.strip())


def _asks(owners: list[IacOwner]) -> bool:
    """Whether the question stays: no owner was read, or one is unknown."""
    return not owners or any(not owner.known for owner in owners)


def iac_owners(targets: Iterable[str], context: SuggestionContext) -> list[IacOwner]:
    """Who manages each target the owner lookup knows how to read (once per resource)."""
    if context.owner_of is None:
        return []
    return [owner for target in targets if (owner := context.owner_of(target)) is not None]


def replace_basis(command: str, context: SuggestionContext) -> list[str] | None:
    """Why a replacement of the nodes `command` names needs no reboot first, or None when
    one of them does. Each node must have been rebooted in this conversation, or carry
    evidence whose remediation-table row allows replacing first (conclusive evidence: a
    failed remap, a hardware Xid back after a reboot, a Neuron class AWS pairs with
    replacement...). The rows found are the basis; a node only rebooted adds none. A
    replacement that names no node we can check (a group) has no basis, and neither has one
    whose nodes cannot all be read off its text: a substitution, a variable, a file, a
    pattern, a loop, a selector, a name not recognised (`open_targets`) may add nodes never
    checked to the ones that were."""
    if open_targets(command, context.known_ids) is not None:
        return None
    nodes = _named_nodes(command, context.known_ids)
    if not nodes:
        return None
    basis: list[str] = []
    for aliases in nodes:
        if aliases & context.rebooted:
            continue
        rows = [
            row
            for name in sorted(aliases)
            if (row := context.replace_first.get(name)) is not None and replacement_first(row)
        ]
        if not rows:
            return None
        basis += [row for row in dict.fromkeys(rows) if row not in basis]
    return basis


def _flags(
    kind: SuggestionKind, verdict: CommandClass, command: str, context: SuggestionContext
) -> list[str]:
    nodes = _named_nodes(command, context.known_ids)
    flags: list[str] = []
    # The flag goes only when every node named was rebooted or has conclusive evidence by
    # the remediation table (tools/remediation/).
    if kind == "replace" and replace_basis(command, context) is None:
        flags.append(FLAG_REPLACE_BEFORE_REBOOT)
    named = {name for aliases in nodes for name in aliases} | set(targets_of(command))
    # The controller by any name it goes by: instance id, Slurm host name, address.
    named |= words_naming(command, context.slurm_controllers)
    if kind in ("replace", "reboot") and named & context.slurm_controllers:
        flags.append(FLAG_SLURM_CONTROLLER)
    if verdict.kind != "read_only" and not context.triage_done:
        flags.append(FLAG_BEFORE_TRIAGE)
    if verdict.kind == "unknown":
        flags.append(FLAG_UNCLASSIFIED)
    if verdict.destructive_rank == 2:
        flags.append(FLAG_DATA_LOSS)
    return flags


def build_suggestion(
    command: str,
    *,
    purpose: str,
    context: SuggestionContext,
    section: str | None = None,
    source: Literal["tool", "text"] = "tool",
) -> Suggestion:
    """Judge ``command`` and describe it for the user; it is never run here. The command is
    judged and shown as a reader sees it (`visible`): a character without a glyph cannot
    make the judged command differ from the shown one. It is redacted whole first
    (`redact_output`), before its targets, flags and purpose are taken apart: a secret in
    a proposed command is never shown, nor split into pieces too short to recognise."""
    command = redact_output(visible(command)).strip()
    judged = judge(command)
    facts = _line_facts(command) if judged.kind != "read_only" else _Facts()
    verdict = _verdict(judged, facts)
    kind = _kind(verdict, facts.kinds)
    # The ids the change acts on: a read-only stage beside it names ids it only reads.
    targets = targets_acted_on(command, context.known_ids)
    english, chinese = _DEFAULT_PURPOSE[kind]
    default = chinese if context.language == "zh" else english
    radius = _blast_radius(kind, verdict, targets, command, context.language)
    owners = iac_owners(targets, context) if facts.infrastructure else []
    return Suggestion(
        command=command,
        kind=kind,
        mutating=verdict.kind != "read_only",
        purpose=_purpose(purpose, default),
        targets=targets,
        blast_radius=inert_line(radius, _RADIUS_CHARS),
        iac_warning=(
            iac_warning(context.language, owners, ask=_asks(owners))
            if facts.infrastructure
            else None
        ),
        iac_owner=owners,
        flags=_flags(kind, verdict, command, context),
        replace_basis=(replace_basis(command, context) or []) if kind == "replace" else [],
        section=None if section is None else inert_line(section, _SECTION_CHARS),
        source=source,
    )


def render_suggestion(
    suggestion: Suggestion,
    language: Language,
    *,
    iac_note: bool = False,
    evidence_age: str | None = None,
) -> str:
    """The Markdown block shown to the user, from the shared template.

    The command is fenced with a backtick run longer than any inside it, so no line of it
    can close the block early. The IaC paragraph is not in the block unless ``iac_note``:
    an answer shows it once, after all its blocks (`render_iac_note`), as a paragraph
    repeated under each block was noise (issue 24); a block that stands alone (the MCP
    tool's ``shown_to_user``) carries its own. ``evidence_age`` (agent.verify.age_note) says
    how old the triage behind it is, when that matters."""
    return render(
        "suggested_command.jinja2",
        suggestion=suggestion,
        language=language,
        fence=fence_for(suggestion.command),
        iac_note=iac_note,
        evidence_age=evidence_age,
    )


def block_heading(language: Language) -> str:
    """The heading a suggestion block opens with (in bold), from the shared template: the
    chat's printer finds a block by it, to number it for /copy."""
    return render("suggestion_heading.jinja2", language=language).strip()


def render_iac_note(suggestions: Iterable[Suggestion], language: Language) -> str:
    """The IaC paragraph as a quote, once for all the suggestions of an answer that change
    infrastructure; "" when none does. It states who manages each resource they act on
    (each once), and asks only when one suggestion's owners are not all known."""
    changing = [s for s in suggestions if s.iac_warning is not None]
    if not changing:
        return ""
    owners = list({o.resource: o for s in changing for o in s.iac_owner}.values())
    ask = any(_asks(s.iac_owner) for s in changing)
    return "> " + iac_warning(language, owners, ask=ask).replace("\n", "\n> ")
