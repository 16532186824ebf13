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

Also:

* **commands of tools the classifier does not know** — in inline code and in shell or
  unlabelled fences (a bare line of a ``$ `` session too), a line whose first word is
  shaped like a command name (lower case, no trailing ``:``) and that has an argument is a
  command: the classifier answers "unknown", which counts as mutating. Lines that look like
  output or prose stay out: triage ``[FAIL]`` lines, JSON, YAML ``key: value``, logs
  (timestamps, capitalised words), aligned columns, rows of numbers, ids, ``ls -l`` modes,
  an English or programming keyword first (`command_candidate`).
* **wrappers** — emphasis (``**``, ``_``, ``~~``), links (``[text](url)``) and HTML tags
  are looked inside: their markup is blanked for the prose scan, and ``<code>``, ``<pre>``,
  ``<kbd>``, ``<samp>``, ``<tt>`` elements are read like inline code (tags stripped,
  entities decoded). A table row's cell separators end a command; a prose line ending in
  ``\\`` continues on the next; ``VAR=value`` words before a tool belong to its command; a
  tool may follow a colon directly (``Step 1:sudo reboot``); an ``echo 1 > /sys/...``
  (a redirection into a path) is a command; ``scontrol`` takes any subcommand.
* **shell syntax** — a ``#`` at the start of a word begins a comment (`judge` classifies
  without comments); a quote left open joins the following lines of a fence until it
  closes; a fence of Markdown source (``markdown``, ``md``) is read as Markdown.

