"""Commands of a segment outside fences: inline code, HTML code elements, and its prose
read through its markup (`_text_commands`), from the segment as it renders
(`agent.safety.rendered`).

* **inline** — a code span whose first word is a known tool (``sudo`` and ``$ `` allowed),
  or whose text holds a prose command or is shaped like a command line
  (`command_candidate`). A span of one bare word (`` `reboot` ``) is a command only after a
  run verb ("run", "execute", 执行...): otherwise it names a thing. Code spans with only
  blanks between them are read as the reader reads them, joined (`_span_commands`), and a
  backtick inside a span reads as the border of two.
* **wrappers** — what renders as emphasis, strikethrough or a link is looked inside: its
  markup is blanked for the prose scan (`agent.safety.prose`), as are HTML tags; ``<code>``,
  ``<pre>``, ``<kbd>``, ``<samp>``, ``<tt>`` elements are read like inline code (tags
  stripped, entities decoded). A table row's cell separators end a command.
* **lines** — a paragraph's lines are read as one, as they render: a soft line break is a
  space (a line ending in ``\\`` continues too, kept in the command as a shell would).
"""

from __future__ import annotations

import bisect
import html
import re
from dataclasses import dataclass

from agent.safety.found import FoundCommand
from agent.safety.markdown import _lines, lines_of
from agent.safety.prose import (
    _LOOK_BACK,
    _MASK,
    _WRAPPED,
    _after_run_verb,
    hidden_command,
    narrative_signal,
    prose_commands,
)
from agent.safety.rendered import CodeSpan, Reading, Rendered
from agent.safety.shell import judge
from agent.safety.vocabulary import (
    _REDIRECTION_LINE,
    _SUBCOMMANDS,
    _first_tool,
    command_candidate,
    is_tool,
)
from tools.command_safety.args import word_set
from tools.command_safety.parsed import parse_line
from tools.command_safety.shell import SUBSTITUTION_WORD
from tools.command_safety.words import command_name, prompt_length

_REPORT_MARK = re.compile(r"\[(?:FAIL|WARN|PASS|INFO)\] ")


def _runs_a_variable(command: str) -> bool:
    """Does a stage of ``command`` run whatever a variable or substitution holds
    (``c=reboot; sudo $c``, ``$(cat cmd.txt)``)? What runs cannot be read: unknown."""
    parsed = parse_line(command)
    if parsed is None:
        return False
    for stage in parsed.stages:
        word = stage.argv[0] if stage.argv else ""
        if word == SUBSTITUTION_WORD:
            return True
        if word.startswith("$"):
            # A variable alone names a value ("`$CLUSTER_NAME` is set"); it runs when shell
            # syntax is around it: a wrapper, an assignment, another stage, flags.
            following = stage.argv[1] if len(stage.argv) > 1 else ""
            around = len(stage.words) > len(stage.argv) or len(parsed.stages) > 1
            return around or following.startswith(("-", "/"))
    return False


def _fragment_that_reads(first: str, command: str) -> bool:
    """Is ``command`` a piece of a known tool's command (its first word a subcommand of
    that tool, not a tool itself) that reads, whichever tool it belongs to? A piece that
    would change something is left to the other rules (a block, failing closed)."""
    if is_tool(first):
        return False
    owners = [tool for tool, subcommands in _SUBCOMMANDS.items() if first in subcommands]
    return bool(owners) and all(judge(f"{tool} {command}").kind == "read_only" for tool in owners)


