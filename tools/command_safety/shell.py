"""Shell syntax: tokenising a line, splitting pipelines and lists, redirections, wrappers.

Nothing here judges a tool. It turns the text into the simple commands the dispatcher
classifies one by one, plus the files that redirections write and the bodies of command
substitutions, so that a pipeline or list is judged by its worst part.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass

from tools.command_safety.args import HARMLESS_TARGETS, Grammar, Parsed, grammar, parse, word_set
from tools.command_safety.words import ansi_c_text, command_name, shell_word

_SEPARATORS = word_set("| || && ; ;; & |& ( )")
_REDIRECTS = word_set("> >> >| &> &>> >& < << <<< <& <>")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
# <INSTANCE_ID> in a suggested command, and <redacted> where redaction took a secret out:
# one word each, not two redirections.
_PLACEHOLDER = re.compile(r"<([A-Z][A-Z0-9_]*|redacted)>")


@dataclass(frozen=True)
class _Wrapper:
    """A command that runs another: its options, and what it does besides running it.

    ``before``: positional words it takes before the command (timeout's DURATION, taskset's
    MASK, chrt's PRIORITY), each of which must match ``before_shape`` (otherwise the word
    may be the command itself, and the answer is ``unknown``). ``acts_on``: options that make
    it act on running processes instead of starting one. ``queries``: options after which
    it runs nothing and only prints. ``writes``: options whose value is a file it writes.
    ``line``: it hands its arguments, joined by blanks, to ``sh -c`` (watch) unless one of
    ``argv`` is given. ``alone``: what it does with no command (None: it has no use alone)."""

    grammar: Grammar
    before: int = 0
    before_shape: re.Pattern[str] | None = None
    acts_on: frozenset[str] = frozenset()
    queries: frozenset[str] = frozenset()
    writes: frozenset[str] = frozenset()
    line: bool = False
    argv: frozenset[str] = frozenset()
    alone: str | None = None


_DURATION = re.compile(r"^\d+(\.\d+)?[smhd]?$")
_CPU_MASK = re.compile(r"^(0x)?[0-9a-fA-F,\-:]+$")
_PRIORITY = re.compile(r"^\d+$")

# Wrappers that run the rest of the line as a command. An option a wrapper does not know
# makes the answer unknown: it might take the next word as its value, so the command that
# runs could be any of the following words.
_WRAPPERS: dict[str, _Wrapper] = {
    "sudo": _Wrapper(
        grammar(
            values="-u --user -g --group -p --prompt -C --close-from -D --chdir -r --role"
            " -t --type -T --command-timeout -U --other-user -R --chroot -c --login-class"
            " -a --auth-type -h --host",
            flags="-A --askpass -b --background -B --bell -E -e --edit -H --set-home -i --login"
            " -K --remove-timestamp -k --reset-timestamp -l --list -N --no-update -n"
            " --non-interactive -P --preserve-groups -S --stdin -s --shell -V --version -v"
            " --validate --help",
            optional="--preserve-env",
        )
    ),
    "env": _Wrapper(
        grammar(
            values="-u --unset -C --chdir -S --split-string -a --argv0",
            flags="-i --ignore-environment -0 --null -v --debug --list-signal-handling --help"
            " --version",
            optional="--block-signal --default-signal --ignore-signal",
        ),
        alone="env prints the environment",
    ),
    "nice": _Wrapper(
        grammar(values="-n --adjustment", flags="--help --version", numbers=True),
        alone="nice prints the niceness",
    ),
    "ionice": _Wrapper(
        grammar(
            values="-c --class -n --classdata -p --pid -P --pgid -u --uid",
            flags="-t --ignore -h --help -V --version",
        ),
        acts_on=word_set("-p --pid -P --pgid -u --uid"),
        alone="ionice prints the I/O class",
    ),
    "stdbuf": _Wrapper(grammar(values="-i --input -o --output -e --error", flags="--help")),
    "xargs": _Wrapper(
        grammar(
            values="-a --arg-file -d --delimiter -E -I -L -n --max-args -P --max-procs -s"
            " --max-chars --process-slot-var",
            flags="-0 --null -o --open-tty -p --interactive -r --no-run-if-empty -t --verbose"
            " -x --exit --show-limits --help --version",
            optional="-e --eof -i --replace -l --max-lines",
        ),
        alone="xargs with no command only echoes its input",
    ),
    "watch": _Wrapper(
        grammar(
            values="-n --interval -q --equexit",
            flags="-b --beep -c --color -C --no-color -e --errexit -g --chgexit -p --precise"
            " -r --no-rerun -t --no-title -w --no-wrap -x --exec -h --help -v --version",
            optional="-d --differences",
        ),
        line=True,
        argv=word_set("-x --exec"),
    ),
    "timeout": _Wrapper(
        grammar(
            values="-s --signal -k --kill-after",
            flags="--preserve-status --foreground -v --verbose --help --version",
        ),
        before=1,
        before_shape=_DURATION,
    ),
    "time": _Wrapper(
        grammar(
            values="-f --format -o --output",
            flags="-p --portability -v --verbose -q --quiet -a --append --help -V --version",
        ),
        writes=word_set("-o --output"),
    ),
    "nohup": _Wrapper(grammar(flags="--help --version")),
    "unbuffer": _Wrapper(grammar(flags="-p", abbreviate=False)),
    "command": _Wrapper(grammar(flags="-p -v -V", abbreviate=False)),
    "builtin": _Wrapper(grammar()),
    # exec replaces the shell with the command, which runs all the same.
    "exec": _Wrapper(grammar(values="-a", flags="-c -l", abbreviate=False)),
    "numactl": _Wrapper(
        grammar(
            values="-i --interleave -w --weighted-interleave -p --preferred -P"
            " --preferred-many -c --cpubind -N --cpunodebind -C --physcpubind -m --membind",
            flags="-a --all -l --localalloc -b --balancing -s --show -H --hardware --help",
        ),
        queries=word_set("-s --show -H --hardware"),
        alone="numactl shows the NUMA policy or hardware",
    ),
    "taskset": _Wrapper(
        grammar(flags="-a --all-tasks -c --cpu-list -p --pid -h --help -V --version"),
        before=1,
        before_shape=_CPU_MASK,
        acts_on=word_set("-p --pid"),
    ),
    "chrt": _Wrapper(
        grammar(
            values="-T --sched-runtime -P --sched-period -D --sched-deadline",
            flags="-b --batch -d --deadline -e --ext -f --fifo -i --idle -o --other -r --rr"
            " -R --reset-on-fork -a --all-tasks -m --max -p --pid -v --verbose -h --help"
            " -V --version",
        ),
        before=1,
        before_shape=_PRIORITY,
        acts_on=word_set("-p --pid"),
        queries=word_set("-m --max"),
    ),
}
# The wrappers' names, for finders of commands in text (they skip them to find the tool).
WRAPPER_NAMES = frozenset(_WRAPPERS)
# Wrappers that are also programs in their own right, named like any tool in text.
LAUNCHERS = frozenset(("env", "numactl", "taskset", "chrt"))
_SPLIT_UNSAFE = re.compile(r"[\\$#`;|&<>(){}]")
_MAX_UNWRAP = 32


@dataclass(frozen=True)
class Unwrapped:
    """A simple command with its wrappers taken off.

    ``words``: the command that runs (empty: nothing runs). ``refusal``: why the command
    cannot be told (the answer is then unknown). ``writes``: files the wrappers write.
    ``line``: a shell line a wrapper runs (watch), to be classified as a line. ``query``:
    why ``wrapper``, which runs nothing, only prints (a read-only answer)."""

    words: list[str]
    refusal: str | None = None
    writes: tuple[str, ...] = ()
    line: str | None = None
    query: str | None = None
    wrapper: str = ""


def _env_split(args: list[str], parsed: Parsed) -> list[str] | str:
    """env's arguments with its first ``-S`` string split in place, or why it cannot be.

    env splits the string into words, puts them where the option was and reads on, so
    options and the command may come from the string and from the words after it."""
    k = next(k for k, (n, _) in enumerate(parsed.options) if n in ("-S", "--split-string"))
    value = parsed.options[k][1] or ""
    if _SPLIT_UNSAFE.search(value):
        return "env -S string uses escapes, expansions or shell syntax that cannot be read"
    try:
        split = shlex.split(value)
    except ValueError:
        return "env -S string cannot be split"
    return [*split, *args[parsed.ends[k] :]]


def _unwrap_one(
    head: str, words: list[str], writes: list[str], as_argv: bool
) -> Unwrapped | list[str]:
    """Take off wrapper ``head`` (words[0]): the words that follow it, or a final answer."""
    spec = _WRAPPERS[head]
    args = ["-i", *words[2:]] if head == "env" and words[1:2] == ["-"] else words[1:]
    parsed = parse(args, spec.grammar, stop=True)
    names = {n for n, _ in parsed.options}
    if head == "env" and names & {"-S", "--split-string"}:
        split = _env_split(args, parsed)
        return Unwrapped([], split) if isinstance(split, str) else ["env", *split]
    if parsed.error is not None:
        return Unwrapped([], f"{head}: option {parsed.error} not recognised")
    if head == "sudo" and names & {"-e", "--edit"}:
        return ["sudoedit", *parsed.rest]
    acting = sorted(names & spec.acts_on)
    if acting:
        return Unwrapped([], f"{head} {acting[0]} acts on running processes")
    writes.extend(v for n, v in parsed.options if n in spec.writes and v is not None)
    rest = list(parsed.rest)
    while head == "env" and rest and _ASSIGNMENT.match(rest[0]):
        rest = rest[1:]
    if not rest:
        if names & spec.queries or spec.alone is not None:
            query = spec.alone or f"{head} only prints"
            return Unwrapped([], writes=tuple(writes), query=query, wrapper=head)
        what = "opens a root shell" if head == "sudo" else "has no command"
        return Unwrapped([], f"{head} {what}")
    shapes = rest[: spec.before]
    shape = spec.before_shape
    if len(rest) <= spec.before or (shape is not None and not all(shape.match(w) for w in shapes)):
        return Unwrapped([], f"{head}: cannot tell which word is the command")
    rest = rest[spec.before :]
    if spec.line and not as_argv and not names & spec.argv:
        return Unwrapped([], writes=tuple(writes), line=" ".join(rest))
    return rest


def unwrap_stage(words: list[str], *, as_argv: bool = False) -> Unwrapped:
    """Strip wrappers and VAR=value prefixes; the real command, or why there is none.

    With ``as_argv`` a wrapper that hands its arguments to a shell (watch) is read as if it
    ran them directly (the word-level view `unwrap` gives)."""
    writes: list[str] = []
    for _ in range(_MAX_UNWRAP):
        if words and _ASSIGNMENT.match(words[0]):
            words = words[1:]
            continue
        head = command_name(words[0]) if words else ""
        if head not in _WRAPPERS:
            return Unwrapped(words, writes=tuple(writes))
        step = _unwrap_one(head, words, writes, as_argv)
        if isinstance(step, Unwrapped):
            return step
        words = step
    return Unwrapped([], "wrappers nested too deeply")


def unwrap(words: list[str]) -> tuple[list[str], str | None]:
    """Strip wrappers and VAR=value prefixes; return the real command, or why there is none.

    The word-level view: a wrapper that runs nothing comes back as its own name (``env``,
    ``numactl -H``), and watch's arguments as the command they name."""
    result = unwrap_stage(words, as_argv=True)
    if result.query is not None:
        return [result.wrapper], None
    return result.words, result.refusal


