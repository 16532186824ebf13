"""Huge values from the cluster are cut before any per-character work: a probe line before
the parsers read it, a quoted value before escapes and redaction look at it. No timing
here (scripts/bench_hostile.py prints the 50 MB figures): the tests check what is cut,
where, and that the result is what the whole value would have given."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from agent.cli import app
from tools.probes.model import MAX_PROBE_LINE, ProbeOutput
from tools.redaction import REDACTED
from tools.text import CLIP, WINDOW, clip
from tools.visible import clip_long_lines

from ._corpus import base_recording

KEY = "AKIAIOSFODNN7EXAMPLE"  # AWS's documented example access key id


def test_long_lines_are_cut_and_short_ones_kept() -> None:
    text = "short\n" + "x" * 50 + "\n\n" + "y" * 10 + "\nlast"
    assert clip_long_lines(text, 20) == "short\n" + "x" * 20 + "…\n\n" + "y" * 10 + "\nlast"
    assert clip_long_lines(text, 1_000) is text
    assert clip_long_lines("z" * 21, 20) == "z" * 20 + "…"
    assert clip_long_lines("z" * 20, 20) == "z" * 20
    # A line of exactly the limit followed by more lines stays whole.
    assert clip_long_lines("a" * 20 + "\n" + "b" * 21, 20) == "a" * 20 + "\n" + "b" * 20 + "…"


def test_a_probe_output_holds_no_line_over_the_limit() -> None:
    huge = "Xid 79 " * (MAX_PROBE_LINE // 3)
    output = ProbeOutput(stdout=f"[  1.0] first\n{huge}\n[  2.0] NVRM: Xid 48\n")
    lines = output.stdout.split("\n")
    assert max(len(line) for line in lines) <= MAX_PROBE_LINE + 1
    assert lines[0] == "[  1.0] first"
    assert lines[2] == "[  2.0] NVRM: Xid 48"  # what follows the long line is still read
    assert lines[1].endswith("…")


def test_a_replayed_probe_output_is_cut_as_a_live_one() -> None:
    """A recording may hold a longer line (written by hand): replay cuts it when it makes
    the probe output, both for a plain string and for a record with a status."""
    from tools.recorded.model import ProbeRecord
    from tools.triage.node_sources import _output

    line = "x" * (MAX_PROBE_LINE + 10)
    cut = "x" * MAX_PROBE_LINE + "…"
    assert _output(f"a\n{line}\nb").stdout == f"a\n{cut}\nb"
    record = ProbeRecord(stdout=line, exit_code=None, truncated=True)
    assert (_output(record).stdout, _output(record).truncated) == (cut, True)


def test_clip_looks_at_a_window_and_still_marks_the_cut() -> None:
    value = "a" * (CLIP + WINDOW + 10)
    clipped = clip(value)
    assert len(clipped) <= CLIP
    assert clipped.endswith("…")
    # Invisible characters filling the window: what is left is short, yet not the value.
    hidden = "\u200b" * (CLIP + WINDOW) + "visible text"
    assert clip(hidden) == "…"
    # A secret at the start of a huge value is still redacted whole.
    assert clip(f"key {KEY} " + "b" * (2 * WINDOW)).startswith(f"key {REDACTED}")


def test_a_clip_of_a_huge_value_equals_the_clip_of_its_window() -> None:
    """The window changes nothing a reader sees: the shown part is the same."""
    head = "NVRM: Xid 79, GPU has fallen off the bus \x1b[31m" * 10
    whole = head + "c" * (3 * WINDOW)
    assert clip(whole) == clip(whole[: CLIP + WINDOW + 1])


def _recording(tmp_path: Path, size: int) -> Path:
    raw = base_recording()
    line = "NVRM: Xid 13, pid=1234 " * (size // 23)
    for outputs in raw["probes"].values():
        for name, record in outputs.items():
            if isinstance(record, dict):
                record["stdout"] = f"{record.get('stdout', '')}\n{line}\n"
            else:
                outputs[name] = f"{record}\n{line}\n"
    for call in raw["aws"]:
        if call["operation"] == "ListClusterNodes" and call.get("response"):
            for node in call["response"]["ClusterNodeSummaries"]:
                node["InstanceStatus"]["Message"] = line
    path = tmp_path / "huge.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    return path


def test_a_triage_with_a_huge_line_in_every_probe_and_status() -> None:
    """1 MB lines in every probe output and every node's status message: the triage
    completes with findings, and every message and the whole report stay short."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = _recording(Path(folder), 1_000_000)
        result = CliRunner().invoke(app, ["triage", "--recorded", str(path), "--format", "json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["findings"]
    longest = max(len(finding["message"]) for finding in report["findings"])
    assert longest < 4_000
    assert len(result.output) < 200_000
