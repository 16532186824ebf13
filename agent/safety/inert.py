"""Text from the model's input made inert for Markdown before it is shown.

The purpose is one line, markup escaped, clipped, and the neutral default when it holds a
command of its own (`_purpose`); the section and the blast radius are inert lines too
(`inert_line`). (Targets hold no backtick, and the template fences the command with a
backtick run longer than any inside it: see `agent.safety.suggest`.)"""

from __future__ import annotations

import re

from agent.safety.extract import find_commands
from agent.safety.shell import judge
from tools.redaction import redact_output
from tools.visible import clip_line, visible

_PURPOSE_CHARS = 300
_PURPOSE_READ = 2_000  # of a purpose, read for a command of its own
# Characters Markdown acts on inside a line, escaped with a backslash.
_MARKDOWN_ACTIVE = re.compile(r"([\\*_#<>\[\]|~])")
_LIST_START = re.compile(r"(\d{1,9})([.)])")


def inert_line(text: str, limit: int) -> str:
    """``text`` as one line of plain text that Markdown shows as written: whitespace
    collapsed, invisible characters dropped (`tools.visible`), secrets redacted whole
    before the clip, backticks turned into quotes, characters Markdown acts on escaped,
    clipped to ``limit`` characters (before escaping; never inside a secret-shaped token)."""
    line = clip_line(redact_output(visible(text.replace("`", "'"))), limit)
    line = _MARKDOWN_ACTIVE.sub(r"\\\1", line)
    if line[:1] in ("-", "+"):
        line = "\\" + line  # not a list item
    return _LIST_START.sub(r"\1\\\2", line, count=1) if _LIST_START.match(line) else line


def _runs_a_command(text: str) -> bool:
    """Does ``text`` hold a command the gate would turn into a suggestion?"""
    for variant in (text, " ".join(text.split())):
        if any(judge(f.command).kind != "read_only" for f in find_commands(variant)):
            return True
    return False


def _purpose(purpose: str, default: str) -> str:
    """The purpose as shown: a line of inert text, or the neutral default when it is
    empty or holds a command of its own (a second, forged command block)."""
    if not purpose.strip() or _runs_a_command(purpose[:_PURPOSE_READ]):
        return default
    return inert_line(purpose, _PURPOSE_CHARS) or default
