"""Xid numbers: parsing the driver's formats and classifying per NVIDIA's catalogue."""

from __future__ import annotations

import pytest

from tools.explain import classify_xid, explain, find_xids


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("NVRM: Xid (PCI:0000:53:00): 79, pid=2171, name=python, GPU has fallen off the bus.", 79),
        ("[Mon Nov 30 06:53:12 2026] NVRM: Xid (PCI:0000:b9:00): 48, pid='<unknown>'", 48),
        ("Xid 79", 79),
        ("XID 94 on GPU 3", 94),
        ("xid=63 reported by HMA", 63),
        ("saw Xid error 74 twice", 74),
        ("Xid: 119 GSP timeout", 119),
        ("NVRM: Xid (43, pid: 5678): ROBUST_CHANNEL_RESETCHANNEL_VERIF_ERROR", 43),
        ("节点报 Xid 79 错误", 79),
    ],
)
def test_parses_the_xid_number(text: str, expected: int) -> None:
    assert [number for number, _ in find_xids(text)] == [expected]


def test_ignores_sxid_and_words_without_numbers() -> None:
    assert find_xids("SXid (PCI:0000:06:00.0): 12028, Non-fatal") == []
    assert find_xids("XidHardwareFailure detected") == []
    assert find_xids("an Xid error happened") == []


def test_finds_every_xid_in_order() -> None:
    log = (
        "Xid (PCI:0000:01:00): 62, x\nXid (PCI:0000:01:00): 45, pid=1\nXid (PCI:0000:01:00): 79, y"
    )
    assert [n for n, _ in find_xids(log)] == [62, 45, 79]


@pytest.mark.parametrize(
    ("number", "kind", "section_id"),
    [
        (13, "application", "G.2"),
        (31, "application", "G.2"),
        (43, "application", "G.2"),
        (45, "follow-on", "G.2"),
        (48, "hardware", "G.3"),
        (63, "remap", "G.1.a"),
        (64, "hardware", "G.1.a"),
        (74, "hardware", "G.2"),
        (79, "hardware", "G.2"),
        (92, "hardware", "G.3"),
        (94, "hardware", "G.3"),
        (95, "hardware", "G.3"),
        (109, "hardware", "G.2"),
        (119, "hardware", "G.2"),
        (120, "hardware", "G.2"),
        (154, "recovery-action", "G.2"),
        (999, "unknown", "G.2"),
    ],
)
def test_classification(number: int, kind: str, section_id: str) -> None:
    info = classify_xid(number)
    assert (info.kind, info.section) == (kind, section_id)


@pytest.mark.parametrize(
    ("text", "best"),
    [
        ("NVRM: Xid (PCI:0000:53:00): 79, pid=1234, GPU has fallen off the bus.", "G.2"),
        (
            "NVRM: Xid (PCI:0000:3b:00): 63, pid=1, Row Remapper: New row marked for remapping",
            "G.1.a",
        ),
        ("NVRM: Xid (PCI:0000:3b:00): 64, pid=1, Row Remapper Error", "G.1.a"),
        ("NVRM: Xid (PCI:0000:3b:00): 48, pid=1, DBE (double bit error)", "G.3"),
        ("NVRM: Xid (PCI:0000:3b:00): 95, pid=1, Uncontained", "G.3"),
        ("NVRM: Xid (PCI:0000:3b:00): 109, pid=1, Ctx timeout", "G.2"),
        (
            "NVRM: Xid (PCI:0000:3b:00): 154, GPU recovery action changed from 0x0 (None) to "
            "0x2 (Node Reboot Required)",
            "G.2",
        ),
    ],
)
def test_xid_drives_the_best_section(text: str, best: str) -> None:
    assert explain(text).matches[0].section == best


def test_hardware_xid_outranks_application_xid() -> None:
    result = explain("Xid 13 then Xid 48")
    assert result.matches[0].section == "G.3"
    assert any("application level" in m.why for m in result.matches if m.section == "G.2")


def test_xid_numbers_reach_the_identifiers() -> None:
    assert explain("Xid 79, later Xid 48, again Xid 79").identifiers.xids == [48, 79]


def test_xid_63_advice_is_the_remap_path() -> None:
    result = explain("NVRM: Xid (PCI:0000:3b:00): 63, pid=1, Row Remapper: New row marked")
    assert result.matches[0].section == "G.1.a"
    assert "reboot to apply the remap" in result.matches[0].why


def test_explain_advises_xid_64_as_the_remediation_table_does() -> None:
    # One advice for Xid 64 wherever it is read: a GPU reset (a reboot) first, then the
    # remapping-failure flag decides; never "replace" on the line alone.
    from tools.explain.xid_catalog import describe_xid
    from tools.remediation import Signal, advice

    described = describe_xid(64)
    assert advice(Signal.XID_REMAP_NOT_RECORDED) in described
    assert "Remapping Failure Occurred" in described
    assert "reboot once, replace the node if it returns" not in described
