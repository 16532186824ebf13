"""Reading a tool's arguments, and handlers built from the shape of those arguments.

The helpers never interpret a value: they find flags, option values and positional words,
which is all the per-tool handlers need. `Grammar` and `parse` read options the way getopt
does (clusters such as ``-sXDELETE``, ``--name=value``, unambiguous abbreviations of long
options) and report the first option they do not know, so that a handler can fail closed
rather than guess whether that option swallows the next word. The handler factories cover
tools whose read-only use is told by one simple rule (no positionals, a read-only
subcommand, none of the tool's write options: `WriteOptions`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from tools.command_safety.result import CommandClass, Handler, mut, ro, unknown

HARMLESS_TARGETS = frozenset(("/dev/null", "/dev/stdout", "/dev/stderr", "-"))
_NUMBER = re.compile(r"^-\d+$")


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


def option_values(args: Sequence[str], name: str) -> list[str]:
    """Every value given to the long option ``name``, in order (the last one usually wins).

    ``name VALUE`` and ``name=VALUE`` both count, and so do abbreviations of ``name`` (as
    getopt_long and argparse accept them): finding more values is the safe direction."""
    out: list[str] = []
    for i, arg in enumerate(args):
        given, eq, value = arg.partition("=")
        if given != name and not (
            len(given) >= 4 and given.startswith("--") and name.startswith(given)
        ):
            continue
        if eq:
            out.append(value)
        elif i + 1 < len(args):
            out.append(args[i + 1])
    return out


# --- option grammars ----------------------------------------------------------------------


@dataclass(frozen=True)
class Grammar:
    """The options a tool knows: ``values`` take an argument, ``flags`` do not, ``optional``
    take one only when it is attached (``--color=auto``, ``-d1``).

    Names are written as the tool spells them: ``-n``, ``--namespace``, and single-dash long
    names such as ``-pm`` or ``-chdir`` (matched as whole words). ``numbers`` accepts
    ``-10`` (nice's old syntax) as a flag; ``abbreviate`` accepts unambiguous prefixes of the
    double-dash names, as getopt_long and argparse do."""

    values: frozenset[str] = frozenset()
    flags: frozenset[str] = frozenset()
    optional: frozenset[str] = frozenset()
    numbers: bool = False
    abbreviate: bool = True
    longs: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        names = self.values | self.flags | self.optional
        object.__setattr__(self, "longs", tuple(sorted(n for n in names if n.startswith("--"))))

    def known(self, name: str) -> bool:
        return name in self.values or name in self.flags or name in self.optional

    def long(self, name: str) -> str | None:
        """The long option ``name`` stands for (itself, or the one it abbreviates)."""
        if self.known(name):
            return name
        if not self.abbreviate or len(name) < 3:
            return None
        matches = [n for n in self.longs if n.startswith(name)]
        return matches[0] if len(matches) == 1 else None

    def extend(self, values: str = "", flags: str = "", optional: str = "") -> Grammar:
        return Grammar(
            self.values | word_set(values),
            self.flags | word_set(flags),
            self.optional | word_set(optional),
            numbers=self.numbers,
            abbreviate=self.abbreviate,
        )


def grammar(
    values: str = "",
    flags: str = "",
    optional: str = "",
    *,
    numbers: bool = False,
    abbreviate: bool = True,
) -> Grammar:
    return Grammar(
        word_set(values),
        word_set(flags),
        word_set(optional),
        numbers=numbers,
        abbreviate=abbreviate,
    )


@dataclass(frozen=True)
class Parsed:
    """Options found (canonical name, value), positional words, and what stopped the read.

    ``error`` is the first option the grammar does not know: the read stops there, since
    whether it takes the next word as its value cannot be told. ``rest`` is, when the read
    was asked to stop at the first positional word, that word and everything after it."""

    options: tuple[tuple[str, str | None], ...]
    words: tuple[str, ...]
    rest: tuple[str, ...]
    error: str | None
    ends: tuple[int, ...] = ()  # for each option, the index of the word after it

    def has(self, *names: str) -> bool:
        return any(name in names for name, _ in self.options)

    def values(self, *names: str) -> list[str]:
        return [v for name, v in self.options if name in names and v is not None]


def _short_cluster(
    arg: str, nxt: str | None, g: Grammar
) -> tuple[list[tuple[str, str | None]], bool, str | None]:
    """Options of one ``-abc`` word: (options, whether the next word was used, error)."""
    found: list[tuple[str, str | None]] = []
    for j, char in enumerate(arg[1:], start=2):
        name = "-" + char
        if name in g.values:
            attached = arg[j:]
            if attached:
                found.append((name, attached))
                return found, False, None
            found.append((name, nxt))
            return found, nxt is not None, None
        if name in g.optional:
            found.append((name, arg[j:] or None))
            return found, False, None
        if name not in g.flags:
            return found, False, arg
        found.append((name, None))
    return found, False, None


def parse(args: Sequence[str], g: Grammar, *, stop: bool = False) -> Parsed:
    """Read ``args`` by the grammar; with ``stop``, end at the first positional word."""
    found: list[tuple[str, str | None]] = []
    ends: list[int] = []
    words: list[str] = []

    def done(rest: Sequence[str] = (), error: str | None = None) -> Parsed:
        return Parsed(
            tuple(found), (*words, *rest), tuple(rest) if stop else (), error, tuple(ends)
        )

    i = 0
    while i < len(args):
        arg = args[i]
        nxt = args[i + 1] if i + 1 < len(args) else None
        if arg == "--":
            return done(args[i + 1 :])
        if g.numbers and _NUMBER.match(arg):
            found.append((arg, None))
            i += 1
            ends.append(i)
            continue
        if arg == "-" or not arg.startswith("-"):
            if stop:
                return done(args[i:])
            words.append(arg)
            i += 1
            continue
        name, eq, value = arg.partition("=")
        canonical = g.long(name) if arg.startswith("--") else (name if g.known(name) else None)
        if canonical is not None and (arg.startswith("--") or len(name) > 2 or eq):
            takes_next = canonical in g.values and not eq
            found.append((canonical, nxt if takes_next else (value if eq else None)))
            i += 2 if takes_next else 1
            ends.append(min(i, len(args)))
            continue
        if arg.startswith("--"):
            return done(error=arg)
        cluster, used_next, error = _short_cluster(arg, nxt, g)
        found.extend(cluster)
        i += 2 if used_next else 1
        ends.extend([i] * len(cluster))
        if error is not None:
            return done(error=error)
    return done()


def find_option(
    args: Sequence[str],
    names: Iterable[str],
    *,
    values: str = "",
    abbreviate: bool = True,
) -> tuple[str, str | None] | None:
    """The first of ``names`` in ``args``, however it is written, and its value if any.

    Unlike `parse` this never stops at an option it does not know: every word is looked at,
    so an option is found even where a stricter reading would have taken it for a value.
    That only ever finds more, which is the safe direction for write options. Short names
    are found inside clusters (``-tK``, ``-qp``); ``values`` names the short options whose
    argument may be attached, so that ``-k2o`` is not read as holding ``-o``. Long names
    are found by their prefixes too (``--out`` for ``--output``) unless the tool takes no
    abbreviations (``abbreviate=False``: Go's pflag, for one)."""
    wanted = set(names)
    shorts = {n[1] for n in wanted if len(n) == 2 and n[0] == "-" and n[1] != "-"}
    value_chars = {v[1] for v in word_set(values) if len(v) == 2}
    for i, arg in enumerate(args):
        if arg == "--":
            break
        if not arg.startswith("-") or arg == "-":
            continue
        name, eq, attached = arg.partition("=")
        nxt = args[i + 1] if i + 1 < len(args) else None
        value = attached if eq else nxt
        if name in wanted:
            return name, value
        if arg.startswith("--"):
            hits = [w for w in wanted if abbreviate and w.startswith(name) and len(name) > 2]
            if hits:
                return sorted(hits)[0], value
            continue
        for j, char in enumerate(arg[1:], start=2):
            if char in shorts:
                return "-" + char, arg[j:] or nxt
            if char in value_chars:
                break
    return None


# --- handler factories --------------------------------------------------------------------


def no_positionals(tool: str) -> Handler:
    def handler(args: Sequence[str], depth: int) -> CommandClass:
        if positionals(args):
            return mut(f"{tool} with arguments changes state")
        return ro(f"{tool} listing is read-only")

    return handler


def subcommands(
    tool: str,
    read: str,
    *,
    bare: bool = False,
    value_flags: str = "",
    flags: str = "",
    unsafe: str = "",
) -> Handler:
    """Read-only when the first word is one of ``read`` (or absent, when ``bare``).

    Options before the subcommand must be known (``value_flags`` take a value, ``flags`` do
    not): an unknown one may take the next word as its value, which would move the
    subcommand, so the answer is then ``unknown``. ``unsafe`` options (anywhere) make the
    answer ``unknown`` too: they run another program or write a file."""
    read_set = word_set(read)
    g = grammar(values=value_flags, flags=flags + " -h --help")
    unsafe_set = word_set(unsafe)

    def handler(args: Sequence[str], depth: int) -> CommandClass:
        danger = find_option(args, unsafe_set) if unsafe_set else None
        if danger is not None:
            return unknown(f"{tool} {danger[0]} runs a program or writes a file")
        before = parse(args, g, stop=True)
        if before.error is not None:
            return unknown(f"{tool}: option {before.error} before the subcommand not recognised")
        words = list(before.rest)
        sub = words[0] if words else ""
        if (not words and bare) or sub in read_set:
            return ro(f"{tool} {sub} is read-only".replace("  ", " "))
        return mut(f"{tool} {sub} changes state".replace("  ", " "))

    return handler


@dataclass(frozen=True)
class WriteOptions:
    """How a tool that only reads by default is made to write or change something.

    ``changes``: options that change state or write in place (``sysctl -w``, ``yq -i``).
    ``files``: options whose value is a file written (``sort -o FILE``); one of the harmless
    targets (/dev/null, /dev/stdout, -) writes nothing. ``runs``: options that run another
    program or read a program from a file (the answer is then ``unknown``). ``output_at``:
    the positional word (0-based) that names an output file, as in ``uniq IN OUT``.
    ``values``: options that take a value, for finding positional words and for reading
    clusters."""

    changes: str = ""
    files: str = ""
    runs: str = ""
    output_at: int | None = None
    values: str = ""


def write_verdict(tool: str, args: Sequence[str], spec: WriteOptions) -> CommandClass | None:
    """The verdict when ``args`` use one of the tool's write options, else None."""
    ran = find_option(args, word_set(spec.runs), values=spec.values) if spec.runs else None
    if ran is not None:
        return unknown(f"{tool} {ran[0]} runs another program or script")
    changed = find_option(args, word_set(spec.changes), values=spec.values)
    if changed is not None:
        return mut(f"{tool} {changed[0]} changes state or writes in place")
    written = find_option(args, word_set(spec.files), values=spec.values)
    if written is not None and written[1] not in HARMLESS_TARGETS:
        return mut(f"{tool} {written[0]} writes into {written[1] or 'a file'}")
    if spec.output_at is not None:
        words = positionals(args, word_set(spec.values + " " + spec.files))
        if len(words) > spec.output_at and words[spec.output_at] not in HARMLESS_TARGETS:
            return mut(f"{tool} writes its output into {words[spec.output_at]}")
    return None


def reads_unless(tool: str, spec: WriteOptions) -> Handler:
    """Read-only unless one of the tool's write options (or an output file) is given."""

    def handler(args: Sequence[str], depth: int) -> CommandClass:
        return write_verdict(tool, args, spec) or ro(f"{tool} is read-only")

    return handler
