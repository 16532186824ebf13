"""Shell syntax: tokenising a line, splitting pipelines and lists, redirections, wrappers.

Nothing here judges a tool. It turns the text into the simple commands the dispatcher
classifies one by one, plus the files that redirections write and the bodies of command
substitutions, so that a pipeline or list is judged by its worst part.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence

from tools.commands.args import word_set

_SEPARATORS = word_set("| || && ; ;; & |& ( )")
_REDIRECTS = word_set("> >> >| &> &>> >& < << <<< <& <>")
HARMLESS_TARGETS = word_set("/dev/null /dev/stdout /dev/stderr -")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_PLACEHOLDER = re.compile(r"<([A-Z][A-Z0-9_]*)>")

# Wrappers that run the rest of the line as a command, with their value-taking options.
_WRAPPERS: dict[str, frozenset[str]] = {
    "sudo": word_set("-u --user -g --group -h --host -p --prompt -C --close-from -D --chdir"),
    "env": word_set("-u --unset -C --chdir -S --split-string"),
    "nice": word_set("-n --adjustment"),
    "ionice": word_set("-c -n"),
    "stdbuf": word_set("-i -o -e"),
    "xargs": word_set("-I -n -P -L -d -s -E -a --max-procs --max-args --delimiter --arg-file"),
    "watch": word_set("-n --interval -d"),
    "timeout": word_set("-s --signal -k --kill-after"),
    **dict.fromkeys(("time", "nohup", "unbuffer", "command", "builtin"), frozenset()),
}
_WRAPPER_POSITIONALS = {"timeout": 1}  # timeout DURATION COMMAND...


def unwrap(words: list[str]) -> tuple[list[str], str | None]:
    """Strip wrappers and VAR=value prefixes; return the real command, or why there is none."""
    while words:
        head = words[0].rsplit("/", 1)[-1]
        if _ASSIGNMENT.match(words[0]):
            words = words[1:]
            continue
        if head not in _WRAPPERS:
            return words, None
        value_flags = _WRAPPERS[head]
        i = 1
        while i < len(words) and words[i].startswith("-") and words[i] != "-":
            i += 2 if words[i] in value_flags else 1
        while head == "env" and i < len(words) and _ASSIGNMENT.match(words[i]):
            i += 1
        i += _WRAPPER_POSITIONALS.get(head, 0)
        if i >= len(words):
            if head == "env":
                return ["env"], None
            return [], f"{head} " + ("opens a root shell" if head == "sudo" else "has no command")
        words = words[i:]
    return words, None


def split_stages(tokens: Sequence[str]) -> tuple[list[list[str]], list[str]]:
    """Split tokens on shell operators; collect the files that redirections write."""
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
    return [s for s in stages if s], writes


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


def tokenize(command: str) -> list[str] | None:
    """Shell words and operators of ``command``; None when its quotes do not balance."""
    text = _PLACEHOLDER.sub(r"_\1_", command)  # <INSTANCE_ID> is a word, not two redirections
    text = text.replace("\\\n", " ").replace("\r", "\n").replace("\n", " ; ")
    text = text.replace("`", " ; ")
    lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        return list(lexer)
    except ValueError:
        return None