def _inline_command(text: str, span_start: int, content: str, *, block: bool = False) -> str | None:
    command = content.strip()
    if _REPORT_MARK.match(command):
        # A triage report line quoted as the workflow asks: prose, read for what it holds
        # (cluster text in it may carry a command), never exempt and never a command whole.
        held = [f.command for f in prose_commands(command)]
        changing = [c for c in held if judge(c).kind != "read_only"]
        return next(iter(changing or held), None)
    prompt = prompt_length(command, root=False)  # $ , user@host:~$ , PS C:\> ...
    if prompt:
        command = command[prompt:].strip()
    elif command.startswith("#"):
        rest = command.lstrip("#").strip()
        if not is_tool(_first_tool(rest)):  # a comment: only what is written in it counts
            found = prose_commands(rest)
            return found[0].command if found else None
        if len(rest.split()) == 1:
            return rest  # `# reboot` is a root prompt, like a "# reboot" line in a fence
        command = rest
    if not command:
        return None
    words = command.split()
    if len(words) == 1:
        name = command_name(command)
        if name != command and is_tool(name) and judge(name).kind == "mutating":
            return command  # `\reboot`, `$'\x72eboot'`: only a shell spells a name so
        run = _after_run_verb(text[max(0, span_start - _LOOK_BACK) : span_start])
        return command if is_tool(name) and run else None
    if _fragment_that_reads(words[0], command):
        return None  # `rollout status`: a piece of a kubectl command being explained
    known = is_tool(_first_tool(command)) or is_tool(words[0])
    shaped = _REDIRECTION_LINE.match(command) is not None or _runs_a_variable(command)
    if known or shaped or prose_commands(command) or command_candidate(command, block=block):
        if narrative_signal(text, span_start, command):
            return None  # "the OOM killer sent `kill -9`": reported, not advised
        hidden = hidden_command(command)
        return command if hidden is None else command[hidden[0] : hidden[1]]
    return None


# An HTML tag; `_CODE_ELEMENTS` show their content as code, the others are markup. Markdown
# leaves raw HTML to the renderer (markdown-it-py marks where it is, not what is in it), so
# the elements are paired here.
_HTML_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]{0,20})(?:[ \t\n][^<>]{0,300})?/?>")
_CODE_ELEMENTS = word_set("code pre kbd samp tt")
_BLOCK_ELEMENTS = word_set("pre")
_TABLE_ROW = re.compile(r"[ \t]*(?:>[ \t]*)*\|")
_BACKTICKS = re.compile(r"`+")


@dataclass(frozen=True)
class _Element:
    """An HTML code element: [start, end) with its tags, its content bounds, pre or not."""

    start: int
    end: int
    content_start: int
    content_end: int
    block: bool


def _html_elements(text: str) -> tuple[list[_Element], list[tuple[int, int]]]:
    """The code-like HTML elements of ``text`` (``<code>…</code>``...), and the other tags.

    Each opening tag takes the next closing tag of its name, found by bisection."""
    tags = list(_HTML_TAG.finditer(text))
    closings: dict[str, list[int]] = {}
    for index, tag in enumerate(tags):
        if tag.group(1):
            closings.setdefault(tag.group(2).lower(), []).append(index)
    elements: list[_Element] = []
    others: list[tuple[int, int]] = []
    index = 0
    while index < len(tags):
        tag = tags[index]
        name = tag.group(2).lower()
        if not tag.group(1) and name in _CODE_ELEMENTS:
            ends = closings.get(name, [])
            position = bisect.bisect_right(ends, index)
            if position < len(ends):
                close = tags[ends[position]]
                block = name in _BLOCK_ELEMENTS
                elements.append(_Element(tag.start(), close.end(), tag.end(), close.start(), block))
                index = ends[position] + 1
                continue
        others.append((tag.start(), tag.end()))
        index += 1
    return elements, others


def _element_text(text: str, element: _Element) -> str:
    """The content of an HTML element as shown: inner tags dropped, entities decoded."""
    return html.unescape(_HTML_TAG.sub("", text[element.content_start : element.content_end]))


