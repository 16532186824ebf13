"""The dispatcher: tokenise a line, judge each simple command by its tool, combine.

The per-tool tables come from the modules by concern (aws, kubernetes, slurm, node); the
shells (``bash -c``) live here because they classify their argument as a line in turn.
Nesting (``bash -c``, SSM parameters, substitutions) and line length are bounded: beyond
either, the answer is ``unknown``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeVar

from tools.commands import aws, kubernetes, node, slurm
from tools.commands.args import flag_in
from tools.commands.result import CommandClass, Handler, Rank, combine, mut, ro, unknown
from tools.commands.shell import split_stages, substitutions, tokenize, unwrap

_MAX_DEPTH = 4
_MAX_COMMAND_CHARS = 20_000

_T = TypeVar("_T")


def _shell(args: Sequence[str], depth: int) -> CommandClass:
    if "-c" in args:
        i = args.index("-c")
        if i + 1 < len(args):
            return classify_nested(args[i + 1], depth + 1)
    return unknown("starts a shell or runs a script")


def _merge(*tables: Mapping[str, _T]) -> dict[str, _T]:
    """One table from several; a tool named by two modules is a mistake, not an override."""
    merged: dict[str, _T] = {}
    for table in tables:
        overlap = merged.keys() & table.keys()
        if overlap:
            raise ValueError(f"tools classified twice: {', '.join(sorted(overlap))}")
        merged.update(table)
    return merged


_HANDLERS: dict[str, Handler] = _merge(
    aws.HANDLERS,
    kubernetes.HANDLERS,
    slurm.HANDLERS,
    node.HANDLERS,
    dict.fromkeys(("bash", "sh", "zsh", "su"), _shell),
)
_ALWAYS_MUTATING: dict[str, tuple[Rank, str]] = _merge(node.ALWAYS_MUTATING, slurm.ALWAYS_MUTATING)
_READ_ONLY_TOOLS = node.READ_ONLY_TOOLS | slurm.READ_ONLY_TOOLS


def _classify_stage(words: list[str], depth: int) -> CommandClass:
    words, refusal = unwrap(words)
    if refusal is not None:
        return unknown(refusal)
    if not words:
        return ro("variable assignment only")
    tool, args = words[0].rsplit("/", 1)[-1], words[1:]
    if tool in _HANDLERS:
        return _HANDLERS[tool](args, depth)
    if tool in _ALWAYS_MUTATING:
        rank, reason = _ALWAYS_MUTATING[tool]
        return mut(f"{tool} {reason}", rank)
    if tool.startswith("mkfs."):
        return mut(f"{tool} formats a filesystem", 2)
    if tool == "date" and flag_in(args, ("-s", "--set")):
        return mut("date --set changes the clock")
    if tool in _READ_ONLY_TOOLS:
        return ro(f"{tool} is read-only")
    return unknown(f"{tool}: command not recognised")


def classify_nested(command: str, depth: int) -> CommandClass:
    """Classify a line found ``depth`` levels inside another (``bash -c``, SSM, ``$(...)``)."""
    if depth > _MAX_DEPTH:
        return unknown("command nested too deeply")
    if len(command) > _MAX_COMMAND_CHARS:
        return unknown("command too long to classify")
    tokens = tokenize(command)
    if tokens is None:
        return unknown("cannot parse the command (unbalanced quotes)")
    stages, writes = split_stages(tokens)
    parts = [_classify_stage(stage, depth) for stage in stages]
    parts.extend(mut(f"redirects output into {target}") for target in writes)
    bodies = [body for body in substitutions(command) if body.strip()]
    parts.extend(classify_nested(body, depth + 1) for body in bodies)
    return combine(parts)


def known_tools() -> frozenset[str]:
    """Every tool name the classifier judges by name (handlers and both fixed tables).

    Callers use it to spot commands written in text; wrappers such as sudo are not tools
    here (they are stripped before the lookup) and are left to the caller.
    """
    return frozenset(_HANDLERS) | frozenset(_ALWAYS_MUTATING) | _READ_ONLY_TOOLS


def classify(command: str) -> CommandClass:
    """Classify one command line; a pipeline or list is as mutating as its worst stage."""
    return classify_nested(command, 0)
