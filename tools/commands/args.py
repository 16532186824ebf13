"""Reading a tool's arguments, and handlers built from the shape of those arguments.

The helpers never interpret a value: they find flags, option values and positional words,
which is all the per-tool handlers need. The handler factories cover tools whose read-only
use is told by one simple rule (no positionals, a read-only subcommand, a query flag).
"""

from __future__ import annotations

from collections.abc import Sequence

from tools.commands.result import CommandClass, Handler, mut, ro


def word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


def flag_in(args: Sequence[str], flags: Sequence[str] | frozenset[str]) -> str | None:
    """The first argument that is one of ``flags`` (``--flag=value`` counts too)."""
    for arg in args:
        if arg.split("=", 1)[0] in flags:
            return arg
    return None


def option(args: Sequence[str], name: str) -> str | None:
    """The value of ``name VALUE`` or ``name=VALUE``."""
    for i, arg in enumerate(args):
        if arg == name and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith(name + "="):
            return arg.split("=", 1)[1]
    return None


def positionals(args: Sequence[str], takes_value: frozenset[str] = frozenset()) -> list[str]:
    out: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg.startswith("-") and arg != "-":
            skip = arg in takes_value
        else:
            out.append(arg)
    return out


def no_positionals(tool: str) -> Handler:
    def handler(args: Sequence[str], depth: int) -> CommandClass:
        if positionals(args):
            return mut(f"{tool} with arguments changes state")
        return ro(f"{tool} listing is read-only")

    return handler


def subcommands(tool: str, read: str, *, bare: bool = False, value_flags: str = "") -> Handler:
    """Read-only when the first word is one of ``read`` (or absent, when ``bare``)."""
    read_set, flags = word_set(read), word_set(value_flags)

    def handler(args: Sequence[str], depth: int) -> CommandClass:
        words = positionals(args, flags)
        if (not words and bare) or (words and words[0] in read_set):
            return ro(f"{tool} {words[0] if words else ''} is read-only".replace("  ", " "))
        return mut(f"{tool} {words[0] if words else ''} changes state".replace("  ", " "))

    return handler


def query_flags(tool: str, flags: str) -> Handler:
    flag_set = word_set(flags)

    def handler(args: Sequence[str], depth: int) -> CommandClass:
        if flag_in(args, flag_set):
            return ro(f"{tool} query is read-only")
        return mut(f"{tool} changes installed packages")

    return handler
