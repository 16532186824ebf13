"""The gate works on redacted text (issue 22, class 8): a purpose taken from the text before
a command, its clip, and the note added after a command never hold part of a secret; and
one normalisation (tools/visible.py) hides no command, whatever invisible character or
escape of its set is inserted."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent.safety.gate import StreamGate, guard_text
from agent.safety.suggest import SuggestionContext
from tools.visible import CONTROL, FORMAT, visible

from .secrets_channels import ENVIRONMENT, GATE_PLANTS, ONE_LINE, leaks

CONTEXT = SuggestionContext(triage_done=True)
KEY = "kP3mZ8vQ1xR7tY2uW9eA4sD6fG0hJ5lN3bV8cX1z"  # key-shaped, 40 characters


@pytest.fixture(autouse=True)
def _credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    """The provider's and AWS's credentials, in shapes no pattern knows."""
    for name, value in ENVIRONMENT.items():
        monkeypatch.setenv(name, value)


def _shown(text: str) -> str:
    """Everything the gate lets out: the text and each suggestion's command and purpose."""
    guarded = guard_text(text, CONTEXT)
    parts = [guarded.text]
    for suggestion in guarded.suggestions:
        parts += [suggestion.command, suggestion.purpose]
    return "\n".join(parts)


def _streamed(text: str, step: int = 7) -> str:
    gate = StreamGate(CONTEXT)
    out: list[str] = []
    for start in range(0, len(text), step):
        out += gate.feed(text[start : start + step])
    out += gate.flush()
    return "".join(out) + "\n".join(s.purpose for s in gate.suggestions)


@pytest.mark.parametrize("plant", ONE_LINE + GATE_PLANTS, ids=lambda p: p.kind)
def test_no_cut_of_the_gate_shows_part_of_a_secret(plant: object) -> None:
    from core.planted_secrets import Planted

    assert isinstance(plant, Planted)
    # the clip of a 160-character purpose lands inside the secret, the 600-character look
    # back starts inside it, and the note follows a command written right before it
    texts = [
        f"Rotate what leaked: {plant.text}. To recover, run `sudo reboot` now.",
        "x " * 60 + f"{plant.text} then run sudo reboot",
        f"{plant.text} " + "The node keeps failing. " * 24 + "Run `sudo reboot`.",
        f"Run sudo systemctl restart slurmdbd {plant.text}",
        f"```bash\n# {plant.text}\nsudo reboot\n```",
    ]
    for text in texts:
        assert leaks(_shown(text), (plant,)) == [], text[:120]
        assert leaks(_streamed(text), (plant,)) == [], text[:120]


def test_a_key_before_a_command_is_gone_from_its_purpose() -> None:
    """The issue's case: the first 13 characters of a key-shaped secret reached the
    terminal through a clipped purpose."""
    text = (
        f"The job log shows AWS_SECRET_ACCESS_KEY {KEY} in clear; rotate it and run `sudo reboot`."
    )
    guarded = guard_text(text, CONTEXT)
    assert [s.command for s in guarded.suggestions] == ["sudo reboot"]
    for cut in range(8, 41):
        assert KEY[:cut] not in guarded.text
        assert KEY[:cut] not in guarded.suggestions[0].purpose


def test_the_note_never_comes_between_a_key_word_and_its_value() -> None:
    text = "Then run sudo systemctl restart slurmdbd db_password: Sl0tDbPw88"
    guarded = guard_text(text, CONTEXT)
    assert "Sl0tDbPw88" not in guarded.text
    assert "<redacted>" in guarded.text  # redacted before the note could split the pair


def test_the_gate_output_is_redacted_whole_and_streaming_agrees() -> None:
    text = "\n\n".join(p.text for p in ONE_LINE) + "\n\nThen run `sudo reboot`.\n"
    assert leaks(_shown(text), ONE_LINE) == []
    assert _streamed(text, 5).startswith(guard_text(text, CONTEXT).text)


