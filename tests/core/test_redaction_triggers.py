"""The trigger pre-filter of redaction (issue 12): `redact_text` runs its steps only on a
text that holds some step's trigger, so a trigger must be a necessary condition of its step:
a text the pre-filter skips is a text no step would have changed. These tests hold that
true on the planted secrets, on each step's adversarial fragments and on random text, and
check that the ordinary strings of a recording do take the fast path."""

from __future__ import annotations

import re
from functools import reduce

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tools import redaction
from tools.redaction import STEPS, AccountMasker, Step, may_hold_secret, redact, redact_text

from .planted_secrets import KEPT, PLANTED, Planted


def every_step(text: str) -> str:
    """Redaction without the pre-filter: every step, in order."""
    return reduce(lambda current, step: step.apply(current), STEPS, text)


@pytest.mark.parametrize("planted", PLANTED, ids=lambda p: p.kind)
def test_the_pre_filter_never_skips_a_planted_secret(planted: Planted) -> None:
    assert may_hold_secret(planted.text)
    # ... and each step that changes the text alone finds its own trigger in it
    for step in STEPS:
        if step.apply(planted.text) != planted.text:
            assert step.trigger.found_in(planted.text), (planted.kind, step.name)


@pytest.mark.parametrize("planted", PLANTED, ids=lambda p: p.kind)
def test_a_planted_secret_in_other_case_or_lookalike_letters_is_not_skipped(
    planted: Planted,
) -> None:
    """Upper case, and the non-ASCII letters `(?i)` matches as ASCII (ſ as s, K as k):
    the pre-filter lowers ASCII text only and searches any other text under (?i)."""
    for text in (
        planted.text.upper(),
        planted.text.replace("s", "ſ"),
        planted.text.replace("k", "\u212a"),
        "é " + planted.text,  # the same text, non-ASCII
    ):
        assert redact_text(text) == every_step(text), (planted.kind, text)


def test_lookalike_letters_in_a_secret_name_are_redacted() -> None:
    for text in ("DB_PAſſWORD=hunter2", "OPENAI_\u212aEY=abc", "paſſword: hunter2x"):
        assert may_hold_secret(text)
        assert redact_text(text).endswith("<redacted>"), text


@pytest.mark.parametrize("line", KEPT)
def test_kept_lines_come_back_the_same_with_or_without_the_pre_filter(line: str) -> None:
    assert redact_text(line) == every_step(line) == line


@pytest.mark.parametrize(
    "value",
    [
        "Running",
        "True",
        "kube-system",
        "2026-11-10T12:00:00Z",
        "ml.p5.48xlarge",
        "us-west-2",
        "10.1.22.134",
        "hyperpod-i-0123456789abcdef0",
        "aws:///us-west-2a/i-0123456789abcdef0",
        "ip-10-1-22-134.us-west-2.compute.internal",
        "sagemaker.amazonaws.com/node-health-status",
        "kubelet is posting ready status",
        "arn:aws:sagemaker:us-west-2:111122223333:cluster/abcdef123456",
        "602401143452.dkr.ecr.us-west-2.amazonaws.com/amazon-k8s-cni:v1.18.1-eksbuild.1",
        "Lifecycle scripts completed successfully on i-0123456789abcdef0",
    ],
)
def test_ordinary_values_of_a_recording_take_the_fast_path(value: str) -> None:
    """The point of the pre-filter: names, states, times and addresses hold no trigger."""
    assert not may_hold_secret(value)
    assert redact_text(value) is value


def test_triggers_join_into_one_pattern() -> None:
    """`_TRIGGER_PATTERN` joins the patterns with a bare `|`: that is their union only if
    none has a group of its own or a global flag; words are lower-case ASCII."""
    for step in STEPS:
        trigger = step.trigger
        assert trigger.pattern or trigger.words or trigger.run, step.name
        if trigger.pattern:
            compiled = re.compile(trigger.pattern)
            assert compiled.groups == 0, step.name
            assert compiled.flags == re.UNICODE, step.name
        for word in trigger.words:
            assert re.fullmatch("[a-z]+", word), (step.name, word)