# Reserved words that open or continue a compound command (a loop, a conditional, a group):
# the simple command after one runs as if it stood alone, so it is judged alone. Without
# this, `for i in ...; do aws ... batch-replace-cluster-nodes ...; done` was judged by its
# unknown keywords, not by the replacement it runs. The words that only close one run
# nothing, and a `for`/`select` header only binds a name (its words' substitutions are
# judged as substitutions). `case` is not followed: its patterns are not commands.
_COMPOUND_OPENERS = word_set("do then else elif if while until ! {")
_COMPOUND_CLOSERS = word_set("done fi }")
_LOOP_HEADERS = word_set("for select")


def _simple_command(stage: list[str]) -> list[str]:
    """The simple command of one stage, its leading reserved words taken off."""
    while stage and stage[0] in _COMPOUND_OPENERS:
        stage = stage[1:]
    if stage and stage[0] in _LOOP_HEADERS:
        return []
    if stage and all(word in _COMPOUND_CLOSERS for word in stage):
        return []
    return stage


def split_stages(tokens: Sequence[str]) -> tuple[list[list[str]], list[str]]:
    """Split tokens on shell operators; collect the files that redirections write.

    A stage inside a compound command (a loop body, an if branch, a { } group) is the
    simple command it runs, its reserved words taken off."""
    stages: list[list[str]] = [[]]
    writes: list[str] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok in _SEPARATORS:
            stages.append([])
        elif tok in _REDIRECTS:
            target = tokens[i + 1] if i + 1 < len(tokens) else ""
            writing = tok.startswith((">", "&")) or tok == "<>"
            if writing and target not in HARMLESS_TARGETS and not target.isdigit():
                writes.append(target or "?")
            i += 1
        elif not (tok.isdigit() and i + 1 < len(tokens) and tokens[i + 1] in _REDIRECTS):
            stages[-1].append(tok)
        i += 1
    simple = (_simple_command(stage) for stage in stages)
    return [stage for stage in simple if stage], writes


