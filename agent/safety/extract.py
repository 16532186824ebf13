"""Find the shell commands in the model's Markdown text, with where they are.

Three places hold commands:

* **fence** — a fenced code block. In a shell fence (``bash``, ``sh``, ``console``...) every
  line is a command: trailing ``\\`` joins lines, a heredoc keeps its body, ``$ `` prompts are
  stripped. Two refinements keep quoted output from becoming commands: when some lines
  carry a ``$ `` prompt, only those (and lines that start with a known tool) are commands,
  the rest is output; a fence *without* a language holds commands only if one of its lines
  looks like one (a known tool first, a path, or ``word --flag``), else it is quoted output
  such as triage lines. Comment lines, output lines and fences in other languages (json,
  yaml, text, python...) are not dropped: they are read like prose below, so ``# sudo reboot``
  or a ``kubectl delete`` inside a log excerpt is still found.
* **inline** — a code span whose first word is a known tool (``sudo`` and ``$ `` allowed),
  or whose text holds a prose command. A span of one bare word (`` `reboot` ``) is a
  command only after a run verb ("run", "execute", 执行...): otherwise it names a thing.
* **prose** — a command written without backticks. A known tool word counts only when it
  is written in lower case as a word of its own and is followed by something that looks
  like arguments: a flag (``-x``, ``--name``), a path, a resource id (i-…, sg-…, hyperpod-i-…,
  ip-10-…), ``NAME=value``, a quoted string, a file name with an extension, a shell
  operator, a known subcommand of that tool (``aws sagemaker``, ``kubectl cordon``,
  ``systemctl restart``, ``sudo <tool>``...), a number for ``kill``/``scancel``, or any word
  for a few tools that are no English word (``scancel``, ``pkill``, ``srun``...). A run verb
  just before it, or ``$(``/``&&``/``||``, also makes it a command. An id does not count
  after a tool name that is also an English word ("reboot i-0abc first", "the hostname
  ip-10-1-2-3"). So "reboot the node" and "the iptables rules" are prose; "sudo reboot",
  "reboot -f" and "run reboot" are commands.
  The command runs to the end of the line or of the sentence: a period, ``?`` or ``!``
  followed by a space or the end of the line (not one inside an id or a file name), ``, ``,
  ``: ``, `` (``, a dash, a backtick, ``**``, any CJK character, or an English connective
  ("and", "then", "to", "on", "now"...) outside quotes. A command opened by a quote ends
  at the matching quote; a quote left open ends the command before it. Cutting at a
  connective never hides anything: scanning resumes right after, so a second command in the
  same sentence is found on its own. A read-only prose or inline command that runs on into
  a mutating one without any separator ("kubectl get nodes sudo reboot") also yields the
  mutating part (`hidden_command`).

Every pattern is a flat character class or a literal; scanning is linear in the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Literal

from agent.safety.markdown import Segment, code_spans, fence_closes, lines_of, segments
from tools.commands import CommandClass, classify
from tools.commands.args import word_set
from tools.commands.classifier import known_tools

Where = Literal["fence", "inline", "prose"]


@dataclass(frozen=True)
class FoundCommand:
    """A command and the span [start, end) of the text that presents it.

    The span is the command's own words for prose (with its quotes when it is quoted), the
    whole code span with its backticks for inline, and the command's lines (from its first
    character, after any prompt) for a fence."""

    command: str
    start: int
    end: int
    where: Where


# Resource ids a command acts on; also evidence that a tool word is followed by arguments.
ID_PATTERN = re.compile(
    r"(?<![\w-])(?:hyperpod-i-[0-9a-f]{4,17}|i-[0-9a-f]{4,17}"
    r"|(?:sg|subnet|vpc|rtb|eni|vpce|igw|nat|acl)-[0-9a-f]{4,17}"
    r"|ip-\d{1,3}-\d{1,3}-\d{1,3}-\d{1,3})(?![\w-])"
)

# Wrappers run the rest of the line; the classifier strips them before the tool lookup.
_WRAPPERS = word_set("sudo nohup timeout xargs nice ionice stdbuf unbuffer watch time command")
_SHELL_LANGUAGES = word_set(
    "bash sh shell zsh ksh console shell-session shellsession sh-session terminal"
)
_SUBCOMMANDS: dict[str, frozenset[str]] = {
    tool: word_set(words)
    for tool, words in {
        "aws": "sagemaker ec2 eks iam ssm s3 s3api sts logs cloudwatch cloudtrail fsx elbv2"
        " elb route53 autoscaling cloudformation service-quotas servicequotas ecr kms"
        " secretsmanager configure help",
        "kubectl": "get describe logs top delete cordon uncordon drain label annotate taint"
        " apply patch edit create scale set rollout exec run debug cp attach auth config"
        " explain version events wait replace expose autoscale port-forward proxy"
        " api-resources cluster-info certificate",
        "scontrol": "show update reboot reboot_nodes requeue requeuehold suspend resume hold"
        " release shutdown takeover ping version listpids create delete",
        "systemctl": "status start stop restart reload enable disable mask unmask kill"
        " is-active is-enabled is-failed show cat list-units daemon-reload reset-failed"
        " reboot poweroff halt isolate try-restart reload-or-restart edit set-property",
        "crictl": "ps logs inspect inspecti inspectp images pods stats info stop rm rmi rmp"
        " stopp exec pull",
        "docker": "ps logs inspect images info stats top stop kill restart rm rmi exec run"
        " system pull volume network",
        "dcgmi": "diag health discovery dmon nvlink topo group stats policy config",
        "chronyc": "tracking sources sourcestats makestep burst online offline",
        "timedatectl": "status show set-ntp set-time set-timezone timesync-status",
        "service": "slurmd slurmctld slurmdbd munge docker containerd kubelet chronyd chrony"
        " sshd amazon-ssm-agent nvidia-fabricmanager nvidia-persistenced dcgm nvidia-dcgm",
        "ip": "addr address link route rule neigh a l r",
        "pip": "install uninstall list show freeze check",
        "pip3": "install uninstall list show freeze check",
        "apt": "install remove purge update upgrade autoremove",
        "apt-get": "install remove purge update upgrade autoremove",
        "yum": "install remove update upgrade erase",
        "dnf": "install remove update upgrade erase",
        "hyperpod-debug": "triage explain checks",
    }.items()
}
_NUMBER_TOOLS = word_set("kill scancel")
# Tools whose name is no English word: any following word (not a connective) is an argument.
_FREE_ARGUMENT_TOOLS = word_set(
    "scancel pkill killall modprobe rmmod insmod sbatch srun salloc dos2unix unix2dos wipefs shred"
)
# Tool names that are also English words: an id after them reads as prose ("the hostname
# ip-10-1-2-3", "reboot i-0abc first"), so only flags, paths and the like count.
_ENGLISH_TOOLS = word_set("""
    cat file type last w who host test true false date history kill install source more less
    head tail sort cut diff top free ping id groups echo env mount export halt shutdown reboot
    poweroff touch service watch time command nice timeout hostname strings column stat
    sensors which apt snap yum vim nano curl tee docker pip bash sh su ip dig
    """)
_RUN_VERBS = word_set("run execute")
_RUN_VERBS_ZH = ("执行", "运行", "输入", "命令")
# Words that end a command written in prose (outside quotes).
_CONNECTIVES = word_set("""
    and then or but before after once if when while until so because which that to on in
    for with of the an is are was will would should can could may might must it this these
    those you your we our they them now first again instead afterwards later only also as
    via by not at into without within here there please yourself manually immediately
    """)
_OPERATORS = word_set("| || && ; > >> 2> 2>&1 &> <")
_SHELL_CONTEXT = ("$(", "&&", "||")
_FILE_NAME = re.compile(
    r"[\w.-]+\.(?:sh|py|yaml|yml|json|txt|conf|cfg|log|sbatch|service|ini|toml|tar|gz)"
)
_FLAG = re.compile(r"--?[A-Za-z0-9]")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*=\S")
_PATH_PREFIXES = ("/", "./", "../", "~/", "s3://", "file://", "$HOME/")
_COMMAND_LIKE = re.compile(r"[a-z][\w.-]*[ \t]+--?[A-Za-z]")
_TOOL_WORD = re.compile(r"(?<![A-Za-z0-9_./\-=:@$%+~\\])[a-z][a-z0-9_+-]*(?:\.[a-z0-9]+)?")
_HEREDOC = re.compile(r"(?<!<)<<(?!<)-?[ \t]*['\"]?([A-Za-z_][A-Za-z0-9_]*)")  # not <<<
_QUOTES = {'"': '"', "'": "'", "“": "”", "‘": "’", "«": "»", "「": "」"}
_WORD_END = frozenset(" \t\n;|&)\"'`.,:!?\x00")
_SENTENCE_END = frozenset(".?!")
_TRAILING = ",;:*_."  # a period ending a prose command is the sentence's
_NESTED_LIMIT = 32
_LOOK_BACK = 40  # characters before a tool word that can hold "$(", "&&" or a run verb
# A word ends where a prose command would: at a blank, a backtick, a dash, masked inline
# code or a CJK character ("then。" is "then"), so a word is read the same in every pass.
_NEXT_TOKEN = re.compile(r"[ \t]*([^\s`—–\x00\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]*)")
_MASK = "\x00"  # stands in for inline code while prose is scanned: ends a prose command


@lru_cache(maxsize=4096)
def judge(command: str) -> CommandClass:
    """The classifier's verdict, remembered: the same command often recurs in one answer."""
    return classify(command)


