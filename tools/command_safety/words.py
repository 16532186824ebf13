"""The command word as a shell reads it, and the shell prompt a pasted line may start with.

A shell runs the program its first word names after quote removal and backslash removal
(bash(1), "Quote Removal": the characters ``\\``, ``'`` and ``"`` that did not come from
an expansion are removed), and a word holding a ``/`` is run as that path, so the tool is
its last component. ``'kubectl'``, ``k\\ubectl``, ``"sudo"``, ``\\reboot`` and
``/usr/local/bin/aws`` name kubectl, kubectl, sudo, reboot and aws. `command_name` is that
reading, done once here: the classifier and every finder of commands in text call it
rather than comparing the word as written.

A line copied from a terminal often keeps the prompt before the command
(``user@host:~$ sudo reboot``, ``[root@ip-10-1-2-3 ~]# reboot``, ``PS C:\\> Stop-Computer``,
``user@host ~ % ls`` (zsh), ``➜  ~ ls`` (oh-my-zsh), ``~$ ls``, ``$ ls``);
`prompt_length` says how long that prompt is, so the command is read from where it starts.
A bare ``#`` is a prompt only before a command word (``# reboot``), never before prose
(``# see below``), which keeps shell comments what they are.

`command_word` finds the first command word of a line as written (after a prompt,
``VAR=value`` words and wrappers such as ``sudo -u root --``): its span in the text and the
name it resolves to. PowerShell cmdlet names (``Stop-Computer``) are recognised by their
Verb-Noun shape (`CMDLET`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# One shell word as written: unquoted characters, backslash escapes and quoted strings,
# up to an unquoted blank. Operators (``|``, ``;``, ``&``...) end a word.
_SHELL_WORD = re.compile(r"""(?:[^\s'"\\|;&<>()]|\\.|'[^']*'|"(?:[^"\\]|\\.)*")+""")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")

# PowerShell's approved verbs (Get-Verb; learn.microsoft.com, "Approved Verbs for
# PowerShell Commands") that a cmdlet name starts with, written as PowerShell writes them.
_VERBS = (
    "Add Approve Assert Backup Block Build Checkpoint Clear Close Compare Complete Compress"
    " Confirm Connect Convert ConvertFrom ConvertTo Copy Debug Deny Deploy Disable Disconnect"
    " Dismount Edit Enable Enter Exit Expand Export Find Format Get Grant Group Hide Import"
    " Initialize Install Invoke Join Limit Lock Measure Merge Mount Move New Open Optimize Out"
    " Ping Pop Protect Publish Push Read Receive Redo Register Remove Rename Repair Request"
    " Reset Resize Resolve Restart Restore Resume Revoke Save Search Select Send Set Show Skip"
    " Split Start Step Stop Submit Suspend Switch Sync Test Trace Unblock Undo Uninstall"
    " Unlock Unprotect Unpublish Unregister Update Use Wait Watch Where Write ForEach"
)
CMDLET = re.compile(rf"(?:{'|'.join(_VERBS.split())})-[A-Z][A-Za-z0-9]{{2,40}}")

_USER_HOST = r"[A-Za-z_][\w.-]{0,63}@[\w.-]{1,253}"
_PROMPTS = re.compile(
    r"(?:\([\w.-]{1,64}\)[ \t]+)?"  # an activated virtualenv or conda env: "(base) "
    r"(?:"
    rf"{_USER_HOST}(?::?[^\s$#%>]{{0,200}}|[ \t]+[^\s$#%>]{{1,200}})[ \t]?[$#%]"  # user@host:~$
    # ~$ , /fsx# : the sign right after the path ("/opt/x.sh # note" is a comment)
    r"|[~/][^\s$#%>]{0,200}[$#%]"
    r"|➜[ \t]+\S{1,200}(?:[ \t]+git:\([^)\n]{0,200}\))?(?:[ \t]+✗)?"  # oh-my-zsh: ➜  ~
    rf"|\[{_USER_HOST}(?:[ \t][^\]\n]{{0,200}})?\][$#%]"  # [root@ip-10-1-2-3 ~]#
    r"|PS(?:[ \t][^>\n]{1,200})?>"  # PS C:\Users\me>
    r"|(?:ba|z|k|da)?sh-\d[\d.]*[$#]"  # bash-5.2$
    r"|\$"  # $
    r")[ \t]+"
)
_ROOT_PROMPT = re.compile(r"#[ \t]+")


_ANSI_C_SIMPLE = dict(zip("abeEfnrtv\\'\"?", "\a\b\x1b\x1b\f\n\r\t\v\\'\"?", strict=True))
_ANSI_C_NUMERIC = re.compile(r"[0-7]{1,3}|x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}")


