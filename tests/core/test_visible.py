"""tools/visible.py: text as a reader sees it, whole and in streamed pieces."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tools.visible import VisibleStream, visible

HIDDEN = (
    "\u200b",  # zero-width space
    "\u200e",  # left-to-right mark
    "\u202e",  # right-to-left override
    "\u202c",  # pop directional formatting
    "\u2066",  # left-to-right isolate
    "\u2060",  # word joiner
    "\ufeff",  # byte-order mark
    "\u00ad",  # soft hyphen
    "\x1b[31m",  # colour
    "\x1b[0m",
    "\x1b]0;title\x07",  # window title
    "\x1b[2K",  # erase line
    "\x00",
    "\x7f",
    "\x9b1m",  # 8-bit CSI
    "\ud800",  # lone surrogate (shown as ?)
    "\u034f",  # combining grapheme joiner
    "\ufe0f",  # variation selector 16: kept only after a symbol
    "\u26a0",  # a symbol that takes one
    "\U000e0020",  # tag space
    "\U000e0101",  # variation selector 18
)


def test_plain_text_is_unchanged() -> None:
    text = "kubectl get nodes -o wide\n\tcolumn\n中文也保持不变"
    assert visible(text) == text


def test_hidden_characters_and_escapes_are_taken_out() -> None:
    assert visible("kube\u200ectl delete node x") == "kubectl delete node x"
    assert visible("sudo \u202ereboot\u202c") == "sudo reboot"
    assert visible("\x1b[8msudo reboot\x1b[0m") == "sudo reboot"
    assert visible("a\u200bb") == "ab"


def test_every_default_ignorable_character_goes() -> None:
    assert visible("kubectl\ufe0f delete namespace x") == "kubectl delete namespace x"
    assert visible("sudo re\U000e0020boot") == "sudo reboot"
    assert visible("a\u034fb\u17b4c\u180fd\u2065e\ufff0f\U0001d173g\U000e01efh") == "abcdefgh"


def test_an_emoji_keeps_its_presentation_selector() -> None:
    """U+FE0F after a symbol is part of the glyph (⚠️, ‼️); after a letter it is nothing."""
    assert visible("\u26a0\ufe0f careful \u203c\ufe0f") == "\u26a0\ufe0f careful \u203c\ufe0f"
    assert visible("\u2764\ufe0e") == "\u2764\ufe0e"
    assert visible("x\ufe0f \u26a0\u200b\ufe0f \u26a0\ufe0f\ufe0f") == "x \u26a0 \u26a0\ufe0f"
    assert visible("\u26a0\ufe00") == "\u26a0"  # other selectors are not presentation
    stream = VisibleStream()
    shown = stream.feed("note \u26a0") + stream.feed("\ufe0f") + stream.flush()
    assert shown == "note \u26a0\ufe0f"


def test_line_breaks_become_newlines() -> None:
    assert visible("a\r\nb\rc\u2028d\u2029e") == "a\nb\nc\nd\ne"


@given(
    st.lists(
        st.one_of(
            st.text(alphabet=st.characters(codec="utf-8"), max_size=8), st.sampled_from(HIDDEN)
        ),
        max_size=12,
    ),
    st.lists(st.integers(min_value=0, max_value=200), max_size=6),
)
def test_the_stream_gives_what_the_whole_text_gives(parts: list[str], cuts: list[int]) -> None:
    """Cut anywhere (inside an escape sequence or a CRLF too), joined output is the same."""
    text = "".join(parts)
    points = sorted({min(c, len(text)) for c in cuts})
    pieces = [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]
    stream = VisibleStream()
    out = "".join(stream.feed(piece) for piece in pieces) + stream.flush()
    assert out == visible(text)


@given(st.text(max_size=200))
def test_visible_text_has_nothing_left_to_take_out(text: str) -> None:
    once = visible(text)
    assert visible(once) == once