def _prose_view(text: str, masked: list[str], reading: Reading) -> tuple[str, str]:
    """(what the prose scan reads, what commands are taken from) for a paragraph.

    The scan reads ``masked`` (code masked) with the markup blanked: HTML tags, and what
    the parser rendered as style or link syntax; the lines of a paragraph joined as they
    render (a soft break, a ``\\`` hard break); a table row's cell separators end
    commands. The source is ``text`` with the markup marked `_WRAPPED` and a soft break
    read as a space. Both keep every offset."""
    view = masked
    source = list(text)
    plain = "".join(masked)

    def blank(start: int, end: int) -> None:
        for i in range(start, end):
            if view[i] != "\n":
                view[i], source[i] = " ", _WRAPPED

    for start, end in _html_elements(plain)[1]:
        blank(start, end)
    for start, end in reading.markup:
        blank(start, end)
    for start, end, backslash in reading.joins:
        for i in range(start, end):
            view[i] = " "
            if not backslash:  # "a\n> b" reads "a b"; a "\\" stays, as a shell continuation
                source[i] = " " if i == start else _WRAPPED
    offset = 0
    for line in lines_of(plain):
        row = _TABLE_ROW.match(line)
        if row is not None:
            for i in range(row.end() - 1, len(line)):
                if line[i] == "|" and (i == 0 or line[i - 1] != "\\"):
                    view[offset + i] = _MASK
        offset += len(line)
    return "".join(view), "".join(source)


def _span_command(text: str, start: int, content: str) -> str | None:
    """The command of code as rendered. A backtick inside a span (```kubectl``delete```)
    reads as the border of two spans: that reading counts when it changes something the
    literal one does not."""
    command = _inline_command(text, start, content)
    if "`" not in content:
        return command
    split = _inline_command(text, start, _BACKTICKS.sub(" ", content))
    if split is None or judge(split).kind == "read_only":
        return command
    return split if command is None or judge(command).kind == "read_only" else command


def _code_runs(spans: list[CodeSpan], joined: list[str]) -> list[list[CodeSpan]]:
    """Code spans grouped as a reader reads them: spans with nothing but blanks (a line
    break, a quote marker) between them form one run."""
    runs: list[list[CodeSpan]] = []
    for span in spans:
        if runs and not "".join(joined[runs[-1][-1].end : span.start]).strip():
            runs[-1].append(span)
        else:
            runs.append([span])
    return runs


def _span_commands(text: str, base: int, run: list[CodeSpan]) -> list[FoundCommand]:
    """The commands of a run of adjacent code spans.

    The run is read whole (```aws sagemaker` `delete-cluster …``` is one command); when that
    reading is a read-only command, a span that is a state-changing command by itself is
    reported too, and when the whole is no command, each span is read on its own."""
    if len(run) == 1:
        command = _span_command(text, run[0].start, run[0].content)
        return [] if command is None else [_inline(command, base, run[0].start, run[0].end)]
    whole = _span_command(text, run[0].start, " ".join(span.content for span in run))
    found = [] if whole is None else [_inline(whole, base, run[0].start, run[-1].end)]
    if whole is not None and judge(whole).kind != "read_only":
        return found
    for span in run:
        own = _span_command(text, span.start, span.content)
        if own is not None and (whole is None or judge(own).kind == "mutating"):
            found.append(_inline(own, base, span.start, span.end))
    return found


def _inline(command: str, base: int, start: int, end: int) -> FoundCommand:
    return FoundCommand(command, base + start, base + end, "inline")