def _ansi_c(word: str, start: int) -> tuple[str, int]:
    """The text of a ``$'...'`` word part whose body starts at ``start``, with bash's
    escapes decoded (bash(1), "ANSI-C Quoting": ``$'\\x72eboot'`` is ``reboot``), and where
    reading goes on after its closing quote."""
    out: list[str] = []
    i = start
    while i < len(word) and word[i] != "'":
        if word[i] != "\\" or i + 1 >= len(word):
            out.append(word[i])
            i += 1
            continue
        escape = word[i + 1]
        numeric = _ANSI_C_NUMERIC.match(word, i + 1)
        if escape in _ANSI_C_SIMPLE:
            out.append(_ANSI_C_SIMPLE[escape])
            i += 2
        elif numeric is not None:
            digits = numeric.group()
            value = int(digits, 8) if digits[0] in "01234567" else int(digits[1:], 16)
            out.append(chr(min(value, 0x10FFFF)))
            i = numeric.end()
        else:
            out.append("\\" + escape)
            i += 2
    return "".join(out), i + 1


def ansi_c_text(body: str) -> str:
    """The value of ``$'BODY'``: its escapes decoded as bash does."""
    return _ansi_c(body + "'", 0)[0]


def shell_word(word: str) -> str:
    """``word`` after quote removal and backslash removal, as bash reads it unexpanded.

    Inside double quotes a backslash escapes only ``$``, `````, ``"``, ``\\`` and a newline
    (bash(1), "Double Quotes"); elsewhere it escapes any character."""
    out: list[str] = []
    quote: str | None = None
    i = 0
    while i < len(word):
        char = word[i]
        following = word[i + 1] if i + 1 < len(word) else ""
        if quote == "'":
            quote = None if char == "'" else quote
            if quote is not None:
                out.append(char)
        elif quote == '"':
            if char == '"':
                quote = None
            elif char == "\\" and following in '$`"\\\n':
                out.append(following)
                i += 1
            else:
                out.append(char)
        elif char == "$" and following == "'":
            text, i = _ansi_c(word, i + 2)
            out.append(text)
            continue
        elif char in "'\"":
            quote = char
        elif char == "\\":
            out.append(following)
            i += 1
        else:
            out.append(char)
        i += 1
    return "".join(out)


def command_name(word: str) -> str:
    """The program a command word runs: quotes and backslashes removed, then the last
    component of a path (``/usr/local/bin/aws`` runs aws; ``./kubectl`` is kubectl)."""
    return shell_word(word).rsplit("/", 1)[-1]


def is_cmdlet(name: str) -> bool:
    """Is ``name`` shaped like a PowerShell cmdlet (``Stop-Computer``, ``Get-Service``)?"""
    return CMDLET.fullmatch(name) is not None


def prompt_length(line: str, start: int = 0, *, root: bool = True) -> int:
    """How many characters of ``line``, from ``start``, are a shell prompt (0: none).

    ``user@host:path$ ``, ``[user@host dir]# ``, ``PS C:\\> ``, ``bash-5.2$ `` and ``$ ``
    are prompts wherever they stand; a bare ``# `` only when a command word follows it
    (a root prompt), since before anything else it starts a comment. Callers that read
    ``# ...`` lines as comments themselves pass ``root=False``."""
    match = _PROMPTS.match(line, start)
    if match is not None:
        return match.end() - start
    hashed = _ROOT_PROMPT.match(line, start) if root else None
    if hashed is not None:
        word = _SHELL_WORD.match(line, hashed.end())
        if word is not None and _is_known(command_name(word.group())):
            return hashed.end() - start
    return 0


def _is_known(name: str) -> bool:
    # Imported here: the classifier imports this module (through shell).
    from tools.command_safety.classifier import known_tools
    from tools.command_safety.shell import WRAPPER_NAMES

    return name in known_tools() or name in WRAPPER_NAMES or is_cmdlet(name)


@dataclass(frozen=True)
class CommandWord:
    """The word that names the program a line runs: where it is written, and its name."""

    start: int
    end: int
    name: str


def command_word(text: str, *, wrappers: frozenset[str] | None = None) -> CommandWord | None:
    """The first command word of ``text``: after a prompt, ``VAR=value`` words, and the
    wrappers (``sudo``, ``env``, ``timeout``...) with their options and ``--``.

    The wrappers' own words are skipped loosely (an option's value may be taken for the
    command, e.g. ``sudo -u root reboot`` gives ``root``): callers use the name to decide
    whether text is a command at all, and the classifier judges the line exactly."""
    from tools.command_safety.shell import WRAPPER_NAMES

    skip = WRAPPER_NAMES if wrappers is None else wrappers
    position = prompt_length(text)
    while True:
        match = _SHELL_WORD.search(text, position)
        if match is None:
            return None
        word, position = match.group(), match.end()
        name = command_name(word)
        if name in skip or word.startswith("-") or _ASSIGNMENT.match(word):
            continue
        return CommandWord(match.start(), match.end(), name)