@cache
def _tools() -> frozenset[str]:
    return known_tools() | _WRAPPERS


def is_tool(word: str) -> bool:
    """A word the classifier judges by name, or a wrapper such as sudo."""
    return word in _tools() or word.startswith("mkfs.")


def _is_cjk(char: str) -> bool:
    return (
        "\u2e80" <= char <= "\u9fff" or "\uf900" <= char <= "\ufaff" or "\uff00" <= char <= "\uffef"
    )


_CLOSERS = ",.;:!?)]}>*`'\"”’»」"  # punctuation and markup that may end a word in prose


def _bare(token: str) -> str:
    return token.rstrip(_CLOSERS).lower()


def _is_argument(tool: str, token: str) -> bool:
    """Does ``token``, right after ``tool``, look like an argument rather than prose?"""
    bare = token.rstrip(_CLOSERS)
    if _FLAG.match(token) or token.startswith(_PATH_PREFIXES) or token[:1] in "'\"":
        return True
    if ID_PATTERN.fullmatch(bare) and tool not in _ENGLISH_TOOLS:
        return True  # "reboot i-0abc first" is a sentence; no shell reboot takes an id
    if _ASSIGNMENT.match(token) or _FILE_NAME.fullmatch(bare):
        return True
    if token in _OPERATORS or bare in _SUBCOMMANDS.get(tool, ()):
        return True
    if tool in _WRAPPERS and is_tool(bare):
        return True
    if tool in _NUMBER_TOOLS and bare.isdigit():
        return True
    return tool in _FREE_ARGUMENT_TOOLS and bare[:1].isalnum() and _bare(token) not in _CONNECTIVES