Every pattern is a flat character class or a literal; scanning is linear in the text.
"""

from __future__ import annotations

import bisect
import html
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Literal

from agent.safety.markdown import (
    CodeSpan,
    Segment,
    code_spans,
    fence_closes,
    lines_of,
    segments,
)
from tools.commands import CommandClass, classify
from tools.commands.args import word_set
from tools.commands.classifier import known_tools
from tools.commands.result import combine

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
    " scontrol"
)
# Words that name the tool in a sentence rather than give it an argument ("the scontrol
# command", "scancel output").
_PROSE_NOUNS = word_set(
    "command commands tool tools output utility cli binary manual man page docs documentation"
    " syntax usage itself daemon verb verbs subcommand subcommands option options"
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
# A tool word may follow a colon directly ("Step 1:sudo reboot"): an id or URL ("arn:aws:")
# puts no blank after the word, and a prose command needs one (see `_qualifies`).
_TOOL_WORD = re.compile(r"(?<![A-Za-z0-9_./\-=@$%+~\\])[a-z][a-z0-9_+-]*(?:\.[a-z0-9]+)?")
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
_WRAPPED = "\x01"  # marks Markdown or HTML markup around (or in) a prose command
_SHELL_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=[^\s`'\"\x00]*")
_REDIRECTS = word_set("> >> 1> 1>> 2> 2>> &> &>>")
_REDIRECT_LOOK_AHEAD = 160
# The shape of a command name, for tools the classifier does not know.
_COMMAND_NAME = re.compile(r"[a-z][a-z0-9._+-]{0,40}")
# First words that start a sentence, a log line or a program, not a command.
_NOT_COMMAND_WORDS = word_set("""
    a an the this that these those it its is are was were be been there here we you they no
    i he she my your our their note see also only please error warning warn info debug
    notice fatal critical trace total import from def class return raise yield lambda pass
    assert const let var function public private package func
    """)
# Words of a sentence: in a span with no argument-looking word they make it prose.
_PROSE_WORDS = _CONNECTIVES | word_set(
    "no such than more most near some any all every each same other has have had does did"
    " very too just been being"
)
_SHELL_LOOP = re.compile(r";[ \t]*(?:do|then)\b")
_PERMISSIONS = re.compile(r"[-dlcbps][-rwxsStT]{9}[.+@]?")
_QUANTITY = re.compile(r"[-+]?\d[\d.,:]*[%A-Za-z]{0,3}")
_ALIGNED = re.compile(r"\S(?:\t| {3,})\S")
_QUOTE_LOOK_AHEAD = 50  # lines a quote left open in a fence may run on


def comment_regions(command: str) -> list[tuple[int, int]]:
    """The shell comments of ``command``: a ``#`` starting a word, outside quotes, to the
    end of its line. (A ``#`` inside a word, ``$#`` or ``a#b``, starts none.)"""
    regions: list[tuple[int, int]] = []
    quote: str | None = None
    i = 0
    while i < len(command):
        char = command[i]
        if quote is not None:
            if char == "\\" and quote == '"':
                i += 1
            elif char == quote:
                quote = None
        elif char == "\\":
            i += 1
        elif char in "'\"":
            quote = char
        elif char == "#" and (i == 0 or command[i - 1] in " \t\n;|&("):
            end = command.find("\n", i)
            end = len(command) if end < 0 else end
            regions.append((i, end))
            i = end
            continue
        i += 1
    return regions


def without_comments(command: str) -> str:
    """``command`` with its shell comments removed (see `comment_regions`)."""
    if "#" not in command:
        return command
    pieces: list[str] = []
    previous = 0
    for start, end in comment_regions(command):
        pieces.append(command[previous:start])
        previous = end
    pieces.append(command[previous:])
    return "".join(pieces).rstrip()


def _hash_as_word(command: str) -> str:
    """``command`` as an interactive zsh reads it by default: ``#`` is an ordinary word,
    not a comment (zsh without INTERACTIVE_COMMENTS, the macOS default shell)."""
    pieces: list[str] = []
    previous = 0
    for start, _ in comment_regions(command):
        pieces.append(command[previous:start] + "\\#")
        previous = start + 1
    pieces.append(command[previous:])
    return "".join(pieces)


@lru_cache(maxsize=4096)
def judge(command: str) -> CommandClass:
    """The classifier's verdict, remembered: the same command often recurs in one answer.

    The user may paste a line into bash, where ``#`` starts a comment, or into zsh, where by
    default it does not: ``ls # && reboot`` only lists in bash but reboots in zsh. Both
    readings are classified and the worse one counts (fail closed)."""
    if not comment_regions(command):
        return classify(command)
    code = without_comments(command)
    bash = classify(code if code.strip() else command)
    zsh = classify(_hash_as_word(command))
    return combine([bash, zsh])


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
    if tool not in _FREE_ARGUMENT_TOOLS or not bare[:1].isalnum():
        return False
    return _bare(token) not in _CONNECTIVES and _bare(token) not in _PROSE_NOUNS


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
    return bool(token) and (_is_argument(word, token) or _writes_ahead(line, start, end))


def _writes_ahead(line: str, start: int, end: int) -> bool:
    """Does the command the tool word at ``start`` would begin redirect into a path
    (``echo 1 > /sys/bus/pci/rescan``)? Only its own words count: up to where a prose
    command ends, within `_REDIRECT_LOOK_AHEAD` characters."""
    window = line[: min(len(line), end + _REDIRECT_LOOK_AHEAD)]
    words = window[end : _scan_end(window, start)].split()
    for index, word in enumerate(words):
        if word.startswith((">/", ">>/", ">~/", ">>~/")):
            return True
        if word in _REDIRECTS and index + 1 < len(words):
            return words[index + 1].startswith(_PATH_PREFIXES)
    return False


def _assignments_before(line: str, start: int) -> int:
    """Where the ``VAR=value`` words right before ``start`` begin (``start`` if none)."""
    lead = start
    for _ in range(8):
        end = lead
        while end > 0 and line[end - 1] in " \t":
            end -= 1
        if end in (lead, 0):
            return lead
        begin = end
        while begin > 0 and not line[begin - 1].isspace() and line[begin - 1] != _MASK:
            begin -= 1
        word = line[begin:end]
        # "state=resume。 shutdown": a sentence ended after the word, so it is no prefix of
        # the command that follows (and that command must not be merged into it).
        if (
            not _SHELL_ASSIGNMENT.fullmatch(line, begin, end)
            or any(_is_cjk(char) for char in word)
            or word[-1] in ".,;:!?"
        ):
            return lead
        lead = begin
    return lead


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


def prose_commands(
    line: str, base: int = 0, where: Where = "prose", source: str | None = None
) -> list[FoundCommand]:
    """Commands written in one line of prose; offsets are shifted by ``base``.

    ``source``, when given, is the line as written, of the same length: ``line`` is what
    the scan reads (markup blanked), ``source`` what a command's text is taken from, with
    the markup marked `_WRAPPED` inside it dropped."""
    original = line if source is None else source
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
        lead = _assignments_before(line, start)  # X=1 reboot: the assignment is the command's
        if lead == start and not _qualifies(line, start, match.end(), word):
            position = match.end()
            continue
        closing = _quoted_end(line, start)
        if closing is not None:  # a quoted command: its span takes the quotes, like `code`
            end = _clean_end(line, start, closing)
            command = _written(original, start, end)
            found.append(FoundCommand(command, base + start - 1, base + closing + 1, where))
            position = closing + 1
            continue
        start = lead
        end = _clean_end(line, start, _scan_end(line, start))
        command = _written(original, start, end)
        span_end = _past_markup(line, original, end)
        found.append(FoundCommand(command, base + start, base + span_end, where))
        hidden = hidden_command(command)
        if hidden is not None:
            inner = command[hidden[0] :]
            found.append(FoundCommand(inner, base + span_end - len(inner), base + span_end, where))
        position = max(end, match.end())


def _written(source: str, start: int, end: int) -> str:
    """The command as written in ``source[start:end]``, without the markup inside it."""
    text = source[start:end]
    return text.replace(_WRAPPED, "") if _WRAPPED in text else text


def _past_markup(line: str, source: str, end: int) -> int:
    """The end of a command moved past the markup that closes around it (``**``, ``_``,
    ``](url)``, ``</kbd>``), so a note after it lands outside the markup."""
    if source is line:
        return end
    while end < len(line) and source[end] == _WRAPPED:
        end += 1
    return end


def hidden_command(command: str) -> tuple[int, int] | None:
    """A mutating command run on inside a read-only one read from text: its span, or None.

    "kubectl get nodes sudo reboot" is one read-only shell command, but a reader sees
    ``sudo reboot`` in it. A later tool word that qualifies as in prose and starts a
    mutating command of its own is reported. Tools that are English words are skipped (so
    "grep -i reboot /var/log/syslog" stays one command), as are quoted words; at most
    `_NESTED_LIMIT` candidates are classified, which keeps long lines linear. A shell
    comment hides nothing: ``ls # && reboot`` runs ``ls``."""
    if judge(command).kind != "read_only":
        return None
    comments = comment_regions(command) if "#" in command else []
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
        if comments and _inside(comments, match.start()):
            continue
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


def _inside(regions: list[tuple[int, int]], offset: int) -> bool:
    index = bisect.bisect_right(regions, offset, key=lambda region: region[0]) - 1
    return index >= 0 and regions[index][0] <= offset < regions[index][1]


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


def command_candidate(text: str, *, block: bool = True) -> bool:
    """Is ``text`` shaped like ``name argument...``: a command, whatever its tool?

    The first word is shaped like a command name (lower case, no trailing ``:``, not an id,
    an ``ls -l`` mode or an English or programming keyword; a shell loop only with its
    ``; do``) and an argument follows that is not ``=``, ``:`` or an English connective.
    Messages and sentences stay out: a word ending in ``:`` or ``,``, a ``(remark)``, an
    ellipsis, or words of a sentence ("of", "no", "than"...) with no flag, path, id or
    ``=`` among them. In a block (a fence, ``<pre>``), output stays out too: columns
    aligned with a tab or three spaces, and rows mostly of numbers."""
    words = text.split()
    if len(words) < 2:
        return False
    first, second = words[0], words[1]
    if not _COMMAND_NAME.fullmatch(first) or first in _NOT_COMMAND_WORDS:
        return False
    if first in _CONNECTIVES:  # "for", "while", "if" start a shell loop only with "; do"
        return first in ("for", "while", "until", "if") and bool(_SHELL_LOOP.search(text))
    if ID_PATTERN.fullmatch(first) or _PERMISSIONS.fullmatch(first):
        return False
    if second in ("=", ":", "->", "=>", "<-") or _bare(second) in _CONNECTIVES:
        return False
    rest = words[1:]
    if "..." in text or "…" in text or any(w.endswith((":", ",")) or w[0] == "(" for w in rest):
        return False
    if not any(_argument_like(w) for w in rest) and any(_bare(w) in _PROSE_WORDS for w in rest):
        return False
    if not block:
        return True
    if _ALIGNED.search(text.strip()):
        return False
    arguments = words[1:]
    numbers = sum(1 for word in arguments if _QUANTITY.fullmatch(word))
    return not (len(arguments) >= 2 and numbers * 2 >= len(arguments))


def _argument_like(word: str) -> bool:
    """A word that only a command line would hold: a flag, a path, an id, ``a=b``..."""
    if _FLAG.match(word) or word.startswith(_PATH_PREFIXES) or word[:1] in "'\"$":
        return True
    return "=" in word or "/" in word or bool(ID_PATTERN.fullmatch(word.rstrip(_CLOSERS)))


# A triage report line quoted verbatim, as the workflow asks the model to do: a report of
# what was found (cluster text included), not advice to run anything. FAIL and WARN lines
# must carry their reference pointer, so a bare "[FAIL] sudo reboot" is still a command.
REPORT_LINE = re.compile(
    r"^\[(?:FAIL|WARN)\] P[012] .+ → references/node-diagnostics-detail\.md § "
    r"[A-O](?:\.\d+(?:\.[a-z])?)?$|^\[(?:PASS|INFO)\] [^\n]+$"
)


def is_report_line(text: str) -> bool:
    return REPORT_LINE.match(text.strip()) is not None


def _inline_command(text: str, span_start: int, content: str, *, block: bool = False) -> str | None:
    if is_report_line(content):
        return None
    command = content.strip()
    if command.startswith("$ "):
        command = command[2:].strip()
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
        run = _after_run_verb(text[max(0, span_start - _LOOK_BACK) : span_start])
        return command if is_tool(command) and run else None
    known = is_tool(_first_tool(command)) or is_tool(words[0])
    if known or prose_commands(command) or command_candidate(command, block=block):
        hidden = hidden_command(command)
        return command if hidden is None else command[hidden[0] : hidden[1]]
    return None


# An HTML tag; `_CODE_ELEMENTS` show their content as code, the others are markup.
_HTML_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]{0,20})(?:[ \t\n][^<>]{0,300})?/?>")
_CODE_ELEMENTS = word_set("code pre kbd samp tt")
_BLOCK_ELEMENTS = word_set("pre")
_LINK = re.compile(r"!?\[[^\[\]\n]{1,300}\](?:\([^()\s]{0,500}\)|\[[^\[\]\n]{0,100}\])")
_DELIMITERS = re.compile(r"\*+|_+|~+")
_TABLE_ROW = re.compile(r"[ \t]*(?:>[ \t]*)*\|")
_OPENS_AFTER = frozenset(" \t\n([{\"'“‘«\x00")


