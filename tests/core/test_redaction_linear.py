"""Redaction stays correct on adversarial input: 50 KB built by repeating fragments of each
step's own alphabet (the inputs that made the old patterns backtrack for minutes), with a
planted secret inside. The time bound is measured by scripts/bench_redaction.py, not here:
these tests have no deadline and assert what the output holds."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tools.redaction import REDACTED, STEPS, Step, redact_text
from tools.text import clip

from .planted_secrets import PLANTED, Planted

SIZE = 50_000
# Planted in the middle of a text: a marker cut at the very end ("-----BEGIN RSA PRIV")
# holds no secret once text follows it.
INSIDE = tuple(p for p in PLANTED if p.kind != "pem-marker-cut")
_SETTINGS = settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _filler(pieces: list[str], size: int = SIZE) -> str:
    unit = "".join(pieces)
    return (unit * (size // len(unit) + 1))[:size]


def _fragments(step: Step) -> st.SearchStrategy[list[str]]:
    return st.lists(st.sampled_from(step.fragments), min_size=1, max_size=6)


@pytest.mark.parametrize("step", STEPS, ids=lambda s: s.name)
@_SETTINGS
@given(data=st.data())
def test_adversarial_input_of_each_step_keeps_a_planted_secret_out(
    step: Step, data: st.DataObject
) -> None:
    pieces = data.draw(_fragments(step))
    planted: Planted = data.draw(st.sampled_from(INSIDE))
    filler = _filler(pieces)
    text = f"{filler}\n{planted.text}\n{filler[: SIZE // 10]}"
    out = redact_text(text)
    assert planted.secret not in out
    # the step alone terminates on its own adversarial input and only ever removes text
    alone = step.apply(filler)
    assert len(alone) <= len(filler) + len(REDACTED) * (alone.count(REDACTED) + 1)


@_SETTINGS
@given(
    pieces=st.lists(
        st.sampled_from(sorted({f for s in STEPS for f in s.fragments})), min_size=2, max_size=8
    ),
    planted=st.sampled_from(PLANTED),
)
def test_mixed_alphabets_in_a_quoted_message(pieces: list[str], planted: Planted) -> None:
    """What a finding quotes: a 50 KB status message with a secret at its start."""
    out = clip(f"{planted.text}\n{_filler(pieces)}", 300)
    assert len(out) <= 300
    assert " ".join(planted.secret.split())[:8] not in out


def test_the_issue_input_is_redacted_unchanged() -> None:
    """The 40 KB run of `a.` that took minutes: nothing in it is a secret."""
    text = "status: " + "a." * 20_000 + " done"
    assert redact_text(text) == text
    assert clip(text).startswith("status: a.a.")