def substitutions(text: str) -> list[str]:
    """Bodies of ``$(...)``, ``<(...)``, ``>(...)`` and backticks, wherever they appear.

    Quotes are ignored on purpose: double quotes do not stop substitution, and treating a
    single-quoted one as live only ever makes the answer more cautious.
    """
    bodies = text.split("`")[1::2]
    for match in re.finditer(r"[$<>]\(", text):
        depth, start = 0, match.end()
        for i in range(start, len(text)):
            if text[i] == "(":
                depth += 1
            elif text[i] == ")":
                if depth == 0:
                    bodies.append(text[start:i])
                    break
                depth -= 1
        else:
            bodies.append(text[start:])
    return bodies


# Syntax after which quoting has nested contexts this reader does not follow.
_NESTED_SYNTAX = ("`", "$(", "${", "$'", "$[", "<<", "<(", ">(", "((")
_NESTED_STARTS = frozenset(s[0] for s in _NESTED_SYNTAX)


def scan_quotes(text: str, quote: str | None = None) -> tuple[list[tuple[int, int]], str | None]:
    """Read ``text`` as a shell does, starting with ``quote`` open (or none): its comments
    (a ``#`` at the start of a word, outside quotes, to the end of its line; ``$#`` and
    ``a#b`` start none) and the quote still open at the end.

    Quotes are followed (single, double with backslash escapes, backslashes outside
    quotes). From the first construct with its own quoting context (substitutions,
    ``${...}``, ``$'...'``, heredocs) on no comment is reported: there, a ``#`` might be
    quoted, and keeping text is always the cautious way (it is classified)."""
    regions: list[tuple[int, int]] = []
    nested = False
    i = 0
    while i < len(text):
        char = text[i]
        if not nested and char in _NESTED_STARTS:
            nested = text.startswith(_NESTED_SYNTAX, i)
        if char == "\\" and quote != "'":
            i += 2
            continue
        if quote is not None:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and not nested and (i == 0 or text[i - 1] in " \t\n\r;&|()"):
            ends = [j for j in (text.find("\n", i), text.find("\r", i)) if j >= 0]
            end = min(ends) if ends else len(text)
            regions.append((i, end))
            i = end
            continue
        i += 1
    return regions, quote