@dataclass(frozen=True)
class _Element:
    span: CodeSpan
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
                span = CodeSpan(tag.start(), close.end(), tag.end(), close.start())
                elements.append(_Element(span, name in _BLOCK_ELEMENTS))
                index = ends[position] + 1
                continue
        others.append((tag.start(), tag.end()))
        index += 1
    return elements, others


def _element_text(text: str, span: CodeSpan) -> str:
    """The content of an HTML element as shown: inner tags dropped, entities decoded."""
    return html.unescape(_HTML_TAG.sub("", text[span.content_start : span.content_end]))


def _emphasis(text: str) -> list[tuple[int, int]]:
    """The emphasis and strikethrough delimiters of ``text`` (``*``, ``_``, ``~`` runs) that
    pair up as Markdown would show them: an opener (after a blank or punctuation, before a
    word) with the next closer of the same run (after a word, before a blank or
    punctuation). Runs inside words (``FI_EFA``, ``~/.ssh``, ``[*]``) pair with nothing."""
    pairs: list[tuple[int, int]] = []
    open_runs: dict[str, list[tuple[int, int]]] = {}
    for match in _DELIMITERS.finditer(text):
        run, start, end = match.group(), match.start(), match.end()
        before = text[start - 1] if start > 0 else " "
        after = text[end] if end < len(text) else " "
        key = run[0] + str(len(run))
        stack = open_runs.setdefault(key, [])
        closes = not before.isspace() and not after.isalnum() and after not in "]}"
        if closes and stack:
            pairs.append(stack.pop())
            pairs.append((start, end))
        elif not after.isspace() and before in _OPENS_AFTER:
            stack.append((start, end))
    return pairs


