"""One parse of a command line, shared by the classifier and the safety layer's rules.

`parse_line` tokenises a line once (`tools.command_safety.shell.tokenize`), splits it into
its simple commands (pipelines, lists, loop bodies), collects the files its redirections
write and the bodies of its substitutions, and reads each simple command's program as the
shell resolves it (`tools.command_safety.words.command_name`: quotes and backslashes
removed, the last component of a path) once its wrappers are taken off. The classifier
judges these stages; `agent.safety.kinds`, `radius` and `targets` read the same stages for
their rules, so all see the same tool, verb, arguments and remote commands however the line
spells them.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from tools.command_safety.remote import remote_commands
from tools.command_safety.shell import (
    Unwrapped,
    split_stages,
    substitutions,
    tokenize,
    unwrap,
    unwrap_stage,
)
from tools.command_safety.words import command_name


@dataclass(frozen=True)
class Stage:
    """One simple command. ``words``: as tokenised, wrappers included. ``run``: the
    command with its wrappers taken off, or why it cannot be told (the classifier's view).
    ``argv``: the program and its arguments as the word-level rules read them (a wrapper
    that runs nothing is its own name; watch's arguments are the command they name)."""

    words: tuple[str, ...]
    run: Unwrapped
    argv: tuple[str, ...]

    @property
    def tool(self) -> str:
        """The program, as the shell resolves its name ('' when nothing runs)."""
        return command_name(self.argv[0]) if self.argv else ""

    @property
    def args(self) -> tuple[str, ...]:
        return self.argv[1:]

    @property
    def remote(self) -> list[str]:
        """The commands this one runs on another node or in a container (ssh, srun,
        pdsh, clush, kubectl / docker / crictl exec, SSM)."""
        return remote_commands(list(self.argv)) if self.argv else []

    @property
    def verb(self) -> str:
        """The first argument that is not an option (a subcommand, for most tools)."""
        return next((a for a in self.args if not a.startswith("-")), "")


@dataclass(frozen=True)
class ParsedLine:
    """A line's words and operators as tokenised, its stages, the files its redirections
    write, its substitutions' bodies."""

    tokens: tuple[str, ...]
    stages: tuple[Stage, ...]
    writes: tuple[str, ...]
    substitutions: tuple[str, ...]


def stage_of(words: list[str]) -> Stage:
    argv, _ = unwrap(list(words))
    return Stage(tuple(words), unwrap_stage(list(words)), tuple(argv))


# Remembered: the classifier and each of the safety layer's readers (kinds, radius, targets,
# prose) ask for the parse of the same line; a ParsedLine is immutable, so one serves all.
@lru_cache(maxsize=4096)
def parse_line(command: str) -> ParsedLine | None:
    """The parse of ``command``; None when its quotes do not balance."""
    tokens = tokenize(command)
    if tokens is None:
        return None
    stages, writes = split_stages(tokens)
    bodies = tuple(body for body in substitutions(command) if body.strip())
    return ParsedLine(tuple(tokens), tuple(stage_of(s) for s in stages), tuple(writes), bodies)
