"""explain(triage_step=...): where a cluster is already open (the chat), every
`hyperpod-debug triage --cluster ...` next step is given as that step instead."""

from __future__ import annotations

import pytest

from tools.explain.engine import TRIAGE_PREFIX, explain
from tools.explain.render import render_text

SIGNALS = [
    "NCCL WARN NET/OFI no route to host",  # signature matches
    "NVRM: Xid (PCI:0000:a8:00): 79, GPU has fallen off the bus on i-0123456789abcdef0",
    "my training job is slow and the storage mount looks odd",  # wording guesses
    "nothing that matches anything at all",  # no match: the message names the step
]


@pytest.mark.parametrize("text", SIGNALS)
def test_the_triage_step_replaces_every_triage_command(text: str) -> None:
    plain = explain(text)
    stepped = explain(text, triage_step="/triage")
    assert TRIAGE_PREFIX in render_text(plain)
    shown = render_text(stepped)
    assert TRIAGE_PREFIX not in shown
    assert "/triage" in shown
    # Same sections, same order; only the triage step changed, and is listed once.
    assert [m.section for m in stepped.matches] == [m.section for m in plain.matches]
    for match in stepped.matches:
        assert match.next_checks.count("/triage") <= 1
        others = [c for c in match.next_checks if c != "/triage"]
        assert others == [
            c
            for c in next(p for p in plain.matches if p.section == match.section).next_checks
            if not c.startswith(TRIAGE_PREFIX)
        ]