def _after_run_verb(before: str) -> bool:
    """Is ``before`` (the text up to a tool word) ending in "run", "execute", 执行...?"""
    head = before[-_LOOK_BACK:].rstrip(" \t:：*_'\"“‘«「")
    if head.endswith(_RUN_VERBS_ZH):
        return True
    words = head.split()
    return bool(words) and words[-1].lower().strip("*_") in _RUN_VERBS


def _next_token(line: str, position: int) -> str:
    """The word after the blanks at ``position`` (read in place: no slice of the rest)."""
    match = _NEXT_TOKEN.match(line, position)
    return match.group(1) if match is not None else ""


def _qualifies(line: str, start: int, end: int, word: str) -> bool:
    before = line[max(0, start - _LOOK_BACK) : start]
    if before.rstrip().endswith(_SHELL_CONTEXT) or _after_run_verb(before):
        return True
    if end >= len(line) or line[end] not in " \t":
        return False
    token = _next_token(line, end)
    return bool(token) and _is_argument(word, token)


def _scan_end(line: str, start: int) -> int:
    """Where a prose command starting at ``start`` ends (see the module docstring).

    A quote still open at the end of the line was prose (an apostrophe, a quotation), not
    shell: the command ends before it."""
    quote: str | None = None
    opened = start
    for i in range(start, len(line)):
        char = line[i]
        if quote is not None:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote, opened = char, i
        elif _ends_at(line, start, i):
            return i
    return opened if quote is not None else len(line)


def _ends_at(line: str, start: int, i: int) -> bool:
    """Does the command end at ``line[i]`` (outside quotes)?"""
    char = line[i]
    following = line[i + 1] if i + 1 < len(line) else "\n"
    if char in "`—–" or char == _MASK or _is_cjk(char):
        return True
    if char in _SENTENCE_END:
        return following.isspace()
    if char in ",:":
        return following == " "
    if char == "*":
        return following == "*"
    return char in " \t" and _stops_here(line, start, i)


def _stops_here(line: str, start: int, space: int) -> bool:
    """At a space outside quotes: does the next word end the command?"""
    token = _next_token(line, space)
    if token.startswith("("):
        return True
    if _bare(token) not in _CONNECTIVES:
        return False
    # `shutdown -r now` is a command, not a sentence going on.
    return not (_bare(token) == "now" and "shutdown" in line[start:space])


