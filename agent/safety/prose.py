"""Commands written in prose, without backticks: `prose_commands` and `hidden_command`.

* **prose** — a known tool word counts only when it is written in lower case as a word of
  its own and is followed by something that looks like arguments: a flag (``-x``,
  ``--name``), a path, a resource id (i-…, sg-…, hyperpod-i-…, ip-10-…), ``NAME=value``, a
  quoted string, a file name with an extension, a shell operator, a known subcommand of that
  tool (``aws sagemaker``, ``kubectl cordon``, ``systemctl restart``, ``sudo <tool>``...), a
  number for ``kill``/``scancel``, or any word for a few tools that are no English word
  (``scancel``, ``pkill``, ``srun``...). A run verb just before it, or ``$(``/``&&``/``||``,
  also makes it a command. An id does not count after a tool name that is also an English
  word ("reboot i-0abc first", "the hostname ip-10-1-2-3"). So "reboot the node" and "the
  iptables rules" are prose; "sudo reboot", "reboot -f" and "run reboot" are commands.
  ``VAR=value`` words before a tool belong to its command; a tool may follow a colon
  directly (``Step 1:sudo reboot``); an ``echo 1 > /sys/...`` (a redirection into a path)
  is a command; ``scontrol`` takes any subcommand; so is a command piped into a shell or
  an interpreter (``echo ... | base64 -d | sh``).
* **the word as a shell reads it** — the tool word is resolved as the shell resolves it
  (`tools.command_safety.words.command_name`): ``'kubectl'``, ``"aws"``, ``k\\ubectl``,
  ``/usr/local/bin/aws`` and ``./kubectl`` name their tools, and a name so spelled with
  nothing after it is a command when the tool alone changes something (``\\reboot``,
  ``/sbin/reboot``). A shell prompt right before it (``user@host:~$ ``,
  ``[root@ip-10-1-2-3 ~]# ``, ``PS C:\\> ``) makes it a command too. A PowerShell cmdlet
  (``Stop-Computer``) is a command wherever it appears: no English word is spelled so.
* **narrative** — a signal the sentence reports a system component already sent ("the
  OOM killer sent kill -9", "the kernel sent SIGKILL (kill -9)") is no advice
  (`narrative_signal`); "run kill -9 1234" and "kill -9 1234 to stop it" are.
* **where it ends** — the command runs to the end of the line or of the sentence: a period,
  ``?`` or ``!`` followed by a space or the end of the line (not one inside an id or a file
  name), ``, ``, ``: ``, `` (``, a dash, a backtick, ``**``, any CJK character, or an
  English connective ("and", "then", "to", "on", "now", "from"...) outside quotes. A command opened
  by a quote ends at the matching quote; a quote left open ends the command before it.
  Cutting at a connective never hides anything: scanning resumes right after, so a second
  command in the same sentence is found on its own.
* **hidden commands** — a read-only prose or inline command that runs on into a mutating
  one without any separator ("kubectl get nodes sudo reboot") also yields the mutating part
  (`hidden_command`).

The line scanned may have its markup blanked (see `agent.safety.inline`): `_MASK` stands for
inline code, `_WRAPPED` marks markup in the text a command is taken from.
"""

from __future__ import annotations

import bisect
import re

from agent.safety.found import FoundCommand, Where
from agent.safety.shell import judge
from agent.safety.vocabulary import (
    _ASSIGNMENT,
    _CLOSERS,
    _COMMAND_NAME,
    _CONNECTIVES,
    _ENGLISH_TOOLS,
    _FILE_NAME,
    _FLAG,
    _FREE_ARGUMENT_TOOLS,
    _LAUNCHERS,
    _NOT_COMMAND_WORDS,
    _NUMBER_TOOLS,
    _OPERATORS,
    _PATH_PREFIXES,
    _PROSE_NOUNS,
    _RUN_VERBS,
    _RUN_VERBS_ZH,
    _SHELL_CONTEXT,
    _SUBCOMMANDS,
    _WRAPPERS,
    ID_PATTERN,
    _bare,
    _is_cjk,
    is_tool,
)
from tools.command_safety.args import word_set
from tools.command_safety.parsed import parse_line
from tools.command_safety.shell import comment_regions, scan_quotes
from tools.command_safety.words import CMDLET, command_name, is_cmdlet, prompt_length