# -- one normalisation: every character of its set, inserted anywhere --------------------

DATA = Path(__file__).with_name("data") / "hidden_mutations.txt"
COMMANDS = [
    line for line in DATA.read_text("utf-8").splitlines() if line and not line.startswith("#")
]
# Every character tools.visible removes (format, bidi and control characters but the line
# breaks, over all planes), and escape sequences of each family: the set is read from the
# module, so a character added there is covered here.
INVISIBLE = [
    chr(code)
    for code in range(0x110000)
    if (FORMAT.fullmatch(chr(code)) or CONTROL.fullmatch(chr(code))) and chr(code) not in "\r"
]
# Unicode's Default_Ignorable_Code_Point ranges, as DerivedCoreProperties.txt lists them
# (https://www.unicode.org/Public/UCD/latest/ucd/DerivedCoreProperties.txt, Unicode 14.0+):
# written out here so that the module's set is checked against the standard, not itself.
DEFAULT_IGNORABLE = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)  # fmt: skip
# A lone U+009B opens an 8-bit CSI sequence that takes the next letter with it (as a
# terminal would): "\x9bkubectl" is shown, and judged, as "ubectl". It is inserted here only
# as part of a whole sequence; test_a_lone_8_bit_csi_is_judged_as_shown covers it alone.
INSERTED = [c for c in INVISIBLE if c != "\x9b"]
# Drawn from the basic plane and the others alike: the tag characters and the reserved
# ignorables (U+E0000-U+E0FFF) outnumber the rest, and would otherwise be all one meets.
BASIC = [c for c in INSERTED if ord(c) < 0x10000]
ASTRAL = [c for c in INSERTED if ord(c) >= 0x10000]
ESCAPES = ["\x1b[0m", "\x1b[8m", "\x1b[2K", "\x1b]0;title\x07", "\x1b]8;;http://x\x1b\\", "\x9b31m"]
WRAPPERS = ("```bash\n{}\n```", "Run `{}` on the node.", "To fix it: {}")


def test_the_set_is_the_one_module_s() -> None:
    assert len(INVISIBLE) > 60
    ignorable = {chr(c) for first, last in DEFAULT_IGNORABLE for c in range(first, last + 1)}
    assert ignorable <= set(INVISIBLE)
    # (an 8-bit CSI opens a sequence that takes the next letter with it, as a terminal does)
    assert all(visible(f"a{c}b") == "ab" for c in INVISIBLE if c != "\x9b")
    assert all(visible(f"a{e}b") == "ab" for e in ESCAPES)


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(COMMANDS),
    st.sampled_from(WRAPPERS),
    st.lists(
        st.tuples(
            st.integers(min_value=0, max_value=200),
            st.one_of(st.sampled_from(BASIC), st.sampled_from(ASTRAL), st.sampled_from(ESCAPES)),
        ),
        min_size=1,
        max_size=6,
    ),
)
def test_any_invisible_character_or_escape_still_yields_a_flagged_block(
    command: str, wrapper: str, inserts: list[tuple[int, str]]
) -> None:
    hidden = list(command)
    for spot, hider in sorted(inserts, reverse=True):
        hidden.insert(min(spot, len(hidden)), hider)
    guarded = guard_text(wrapper.format("".join(hidden)), CONTEXT)
    assert [s.command for s in guarded.suggestions] == [command]
    assert all(s.mutating for s in guarded.suggestions)
    assert "Suggested command" in guarded.text
    assert visible(guarded.text) == guarded.text


def test_a_lone_8_bit_csi_is_judged_as_shown() -> None:
    """What is left after the sequence is what the gate judges and what the user sees."""
    for command in COMMANDS:
        guarded = guard_text(f"```bash\n\x9b{command}\n```", CONTEXT)
        assert [s.command for s in guarded.suggestions] == [visible(f"\x9b{command}")]
        assert "\x9b" not in guarded.text