def _clean_end(line: str, start: int, end: int) -> int:
    """Drop trailing punctuation, and a closing parenthesis the command did not open."""
    while end > start:
        char = line[end - 1]
        unopened = char == ")" and line.count("(", start, end) < line.count(")", start, end)
        if not (char.isspace() or char in _TRAILING or unopened):
            break
        end -= 1
    return end


def _quoted_end(line: str, start: int) -> int | None:
    """A command opened by a quote ends at the matching quote, when the line has one."""
    if start == 0 or line[start - 1] not in _QUOTES:
        return None
    closing = line.find(_QUOTES[line[start - 1]], start)
    if closing <= start or _MASK in line[start:closing]:
        return None  # no closing quote, or one beyond inline code
    return closing


def prose_commands(line: str, base: int = 0, where: Where = "prose") -> list[FoundCommand]:
    """Commands written in one line of prose; offsets are shifted by ``base``."""
    found: list[FoundCommand] = []
    position = 0
    while True:
        match = _TOOL_WORD.search(line, position)
        if match is None:
            return found
        start, word = match.start(), match.group()
        next_char = line[match.end()] if match.end() < len(line) else " "
        if not (is_tool(word) and (next_char in _WORD_END or _is_cjk(next_char))):
            position = match.end()
            continue
        if not _qualifies(line, start, match.end(), word):
            position = match.end()
            continue
        closing = _quoted_end(line, start)
        if closing is not None:  # a quoted command: its span takes the quotes, like `code`
            end = _clean_end(line, start, closing)
            found.append(FoundCommand(line[start:end], base + start - 1, base + closing + 1, where))
            position = closing + 1
            continue
        end = _clean_end(line, start, _scan_end(line, start))
        found.append(FoundCommand(line[start:end], base + start, base + end, where))
        hidden = hidden_command(line[start:end])
        if hidden is not None:
            inner_start, inner_end = base + start + hidden[0], base + start + hidden[1]
            found.append(FoundCommand(line[start:end][hidden[0] :], inner_start, inner_end, where))
        position = max(end, match.end())


def hidden_command(command: str) -> tuple[int, int] | None:
    """A mutating command run on inside a read-only one read from text: its span, or None.

    "kubectl get nodes sudo reboot" is one read-only shell command, but a reader sees
    ``sudo reboot`` in it. A later tool word that qualifies as in prose and starts a
    mutating command of its own is reported. Tools that are English words are skipped (so
    "grep -i reboot /var/log/syslog" stays one command), as are quoted words; at most
    `_NESTED_LIMIT` candidates are classified, which keeps long lines linear."""
    if judge(command).kind != "read_only":
        return None
    first = _TOOL_WORD.search(command)
    position = first.end() if first is not None else len(command)
    tried = 0
    quote: str | None = None  # the quote open at `read`, tracked as the search moves on
    read = 0
    while tried < _NESTED_LIMIT:
        match = _TOOL_WORD.search(command, position)
        if match is None:
            return None
        position, word = match.end(), match.group()
        for char in command[read : match.start()]:
            if quote is None and char in "'\"":
                quote = char
            elif char == quote:
                quote = None
        read = match.start()
        if word in _ENGLISH_TOOLS or not is_tool(word) or quote is not None:
            continue
        if not _qualifies(command, match.start(), match.end(), word):
            continue
        tried += 1
        if judge(command[match.start() :]).kind == "mutating":
            return match.start(), len(command)
    return None


def _lines(text: str) -> Iterator[tuple[int, str]]:
    """(offset, line without its newline) for every line of ``text``."""
    offset = 0
    for line in lines_of(text):
        yield offset, line.rstrip("\r\n")
        offset += len(line)


def _first_tool(text: str) -> str:
    """The first word after wrappers, ``VAR=value`` and their flags."""
    for word in text.split():
        if word in _WRAPPERS or word.startswith("-") or _ASSIGNMENT.match(word):
            continue
        return word
    return ""


def _looks_like_command(text: str) -> bool:
    tool = _first_tool(text)
    return is_tool(tool) or tool.startswith(("/", "./", "~/")) or bool(_COMMAND_LIKE.match(text))


def _inline_command(text: str, span_start: int, content: str) -> str | None:
    command = content.strip()
    if command.startswith("$ "):
        command = command[2:].strip()
    if not command:
        return None
    words = command.split()
    if len(words) == 1:
        run = _after_run_verb(text[max(0, span_start - _LOOK_BACK) : span_start])
        return command if is_tool(command) and run else None
    if is_tool(_first_tool(command)) or is_tool(words[0]) or prose_commands(command):
        hidden = hidden_command(command)
        return command if hidden is None else command[hidden[0] : hidden[1]]
    return None