# A tool word may follow a colon directly ("Step 1:sudo reboot"): an id or URL ("arn:aws:")
# puts no blank after the word, and a prose command needs one (see `_qualifies`).
_TOOL_WORD = re.compile(
    r"(?<![A-Za-z0-9_./\-=@$%+~\\])"
    r"(?:['\"](?:\.{1,2}|~)?/(?:[\w.+-]+/)*[a-z][a-z0-9_+-]*['\"]"  # '/usr/bin/kubectl'
    r"|(?:(?:\.{1,2}|~)?/(?:[\w.+-]+/)*)?"  # a path to the program: /usr/local/bin/aws
    # a name, its letters maybe quoted or escaped as a shell reads them ('kubectl', k\ubectl)
    r"(?:(?:\$(?='))?[a-z'\"\\][a-z0-9_+'\"\\-]*(?:\.[a-z0-9]+)?"
    rf"|{CMDLET.pattern}))"  # a PowerShell cmdlet: Stop-Computer
)
# Shells and interpreters: a pipe into one runs whatever it is fed.
_PIPE_TARGETS = word_set("sh bash zsh dash ksh python python3 perl ruby node pwsh iex sudo")
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


# Tools whose first argument is a host: a host name with dots, an address or user@host
# after them is an argument, whatever the words around it.
_ESCAPED = re.compile(r"\\(.)")
_HOST_TOOLS = word_set("ssh scp sftp rsync mosh")
_HOST = re.compile(
    r"(?:[\w.-]{1,64}@)?(?:\d{1,3}(?:\.\d{1,3}){3}|[a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63}){1,8})",
    re.IGNORECASE,
)


def _is_argument(tool: str, token: str) -> bool:
    """Does ``token``, right after ``tool``, look like an argument rather than prose?

    A backslash before a character is read away first: the shell removes it, and Markdown
    shows ``\\-r`` as ``-r``, so ``nvidia\\-smi \\-r`` is seen with its flag."""
    if "\\" in token:
        token = _ESCAPED.sub(r"\1", token)
    bare = token.rstrip(_CLOSERS)
    if _FLAG.match(token) or token.startswith(_PATH_PREFIXES) or token[:1] in "'\"":
        return True
    if ID_PATTERN.fullmatch(bare) and tool not in _ENGLISH_TOOLS:
        return True  # "reboot i-0abc first" is a sentence; no shell reboot takes an id
    if _ASSIGNMENT.match(token) or _FILE_NAME.fullmatch(bare):
        return True
    if token in _OPERATORS or bare in _SUBCOMMANDS.get(tool, ()):
        return True
    if tool in _WRAPPERS | _LAUNCHERS and (is_tool(bare) or token == "--"):
        return True
    if tool in _NUMBER_TOOLS and bare.isdigit():
        return True
    if tool in _HOST_TOOLS and _HOST.fullmatch(bare):
        return True  # "ssh ip-10-1-0-5.ec2.internal 'sudo reboot'": a host, then its command
    if tool not in _FREE_ARGUMENT_TOOLS or not bare[:1].isalnum():
        return False
    return _bare(token) not in _CONNECTIVES and _bare(token) not in _PROSE_NOUNS


# A signal reported as something a system component did is narrative, not advice: "the
# OOM killer sent kill -9", "the kernel sent SIGKILL (kill -9) to the process", "the job
# was killed by kill -9 from slurmstepd". Only signal commands are excused this way (the
# worst a misread narrative leaves unblocked is a kill of one process, which the sentence
# says already happened), and only when the clause right before the command has a past
# verb of sending and the sentence names a system actor; a run verb before it, or a
# clause of its own ("If the kernel sent SIGTERM, kill -9 1234"), keeps it advice.
_SIGNAL_TOOLS = word_set("kill")
# Words of advice or obligation: "you've got to send", "must be sent", "需要发送" advise.
_ADVICE = re.compile(
    r"\b(?:must|should|need|needs|have to|has to|got to|ought|try|do the same|again)\b"
    r"|需要|应该|必须|再次|同样",
    re.IGNORECASE,
)
# Chinese has no word boundaries: its verbs of sending ("发送了", "发出") and of a process
# ended by someone else ("被…终止/杀死") are matched as they are written.
_NARRATIVE_VERB = re.compile(
    r"\b(?:sent|issued|delivered|killed|terminated|reaped)\b"
    r"|发送了|发出了|发出|已发送|收到了|被[^，。；]{0,30}(?:终止|杀死|杀掉|结束)",
    re.IGNORECASE,
)
_SYSTEM_ACTOR = re.compile(
    r"\b(?:kernel|oom|oom[- _]killer|slurm\w*|kubelet|systemd|scheduler|watchdog"
    r"|containerd|runtime|cgroup)\b|\bSIG[A-Z]{2,}\b|内核|调度器|系统",
    re.IGNORECASE,
)
_CLAUSE_BREAK = re.compile(
    r"[,;:.!?\n，；：]|\b(?:and|then|so|but|if|when)\b|然后|如果|但是", re.IGNORECASE
)
_SENTENCE_BREAK = re.compile(r"[.!?](?:\s|$)|[;\n。！？；]")
_NARRATIVE_REACH = 200