def comment_regions(text: str) -> list[tuple[int, int]]:
    """The shell comments of ``text`` (see `scan_quotes`)."""
    return scan_quotes(text)[0] if "#" in text else []


def strip_comments(text: str) -> str:
    """``text`` without its shell comments (see `scan_quotes`)."""
    pieces: list[str] = []
    previous = 0
    for start, end in comment_regions(text):
        pieces.append(text[previous:start])
        previous = end
    pieces.append(text[previous:])
    return "".join(pieces)


# bash's ANSI-C ($'...') and locale ($"...") strings: shlex reads them unlike bash (an
# escaped quote inside $'...' would end shlex's string early and could hide a second
# command), so each is replaced, before tokenising, by the word bash makes of it, quoted
# for shlex: ``$'\\x72eboot'`` is the command word ``reboot``, judged as such.


def _bash_strings_as_words(command: str) -> str | None:
    """``command`` with every $'...' and $"..." outside other quotes replaced by its value
    as one single-quoted word; None when one of them does not end."""
    if "$'" not in command and '$"' not in command:
        return command
    out: list[str] = []
    quote: str | None = None
    i = 0
    while i < len(command):
        char = command[i]
        if quote is None and char == "$" and command[i + 1 : i + 2] in ("'", '"'):
            closer = command[i + 1]
            j = i + 2
            while j < len(command) and command[j] != closer:
                j += 2 if command[j] == "\\" else 1
            if j >= len(command):
                return None
            body = command[i + 2 : j]
            value = ansi_c_text(body) if closer == "'" else shell_word(f'"{body}"')
            out.append(shlex.quote(value))
            i = j + 1
            continue
        if quote is None and char == "\\":
            out.append(command[i : i + 2])
            i += 2
            continue
        if char in "'\"" and (quote is None or quote == char):
            quote = None if quote == char else char
        elif char == "\\" and quote == '"':
            out.append(command[i : i + 2])
            i += 2
            continue
        out.append(char)
        i += 1
    return "".join(out)


