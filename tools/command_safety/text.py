"""Text and file tools that only read, unless told to write.

sed and awk are read-only while their program prints; a program that writes files or runs
commands (``sed 'w FILE'``, ``sed 's/x/y/e'``, awk's ``system()``) or that is read from a
file is not. The other tools here read unless given one of their write options (``sort -o``,
``yq -i``, an output file as ``uniq IN OUT``): `WriteOptions` lists those per tool.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tools.command_safety.args import (
    WriteOptions,
    find_option,
    grammar,
    parse,
    positionals,
    reads_unless,
    write_verdict,
)
from tools.command_safety.result import CommandClass, Handler, mut, ro, unknown

# --- sed ----------------------------------------------------------------------------------

_SED = grammar(
    values="-e --expression -f --file -l --line-length",
    flags="-n --quiet --silent -E -r --regexp-extended -s --separate -u --unbuffered -z"
    " --null-data --posix --debug --sandbox --follow-symlinks -b --binary --help --version",
    optional="-i --in-place",
)
_SED_SIMPLE = frozenset("=dDgGhHlLnNpPqQxzF")
_SED_S_FLAGS = frozenset("gpiImM0123456789")


def _sed_part(script: str, i: int, delim: str) -> int:
    """The index after the closing ``delim`` of a regex or replacement starting at ``i``."""
    while i < len(script):
        if script[i] == "\\":
            i += 2
        elif script[i] == delim:
            return i + 1
        elif script[i] == "\n":
            return -1
        else:
            i += 1
    return -1


def _sed_address(script: str, i: int) -> int:
    """The index after one address (or ``i`` when there is none); -1 when unreadable."""
    if i < len(script) and script[i].isdigit():
        while i < len(script) and (script[i].isdigit() or script[i] == "~"):
            i += 1
    elif script.startswith("$", i):
        i += 1
    elif script.startswith("/", i):
        i = _sed_part(script, i + 1, "/")
    elif script.startswith("\\", i) and i + 1 < len(script):
        i = _sed_part(script, i + 2, script[i + 1])
    else:
        return i
    while 0 <= i < len(script) and script[i] in "IM":
        i += 1
    return i


def _sed_addresses(script: str, i: int) -> int:
    i = _sed_address(script, i)
    if 0 <= i < len(script) and script[i] == ",":
        i += 1
        if i < len(script) and script[i] in "+~":
            i += 1
            while i < len(script) and script[i].isdigit():
                i += 1
        else:
            i = _sed_address(script, i)
    return i


def _end_of(script: str, i: int, stops: str) -> int:
    while i < len(script) and script[i] not in stops:
        i += 2 if script[i] == "\\" else 1
    return i


def _sed_problem(script: str) -> str | None:
    """Why a sed program is not read-only (it writes or runs something), or None."""
    i = 0
    while i < len(script):
        if script[i] in " \t\n;}{!":
            i += 1
            continue
        if script[i] == "#":
            i = _end_of(script, i, "\n")
            continue
        i = _sed_addresses(script, i)
        if i < 0:
            return "an address sed would read differently"
        while i < len(script) and script[i] in " \t!":
            i += 1
        if i >= len(script):
            return None
        command, i = script[i], i + 1
        if command in "{}":
            continue
        if command in _SED_SIMPLE:
            while i < len(script) and (script[i].isdigit() or script[i] in " \t"):
                i += 1
        elif command in "aicrRv:btT":
            i = _end_of(script, i, "\n" if command in "aicrR" else "\n;")
        elif command in "sy" and i < len(script):
            delim = script[i]
            i = _sed_part(script, i + 1, delim)
            i = _sed_part(script, i, delim) if i >= 0 else -1
            if i < 0:
                return f"an {command} command sed would read differently"
            while command == "s" and i < len(script) and script[i] not in " \t\n;}":
                if script[i] in "we":
                    return (
                        "the s///"
                        + script[i]
                        + " flag "
                        + ("writes a file" if script[i] == "w" else "runs the result as a command")
                    )
                if script[i] not in _SED_S_FLAGS:
                    return f"s/// flag {script[i]} not recognised"
                i += 1
        elif command in "wW":
            return "the w command writes a file"
        elif command == "e":
            return "the e command runs a command"
        else:
            return f"sed command {command} not recognised"
    return None


def _sed(args: Sequence[str], depth: int) -> CommandClass:
    if find_option(args, ("-i", "--in-place"), values="-e -f -l") is not None:
        return mut("sed -i edits files in place")
    parsed = parse(args, _SED)
    if parsed.error is not None:
        return unknown(f"sed option {parsed.error} not recognised")
    if parsed.has("-f", "--file"):
        return unknown("sed program read from a file")
    scripts = parsed.values("-e", "--expression") or list(parsed.words[:1])
    problems = [p for p in map(_sed_problem, scripts) if p]
    if problems and not parsed.has("--sandbox"):
        if "writes" in problems[0]:
            return mut(f"sed program: {problems[0]}")
        return unknown(f"sed program: {problems[0]}")
    return ro("sed without -i only prints")


# --- awk ----------------------------------------------------------------------------------

# Output redirection, pipes to commands, system(), getline from commands or files, gawk's
# in-place editing, extensions and indirect calls (@name(...) can call system).
_AWK_SIDE_EFFECT = re.compile(r"system\(|\bprintf?\b[^;}]*[>|]|inplace|getline|@[A-Za-z_]")
_AWK_OPTIONS = WriteOptions(
    changes="-o --pretty-print -p --profile -d --dump-variables",
    runs="-f --file -E --exec -i --include -l --load",
    values="-F --field-separator -v --assign",
)


def _awk(args: Sequence[str], depth: int) -> CommandClass:
    verdict = write_verdict("awk", args, _AWK_OPTIONS)
    if verdict is not None:
        return verdict
    if any(_AWK_SIDE_EFFECT.search(a) for a in args):
        return unknown("awk program may run commands or write files")
    return ro("awk only prints")


# --- tools with write options --------------------------------------------------------------

_WRITE_OPTIONS: dict[str, WriteOptions] = {
    "sort": WriteOptions(
        files="-o --output",
        runs="--compress-program",
        values="-k --key -t --field-separator -S --buffer-size -T --temporary-directory"
        " --parallel --batch-size --files0-from",
    ),
    "uniq": WriteOptions(output_at=1, values="-f --skip-fields -s --skip-chars -w --check-chars"),
    "yq": WriteOptions(
        changes="-i --inplace --in-place -s --split-exp",
        values="-o --output-format -p --input-format -I --indent",
    ),
    "xxd": WriteOptions(
        output_at=1, values="-c -cols -g -groupsize -l -len -o -offset -s -seek -n -name"
    ),
    "less": WriteOptions(
        files="-o -O --log-file --LOG-FILE", runs="-k --lesskey-file --lesskey-src"
    ),
    "file": WriteOptions(changes="-C --compile", values="-m --magic-file -e --exclude -F"),
    "rg": WriteOptions(
        runs="--pre --hostname-bin",
        values="-e --regexp -f --file -g --glob -t --type -T --type-not -m --max-count -A -B -C"
        " -j --threads -M --max-columns -r --replace -E --encoding",
    ),
    "lstopo": WriteOptions(
        output_at=0,
        values="--of --output-format -i --input --if --input-format --filter --restrict --pid",
    ),
    "lstopo-no-graphics": WriteOptions(
        output_at=0,
        values="--of --output-format -i --input --if --input-format --filter --restrict --pid",
    ),
}


def _less(args: Sequence[str], depth: int) -> CommandClass:
    if any(a.startswith("+") for a in positionals(args)):
        return unknown("less +command runs less commands (which can run a shell)")
    return reads_unless("less", _WRITE_OPTIONS["less"])(args, depth)


HANDLERS: dict[str, Handler] = {
    "sed": _sed,
    "awk": _awk,
    "gawk": _awk,
    "mawk": _awk,
    **{tool: reads_unless(tool, spec) for tool, spec in _WRITE_OPTIONS.items()},
    "less": _less,
}