def narrative_signal(text: str, start: int, command: str) -> bool:
    """Is the signal ``command``, found at ``text[start]``, reported as something a system
    component already did, rather than advised (see `_SIGNAL_TOOLS`)?"""
    parsed = parse_line(command)
    if parsed is None or len(parsed.stages) != 1 or parsed.writes or parsed.substitutions:
        return False  # "kill -9 1; sudo reboot": only a lone signal is excused
    (stage,) = parsed.stages
    if stage.tool not in _SIGNAL_TOOLS or any(is_tool(arg) for arg in stage.args):
        return False  # "kill -9 1 sudo reboot" runs on into another command
    targets = [arg for arg in stage.args if not arg.startswith("-")]
    if len(targets) > 1 or not all(arg.isdigit() for arg in targets) or "-1" in stage.args:
        return False  # only one process: "kill -9 -1" or several pids is never excused
    window = text[max(0, start - _NARRATIVE_REACH) : start]
    breaks = list(_SENTENCE_BREAK.finditer(window))
    sentence = window[breaks[-1].end() :] if breaks else window
    clauses = list(_CLAUSE_BREAK.finditer(sentence))
    clause = sentence[clauses[-1].end() :] if clauses else sentence
    if _after_run_verb(clause) or _NARRATIVE_VERB.search(clause) is None:
        return False
    after = text[start : start + _NARRATIVE_REACH]
    ending = _SENTENCE_BREAK.search(after)
    whole = sentence + (after[: ending.start()] if ending is not None else after)
    if _ADVICE.search(whole):
        return False  # "the scheduler sent kill -9 last time: do the same" advises
    return _SYSTEM_ACTOR.search(whole) is not None


def _tool_word(match: re.Match[str]) -> tuple[int, str]:
    """Where a tool word starts, and the name it resolves to (`command_name`).

    A quote that opens before the word and does not close inside it quotes a phrase
    ("run 'kubectl get nodes' to check"), not the word: the word starts after it, so that
    the quoted command ends at the closing quote (`_quoted_end`)."""
    start, text = match.start(), match.group()
    if text[0] in "'\"" and text.count(text[0]) == 1:
        start, text = start + 1, text[1:]
    return start, command_name(text)


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
    """Is the tool word ``word`` (its name as the shell resolves it) at ``line[start:end]``
    a command? See the module docstring; a PowerShell cmdlet needs no argument after it."""
    before = line[max(0, start - _LOOK_BACK) : start]
    if before.rstrip().endswith(_SHELL_CONTEXT) or _after_run_verb(before):
        return True
    if _after_prompt(line, start) or (is_cmdlet(word) and not _plural_noun(word)):
        return True
    token = _next_token(line, end) if end < len(line) and line[end] in " \t" else ""
    if line[start:end] != word and (not token or _bare(token) in _CONNECTIVES):
        # \reboot, re\boot, /sbin/reboot: a name only a shell spells so, standing alone, is
        # a command when the tool alone changes something.
        return judge(word).kind == "mutating"
    if not token:
        return False
    return _is_argument(word, token) or _writes_ahead(line, start, end)


def _plural_noun(word: str) -> bool:
    """Does a Verb-Noun word end in a plural ("Start-Ups", "Push-Ups")? Cmdlet nouns are
    singular (learn.microsoft.com, "Strongly Encouraged Development Guidelines", SD01; the
    PSScriptAnalyzer rule UseSingularNouns), so such a word in a sentence is English, not
    a cmdlet, unless an argument follows it."""
    return word.endswith("s") and not word.endswith("ss")