# The word an unquoted substitution stands as in its command. Its body is judged on its
# own (`substitutions`); left in place, its parentheses split the command around it into
# stages, and the words after it (a label's value, more node ids) were judged apart from
# the tool they belong to.
SUBSTITUTION_WORD = "_SUBSTITUTION_"


def _substitutions_as_words(command: str) -> str:
    """``command`` with every unquoted $(...), <(...), >(...) and `...` replaced by one
    word; an unbalanced one is left as it is (the lexer's reading of it stays cautious)."""
    out: list[str] = []
    quote: str | None = None
    i = 0
    while i < len(command):
        char = command[i]
        if char == "\\" and quote != "'":
            out.append(command[i : i + 2])
            i += 2
            continue
        if char in "'\"" and (quote is None or quote == char):
            quote = None if quote == char else char
        elif quote is None and command[i : i + 2] in ("$(", "<(", ">("):
            end = _closing_paren(command, i + 2)
            if end is not None:
                out.append(f" {SUBSTITUTION_WORD} " if char != "$" else SUBSTITUTION_WORD)
                i = end + 1
                continue
        elif quote is None and char == "`" and (tick := command.find("`", i + 1)) > i:
            out.append(SUBSTITUTION_WORD)
            i = tick + 1
            continue
        out.append(char)
        i += 1
    return "".join(out)


def _closing_paren(text: str, start: int) -> int | None:
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            if depth == 0:
                return i
            depth -= 1
    return None


def tokenize(command: str) -> list[str] | None:
    """Shell words and operators of ``command``; None when its quotes do not balance.
    An unquoted substitution is one word (`SUBSTITUTION_WORD`)."""
    converted = _bash_strings_as_words(command)
    if converted is None:
        return None
    command = _substitutions_as_words(converted)
    text = _PLACEHOLDER.sub(r"_\1_", command)  # <INSTANCE_ID> is a word, not two redirections
    text = strip_comments(text)
    text = text.replace("\\\n", " ").replace("\r", "\n").replace("\n", " ; ")
    text = text.replace("`", " ; ")
    lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        return list(lexer)
    except ValueError:
        return None