def _prose_view(text: str, masked: list[str]) -> tuple[str, str]:
    """(what the prose scan reads, what commands are taken from) for a paragraph.

    The scan reads ``masked`` (inline code masked) with the markup blanked: HTML tags,
    link brackets and targets, paired emphasis; a ``\\`` ending a line joins it to the
    next; a table row's cell separators end commands. The source is ``text`` with the
    markup marked `_WRAPPED`. Both keep every offset."""
    view = masked
    source = list(text)
    plain = "".join(masked)

    def blank(start: int, end: int) -> None:
        for i in range(start, end):
            if view[i] != "\n":
                view[i], source[i] = " ", _WRAPPED

    for start, end in _html_elements(plain)[1]:
        blank(start, end)
    for link in _LINK.finditer(plain):
        label_end = plain.index("]", link.start())
        blank(link.start(), plain.index("[", link.start()) + 1)
        blank(label_end, link.end())
    for start, end in _emphasis(plain):
        blank(start, end)
    for match in re.finditer(r"\\\r?\n", plain):  # a prose line continued on the next
        for i in range(match.start(), match.end()):
            view[i] = " "
    offset = 0
    for line in lines_of(plain):
        row = _TABLE_ROW.match(line)
        if row is not None:
            for i in range(row.end() - 1, len(line)):
                if line[i] == "|" and (i == 0 or line[i - 1] != "\\"):
                    view[offset + i] = _MASK
        offset += len(line)
    return "".join(view), "".join(source)