def _after_prompt(line: str, start: int) -> bool:
    """Does a shell prompt (``user@host:~$ ``, ``[root@ip-10-1-2-3 ~]# ``, ``PS C:\\> ``,
    ``$ ``) end right before ``start``? A bare ``# `` does not count in prose: there it is
    a Markdown heading or a hash sign, not a root prompt."""
    for begin in range(max(0, start - 2 * _LOOK_BACK), start):
        if begin and not line[begin - 1].isspace():
            continue
        if prompt_length(line, begin, root=False) == start - begin:
            return True
    return False


def _writes_ahead(line: str, start: int, end: int) -> bool:
    """Does the command the tool word at ``start`` would begin redirect into a path
    (``echo 1 > /sys/bus/pci/rescan``) or pipe into a shell or an interpreter
    (``echo ... | base64 -d | sh``)? Only its own words count: up to where a prose
    command ends, within `_REDIRECT_LOOK_AHEAD` characters."""
    window = line[: min(len(line), end + _REDIRECT_LOOK_AHEAD)]
    words = window[end : _scan_end(window, start)].split()
    for index, word in enumerate(words):
        if word.startswith((">/", ">>/", ">~/", ">>~/")):
            return True
        following = words[index + 1] if index + 1 < len(words) else ""
        if word in _REDIRECTS and following:
            return following.startswith(_PATH_PREFIXES)
        # A pipe into a shell or an interpreter (``echo ... | base64 -d | sh``).
        if word == "|" and command_name(following) in _PIPE_TARGETS:
            return True
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
    if char in "→⇒":
        # A report line's " → references/... § X" follows the command, the arrow standing
        # alone between blanks; an arrow against other characters ("→>") is part of it.
        return (i == 0 or line[i - 1] in " \t") and following in " \t\n"
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
        start, word = _tool_word(match)
        next_char = line[match.end()] if match.end() < len(line) else " "
        ends = next_char in _WORD_END or _is_cjk(next_char)
        if not (ends and (is_tool(word) or _run_unknown(line, start, match.end(), word))):
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
        if narrative_signal(line, start, command):
            position = max(end, match.end())
            continue
        span_end = _past_markup(line, original, end)
        found.append(FoundCommand(command, base + start, base + span_end, where))
        hidden = hidden_command(command)
        if hidden is not None:
            inner = command[hidden[0] :]
            found.append(FoundCommand(inner, base + span_end - len(inner), base + span_end, where))
        position = max(end, match.end())


def _run_unknown(line: str, start: int, end: int, word: str) -> bool:
    """A tool the classifier does not know, told to be run: a run verb ("run", "execute",
    执行...) right before a word shaped like a command name, and a flag or path right after
    it ("run hyperpod-fixer --apply"). The classifier answers unknown: a block."""
    if not _COMMAND_NAME.fullmatch(word) or word in _CONNECTIVES or word in _NOT_COMMAND_WORDS:
        return False
    if not _after_run_verb(line[max(0, start - _LOOK_BACK) : start]):
        return False
    token = _next_token(line, end) if end < len(line) and line[end] in " \t" else ""
    return bool(_FLAG.match(token)) or token.startswith(_PATH_PREFIXES)


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
    comments = comment_regions(command)
    first = _TOOL_WORD.search(command)
    position = first.end() if first is not None else len(command)
    tried = 0
    quote: str | None = None  # the quote open at `read`, tracked as the search moves on
    read = 0
    while tried < _NESTED_LIMIT:
        match = _TOOL_WORD.search(command, position)
        if match is None:
            return None
        position, (start, word) = match.end(), _tool_word(match)
        if comments and _inside(comments, start):
            continue
        quote, read = scan_quotes(command[read:start], quote)[1], start
        if word in _ENGLISH_TOOLS or not is_tool(word) or quote is not None:
            continue
        if not _qualifies(command, start, match.end(), word):
            continue
        tried += 1
        if judge(command[start:]).kind == "mutating":
            return start, len(command)
    return None


def _inside(regions: list[tuple[int, int]], offset: int) -> bool:
    index = bisect.bisect_right(regions, offset, key=lambda region: region[0]) - 1
    return index >= 0 and regions[index][0] <= offset < regions[index][1]