def _text_commands(text: str, base: int, reading: Reading) -> list[FoundCommand]:
    """Inline and prose commands of a segment outside fences; its code blocks (read as
    fences, see `agent.safety.extract`) are left out."""
    found: list[FoundCommand] = []
    masked = list(text)

    def mask(start: int, end: int, by: str = _MASK) -> None:
        for i in range(start, end):
            if masked[i] != "\n":
                masked[i] = by

    for block in reading.blocks:
        mask(block.start, block.end, " ")
    joined = list(masked)
    for start, end, _ in reading.joins:
        for i in range(start, end):
            joined[i] = " "
    spans = list(reading.spans)
    for span in spans:
        mask(span.start, span.end)
    # An HTML tag inside a code span is code: elements are looked for outside spans. An
    # inline element reads like a code span, joined with the spans and elements beside it
    # (`<code>aws sagemaker</code> <code>delete-cluster</code>`); a <pre> element's lines
    # are each a command line, as a fence's are.
    for element in _html_elements("".join(masked))[0]:
        content = _element_text(text, element)
        if not element.block:
            spans.append(CodeSpan(element.start, element.end, content.replace("\n", " ")))
            continue
        for line in content.split("\n"):
            command = _inline_command(text, element.start, line, block=True)
            if command is not None:
                found.append(_inline(command, base, element.start, element.end))
        mask(element.start, element.end)
    for run in _code_runs(sorted(spans, key=lambda span: span.start), joined):
        found.extend(_span_commands(text, base, run))
        for span in run:
            mask(span.start, span.end)
    view, source = _prose_view(text, masked, reading)
    for offset, line in _lines(view):
        written = source[offset : offset + len(line)]
        found.extend(prose_commands(line, base + offset, source=written))
    found.extend(_second_look(reading.rendered, base, found))
    return sorted(found, key=lambda f: f.start)


def _second_look(
    paragraphs: list[Rendered], base: int, found: list[FoundCommand]
) -> list[FoundCommand]:
    """State-changing commands that the paragraphs show as rendered and the reading of the
    source did not find: a character reference or escape spelling a letter
    (``sudo &#x72;eboot``), HTML code elements side by side (read as adjacent code spans),
    whatever else renders differently from how it is written. Each is given its whole
    paragraph as its span (its note goes at the paragraph's end): no offset inside it is
    known."""
    # What the source reading found, as written and as rendered: a rendered command among
    # them, or the start of a block's command (a line continued with "\\" renders as two
    # lines), is already dealt with. Prefixes are taken up to a bound: linear in the text.
    seen = {_words(f.command) for f in found}
    for f in found:
        if judge(f.command).kind == "read_only":
            continue
        for form in {_words(f.command), _words(_as_rendered(f.command))}:
            seen.add(form)
            words = form.split(" ")
            seen.update(" ".join(words[:count]) for count in range(1, min(len(words), _PREFIXES)))
    more: list[FoundCommand] = []
    for paragraph in paragraphs:
        shown = paragraph.text
        spans = [CodeSpan(start, end, shown[start:end]) for start, end in paragraph.code]
        runs = _code_runs(spans, list(shown))
        commands = [f.command for run in runs for f in _span_commands(shown, 0, run)]
        masked = list(shown)
        for start, end in paragraph.code:
            for i in range(start, end):
                if masked[i] != "\n":
                    masked[i] = _MASK
        prose = "".join(masked)
        commands.extend(f.command for _, line in _lines(prose) for f in prose_commands(line))
        for command in commands:
            key = _words(command)
            if not _found_already(key, seen) and judge(command).kind != "read_only":
                seen.add(key)
                start, end = base + paragraph.start, base + paragraph.end
                more.append(FoundCommand(command, start, end, "prose"))
    return more


_PREFIXES = 32  # words of a found command whose starts count as found


def _found_already(key: str, seen: set[str]) -> bool:
    """``key`` is among ``seen``, or is one of them with only punctuation after it (a table
    row's closing "|" read as prose, a sentence's full stop): no other command word."""
    stem = key
    while stem and not stem[-1].isalnum():
        stem = stem[:-1]
    return any(key[:end].rstrip() in seen for end in range(len(stem), len(key) + 1))


# A backslash escape of Markdown (any ASCII punctuation), resolved as it renders.
_MARKDOWN_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")


def _as_rendered(command: str) -> str:
    """A command as written in prose, as it renders: escapes and references resolved."""
    return html.unescape(_MARKDOWN_ESCAPE.sub(r"\1", command))


def _words(command: str) -> str:
    return " ".join(command.replace("\\\n", " ").split())
