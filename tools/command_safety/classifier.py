"""The dispatcher: tokenise a line, judge each simple command by its tool, combine.

The per-tool tables come from the modules by concern (aws, kubernetes, slurm, node,
network, text, iac, remote); the shells (``bash -c``) live here because they classify their
argument as a line in turn, and `classify_argv` is what handlers call for a program they
run (``ip netns exec``, ``srun``). Nesting (``bash -c``, SSM parameters, substitutions,
remote commands) and line length are bounded: beyond either, the answer is ``unknown``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeVar

from tools.command_safety import (
    aws,
    iac,
    interpreters,
    kubernetes,
    network,
    node,
    remote,
    slurm,
    text,
)
from tools.command_safety.args import HARMLESS_TARGETS
from tools.command_safety.parsed import Stage, parse_line, stage_of
from tools.command_safety.result import (
    CommandClass,
    Handler,
    Rank,
    combine,
    mut,
    ro,
    unknown,
    writes_into,
)
from tools.command_safety.shell import LAUNCHERS
from tools.command_safety.words import command_name, is_cmdlet

_MAX_DEPTH = 4
_MAX_COMMAND_CHARS = 20_000

_T = TypeVar("_T")


def _shell(args: Sequence[str], depth: int) -> CommandClass:
    if "-c" in args:
        i = args.index("-c")
        if i + 1 < len(args):
            return classify_nested(args[i + 1], depth + 1)
    # Without -c a shell runs a script or reads commands from its input: a pipe into a
    # shell (``... | base64 -d | sh``) runs whatever it is fed, which cannot be read here.
    return unknown("starts a shell, runs a script or runs what is piped into it")


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
    network.HANDLERS,
    text.HANDLERS,
    iac.HANDLERS,
    remote.HANDLERS,
    interpreters.HANDLERS,
    dict.fromkeys(("bash", "sh", "zsh", "su"), _shell),
)
_ALWAYS_MUTATING: dict[str, tuple[Rank, str]] = _merge(node.ALWAYS_MUTATING, slurm.ALWAYS_MUTATING)
_READ_ONLY_TOOLS = node.READ_ONLY_TOOLS | slurm.READ_ONLY_TOOLS


# Variables whose value is a program (or a file of code) that the command, or a program it
# starts, runs: a pager, an editor, a browser, a preloaded library, a shell's start-up file.
_RUNS_A_PROGRAM = frozenset(
    {"PAGER", "MANPAGER", "GIT_PAGER", "SYSTEMD_PAGER", "BROWSER", "LESSOPEN", "LESSCLOSE",
     "EDITOR", "VISUAL", "LD_PRELOAD", "LD_AUDIT", "BASH_ENV", "ENV", "PROMPT_COMMAND",
     "PYTHONSTARTUP", "PERL5OPT", "NODE_OPTIONS"}
)  # fmt: skip


def _assigned(words: Sequence[str]) -> list[str]:
    """The names assigned before the command word (``A=1 cmd``; after env or sudo too)."""
    names: list[str] = []
    for word in words:
        name, equals, _ = word.partition("=")
        if equals and name.isidentifier():
            names.append(name)
        elif word not in ("env", "sudo") and not word.startswith("-"):
            break
    return names


def classify_argv(words: Sequence[str], depth: int) -> CommandClass:
    """Classify one program and its arguments, run directly (no shell in between)."""
    return _classify_stage(stage_of(list(words)), depth)


def _classify_stage(parsed: Stage, depth: int) -> CommandClass:
    if depth > _MAX_DEPTH:
        return unknown("command nested too deeply")
    stage = parsed.run
    parts = [writes_into(target) for target in stage.writes if target not in HARMLESS_TARGETS]
    parts += [
        unknown(f"{name} names a program the command will run")
        for name in _assigned(parsed.words)
        if name in _RUNS_A_PROGRAM
    ]
    if stage.refusal is not None:
        parts.append(unknown(stage.refusal))
    elif stage.line is not None:
        parts.append(classify_nested(stage.line, depth + 1))
    elif stage.query is not None:
        parts.append(ro(stage.query))
    elif not stage.words:
        parts.append(ro("variable assignment only"))
    else:
        parts.append(_classify_tool(stage.words, depth))
    return combine(parts)


def _classify_tool(words: Sequence[str], depth: int) -> CommandClass:
    tool, args = command_name(words[0]), words[1:]
    if tool in _HANDLERS:
        return _HANDLERS[tool](args, depth)
    if tool in _ALWAYS_MUTATING:
        rank, reason = _ALWAYS_MUTATING[tool]
        return mut(f"{tool} {reason}", rank)
    if tool.startswith(("mkfs.", "mke2fs", "mkswap")):
        return mut(f"{tool} formats a filesystem", 2)
    if tool in _READ_ONLY_TOOLS:
        return ro(f"{tool} is read-only")
    if is_cmdlet(tool):
        return interpreters.cmdlet(tool, args, depth)
    return unknown(f"{tool}: command not recognised")


def classify_nested(command: str, depth: int) -> CommandClass:
    """Classify a line found ``depth`` levels inside another (``bash -c``, SSM, ``$(...)``)."""
    if depth > _MAX_DEPTH:
        return unknown("command nested too deeply")
    if len(command) > _MAX_COMMAND_CHARS:
        return unknown("command too long to classify")
    parsed = parse_line(command)
    if parsed is None:
        return unknown("cannot parse the command (unbalanced quotes)")
    parts = [_classify_stage(stage, depth) for stage in parsed.stages]
    # A redirection that writes nothing (``: > f``, ``> f``, ``true > f``) empties the file.
    empties = ">>" not in command and all(list(s.words) in ([":"], ["true"]) for s in parsed.stages)
    parts.extend(writes_into(target, empties=empties) for target in parsed.writes)
    parts.extend(classify_nested(body, depth + 1) for body in parsed.substitutions)
    return combine(parts)


def known_tools() -> frozenset[str]:
    """Every tool name the classifier judges by name (handlers and both fixed tables).

    Callers use it to spot commands written in text; wrappers such as sudo are not tools
    here (they are stripped before the lookup) and are left to the caller, except those
    that are programs in their own right (env, numactl, taskset, chrt).
    """
    return frozenset(_HANDLERS) | frozenset(_ALWAYS_MUTATING) | _READ_ONLY_TOOLS | LAUNCHERS


def classify(command: str) -> CommandClass:
    """Classify one command line; a pipeline or list is as mutating as its worst stage."""
    return classify_nested(command, 0)
