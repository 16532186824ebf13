"""The prose of an answer, for judging its language: what the model wrote in its own words,
without code blocks, inline code, quotations, quoted report lines, ids and command-like
tokens (Latin in both languages), nor a passage it repeats from the user's messages."""

from __future__ import annotations

import re

from agent.state import Language

_CODE = re.compile(r"```.*?```|`[^`\n]*`", re.DOTALL)
_QUOTES = re.compile(r"“[^”\n]*”|\"[^\"\n]*\"|「[^」\n]*」|『[^』\n]*』|‘[^’\n]*’")
_BLOCKQUOTE = re.compile(r"^\s*>.*$", re.MULTILINE)
_REPORT_LINE = re.compile(r"\[(?:FAIL|WARN|PASS|INFO)\][^\n]*")
# Ids, paths, flags, versions: anything with a digit, a dot, a slash, a dash or an underscore
# inside a Latin word is not prose.
_TOKEN = re.compile(r"[\w.:/@§-]*[\d._/:@-][\w.:/@-]*")
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff，、：（）]{4,}")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")


def prose(text: str, user_text: str = "") -> str:
    text = _CODE.sub(" ", text)
    text = _BLOCKQUOTE.sub(" ", text)
    text = _QUOTES.sub(" ", text)
    text = _REPORT_LINE.sub(" ", text)
    for run in set(_CJK_RUN.findall(text)):
        if run in user_text:
            text = text.replace(run, " ")
    return _TOKEN.sub(" ", text)


def prose_language(text: str) -> Language | None:
    """The language of the prose, by its share of Chinese characters against Latin words
    (a Chinese word is about two characters); None when there is too little to say."""
    cjk = len(_CJK.findall(text))
    latin = len(_LATIN_WORD.findall(text))
    if cjk + latin < 3:
        return None
    return "zh" if cjk >= 2 * latin else "en"