def _text_commands(text: str, base: int) -> list[FoundCommand]:
    """Inline and prose commands of a paragraph (a segment outside any fence)."""
    found: list[FoundCommand] = []
    masked = list(text)

    def mask(span: CodeSpan) -> None:
        for i in range(span.start, span.end):
            if masked[i] != "\n":
                masked[i] = _MASK

    for span in code_spans(text):
        content = text[span.content_start : span.content_end]
        command = _inline_command(text, span.start, content)
        if command is not None:
            found.append(FoundCommand(command, base + span.start, base + span.end, "inline"))
        mask(span)
    for element in _html_elements("".join(masked))[0]:
        span = element.span
        for line in _element_text(text, span).split("\n"):
            command = _inline_command(text, span.start, line, block=element.block)
            if command is not None:
                found.append(FoundCommand(command, base + span.start, base + span.end, "inline"))
        mask(span)
    view, source = _prose_view(text, masked)
    for offset, line in _lines(view):
        written = source[offset : offset + len(line)]
        found.extend(prose_commands(line, base + offset, source=written))
    return sorted(found, key=lambda f: f.start)


@dataclass(frozen=True)
class _FenceLine:
    offset: int  # of the line's text in the segment, past the container's prefix
    text: str  # without its newline and without the container's prefix (> quotes, indent)


def _fence_body(segment: Segment) -> list[_FenceLine]:
    mark = segment.mark
    lines: list[_FenceLine] = []
    for offset, text in list(_lines(segment.text))[1:]:
        cut = mark.strip(text) if mark is not None else 0
        lines.append(_FenceLine(offset + cut, text[cut:]))
    if lines and mark is not None:
        last_start = lines[-1].offset
        line_start = segment.text.rfind("\n", 0, last_start) + 1
        if fence_closes(segment.text[line_start:].rstrip("\r\n") + "\n", mark):
            lines.pop()
    return lines


def _quote_after(text: str, quote: str | None) -> str | None:
    """The shell quote open after reading ``text`` with ``quote`` open before it."""
    i = 0
    while i < len(text):
        char = text[i]
        if quote is not None:
            if char == "\\" and quote == '"':
                i += 1
            elif char == quote:
                quote = None
        elif char == "\\":
            i += 1
        elif char in "'\"":
            quote = char
        elif char == "#" and (i == 0 or text[i - 1] in " \t;|&("):
            return None  # a comment runs to the end of the line
        i += 1
    return quote