def test_the_clean_set_keeps_only_short_strings_without_a_trigger_and_stays_bounded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Short strings seen to hold no trigger are remembered; nothing else is, and the set
    is emptied when full."""
    clean: set[str] = set()
    monkeypatch.setattr(redaction, "_CLEAN", clean)
    monkeypatch.setattr(redaction, "_CLEAN_SIZE", 8)
    for index in range(50):
        value = f"worker-{index}"
        assert redact_text(value) == value
        assert redact_text(value) == value  # the second time from the set
        assert len(clean) <= 8
    assert "worker-49" in clean
    for planted in PLANTED:
        first = redact_text(planted.text)
        assert redact_text(planted.text) == first == every_step(planted.text)
        assert planted.text not in clean
    assert all(len(value) <= 64 and not may_hold_secret(value) for value in clean)
    long = "kubelet is posting ready status " * 3
    assert redact_text(long) == long
    assert long not in clean


# -- random and adversarial text --------------------------------------------------------------

_PIECES = sorted(
    {f for s in STEPS for f in s.fragments}
    | {p.text for p in PLANTED}
    | set(KEPT)
    | {"ſ", "\u212a", "İ", "ı", "é", "密码", "是", ":", "=", " ", "\n", '"', "'", "-", "_", "@"}
    | {"://", "PASS", "Key", "VALUE", "aws configure set", "Basic ", "Bearer ", "x" * 40}
)


@settings(max_examples=400, deadline=None)
@given(pieces=st.lists(st.sampled_from(_PIECES), min_size=1, max_size=8))
def test_the_pre_filter_changes_nothing_on_mixed_pieces(pieces: list[str]) -> None:
    text = "".join(pieces)
    expected = every_step(text)
    assert redact_text(text) == expected
    if expected != text:
        assert may_hold_secret(text)


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=120))
def test_the_pre_filter_changes_nothing_on_random_text(text: str) -> None:
    assert redact_text(text) == every_step(text)


@pytest.mark.parametrize("step", STEPS, ids=lambda s: s.name)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_each_trigger_is_necessary_on_its_step_fragments(step: Step, data: st.DataObject) -> None:
    """A text made of the step's own fragments (and a planted secret) that the step
    changes holds the step's trigger."""
    pieces = data.draw(st.lists(st.sampled_from(step.fragments), min_size=1, max_size=12))
    planted = data.draw(st.sampled_from(PLANTED))
    for text in ("".join(pieces), "".join(pieces) + planted.text, planted.text + "".join(pieces)):
        if step.apply(text) != text:
            assert step.trigger.found_in(text), text


# -- structures -----------------------------------------------------------------------------


def test_structures_redact_by_key_name_and_value_as_before() -> None:
    data = {
        "metadata": {"name": "hyperpod-i-0123", "labels": {"app": "x"}},
        "Credentials": {"SecretAccessKey": "abc"},
        "NextToken": "page-2",
        "status": {
            "message": "export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
        },
        "env": [{"name": "HF_TOKEN", "value": "hf_x"}, {"name": "HOME", "value": "/root"}],
        7: "123456789012",
    }
    out = redact(data, mask_account=True)
    assert out["metadata"] == data["metadata"]
    assert out["Credentials"] == "<redacted>"
    assert out["NextToken"] == "page-2"
    assert out["status"]["message"] == "export AWS_SECRET_ACCESS_KEY=<redacted>"
    assert out["env"] == [
        {"name": "HF_TOKEN", "value": "<redacted>"},
        {"name": "HOME", "value": "/root"},
    ]
    assert out[7] == "111122223333"


def test_account_masker_masks_an_id_of_exactly_twelve_digits_and_skips_shorter_text() -> None:
    masker = AccountMasker()
    assert masker.mask("123456789012") == "111122223333"
    assert masker.mask("12345678901") == "12345678901"
    assert masker.mask("arn:aws:iam::210987654321:role/x") == "arn:aws:iam::444455556666:role/x"