def _text_commands(text: str, base: int) -> list[FoundCommand]:
    """Inline and prose commands of a paragraph (a segment outside any fence)."""
    found: list[FoundCommand] = []
    masked = list(text)
    for span in code_spans(text):
        content = text[span.content_start : span.content_end]
        command = _inline_command(text, span.start, content)
        if command is not None:
            found.append(FoundCommand(command, base + span.start, base + span.end, "inline"))
        for i in range(span.start, span.end):
            if masked[i] != "\n":
                masked[i] = _MASK
    for offset, line in _lines("".join(masked)):
        found.extend(prose_commands(line, base + offset))
    return sorted(found, key=lambda f: f.start)


@dataclass(frozen=True)
class _FenceLine:
    offset: int  # of the line in the segment
    text: str  # without its newline


def _fence_body(segment: Segment) -> list[_FenceLine]:
    lines = [_FenceLine(offset, text) for offset, text in _lines(segment.text)][1:]
    mark = segment.mark
    if lines and mark is not None and fence_closes(lines[-1].text + "\n", mark):
        lines.pop()
    return lines


def _logical_command(lines: list[_FenceLine], index: int, skip: int) -> tuple[str, int, int]:
    """The command starting ``skip`` characters into line ``index``, joined on ``\\`` and
    with its heredoc body: (command, index of its last line, end offset)."""
    first = lines[index]
    parts = [first.text[skip:].strip()]
    last = index
    while parts[-1].endswith("\\") and last + 1 < len(lines):
        parts[-1] = parts[-1][:-1].rstrip()
        last += 1
        parts.append(lines[last].text.strip())
    if parts[-1].endswith("\\"):  # a continuation with nothing left to continue
        parts[-1] = parts[-1][:-1].rstrip()
    command = " ".join(p for p in parts if p)
    heredoc = _HEREDOC.search(command)
    if heredoc is not None:
        body: list[str] = []
        while last + 1 < len(lines):
            last += 1
            body.append(lines[last].text)
            if lines[last].text.strip() == heredoc.group(1):
                break
        command = "\n".join([command, *body])
    end = lines[last].offset + len(lines[last].text)
    return command, last, end


def _fence_commands(segment: Segment) -> list[FoundCommand]:
    body = _fence_body(segment)
    language = segment.mark.language if segment.mark is not None else ""
    shell = language in _SHELL_LANGUAGES or language == ""
    prompted = any(line.text.lstrip().startswith("$ ") for line in body)
    all_commands = shell and not prompted
    if language == "" and all_commands:
        all_commands = any(
            _looks_like_command(line.text.strip())
            for line in body
            if not line.text.lstrip().startswith("#")
        )
    found: list[FoundCommand] = []
    index = 0
    while index < len(body):
        line = body[index]
        stripped = line.text.strip()
        indent = len(line.text) - len(line.text.lstrip())
        base = segment.start + line.offset
        if not stripped:
            index += 1
            continue
        if shell and stripped.startswith("$ "):
            skip = indent + 2 + (len(stripped[2:]) - len(stripped[2:].lstrip()))
        elif (
            shell
            and not stripped.startswith("#")
            and (all_commands or (prompted and _looks_like_command(stripped)))
        ):
            skip = indent
        else:
            found.extend(_scanned_line(line.text, base))
            index += 1
            continue
        command, last, end = _logical_command(body, index, skip)
        if command:
            found.append(FoundCommand(command, base + skip, segment.start + end, "fence"))
        index = last + 1
    return found


def _scanned_line(text: str, base: int) -> list[FoundCommand]:
    """Commands inside a comment, output or data line of a fence, read as prose.

    A comment that is one bare tool word (``# reboot``) is a root prompt, not a remark."""
    stripped = text.strip()
    if stripped.startswith("#"):
        rest = stripped.lstrip("#").strip()
        if is_tool(rest):
            start = text.index(rest, text.index("#"))
            return [FoundCommand(rest, base + start, base + start + len(rest), "fence")]
    return prose_commands(text, base, "fence")


def segment_commands(segment: Segment) -> list[FoundCommand]:
    """The commands of one segment, with offsets in the whole text."""
    if segment.kind == "fence":
        return _fence_commands(segment)
    return _text_commands(segment.text, segment.start)


def find_commands(text: str) -> list[FoundCommand]:
    """Every command in ``text``, in order: fenced, inline and prose."""
    return [found for segment in segments(text) for found in segment_commands(segment)]