def _quote_closes(lines: list[_FenceLine], start: int, quote: str) -> int | None:
    """The line, from ``start`` on, where the open ``quote`` closes (None: it does not,
    within `_QUOTE_LOOK_AHEAD` lines, so it was no shell quote)."""
    state: str | None = quote
    for index in range(start, min(len(lines), start + _QUOTE_LOOK_AHEAD)):
        state = _quote_after(lines[index].text, state)
        if state is None:
            return index
    return None


def _logical_command(lines: list[_FenceLine], index: int, skip: int) -> tuple[str, int, int]:
    """The command starting ``skip`` characters into line ``index``, joined on ``\\``, on
    a quoted string that runs over lines, and with its heredoc body: (command, index of
    its last line, end offset)."""
    command = lines[index].text[skip:].strip()
    quote = _quote_after(command, None)
    last = index
    while last + 1 < len(lines):
        if quote is None and command.endswith("\\"):
            command = command[:-1].rstrip()
            last += 1
            piece = lines[last].text.strip()
            if piece:
                command = f"{command} {piece}" if command else piece
                quote = _quote_after(piece, None)
            continue
        close = None if quote is None else _quote_closes(lines, last + 1, quote)
        if close is None:
            break
        body = [line.text for line in lines[last + 1 : close + 1]]
        command = "\n".join([command, *body]).rstrip()
        last, quote = close, None
    if command.endswith("\\"):  # a continuation with nothing left to continue
        command = command[:-1].rstrip()
    heredoc = _HEREDOC.search(command)
    if heredoc is not None:
        heredoc_body: list[str] = []
        while last + 1 < len(lines):
            last += 1
            heredoc_body.append(lines[last].text)
            if lines[last].text.strip() == heredoc.group(1):
                break
        command = "\n".join([command, *heredoc_body])
    end = lines[last].offset + len(lines[last].text)
    return command, last, end


_MARKDOWN_LANGUAGES = word_set("markdown md gfm mdx commonmark")
_MARKDOWN_DEPTH = 3


def nests_markdown(segment: Segment) -> bool:
    """Is the fence Markdown source (``markdown``, ``md``...)? Its body is read as Markdown
    (a fence inside it holds commands, a paragraph prose), and it is never split."""
    mark = segment.mark
    return mark is not None and not mark.quotes and mark.language in _MARKDOWN_LANGUAGES


def _markdown_commands(segment: Segment, depth: int) -> list[FoundCommand]:
    first = segment.text.find("\n") + 1
    if first == 0:
        return []
    body = _fence_body(segment)
    end = body[-1].offset + len(body[-1].text) if body else first
    shift = segment.start + first
    return [
        FoundCommand(f.command, f.start + shift, f.end + shift, f.where)
        for f in find_commands(segment.text[first:end], depth + 1)
    ]


def _fence_commands(segment: Segment, depth: int = 0) -> list[FoundCommand]:
    if depth < _MARKDOWN_DEPTH and nests_markdown(segment):
        return _markdown_commands(segment, depth)
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
            and (
                all_commands
                or (prompted and _looks_like_command(stripped))
                or command_candidate(stripped)
            )
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
    if is_report_line(text):
        return []
    stripped = text.strip()
    if stripped.startswith("#"):
        rest = stripped.lstrip("#").strip()
        if is_tool(rest):
            start = text.index(rest, text.index("#"))
            return [FoundCommand(rest, base + start, base + start + len(rest), "fence")]
    return prose_commands(text, base, "fence")


def segment_commands(segment: Segment, depth: int = 0) -> list[FoundCommand]:
    """The commands of one segment, with offsets in the whole text."""
    if segment.kind == "fence":
        return _fence_commands(segment, depth)
    return _text_commands(segment.text, segment.start)


def find_commands(text: str, depth: int = 0) -> list[FoundCommand]:
    """Every command in ``text``, in order: fenced, inline and prose."""
    return [f for segment in segments(text) for f in segment_commands(segment, depth)]
