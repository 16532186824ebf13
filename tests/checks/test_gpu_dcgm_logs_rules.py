"""§ G.1.b gpu-dcgm-logs: the rule alone, on literal parsed logs, without its words."""

from __future__ import annotations

from tools.checks.gpu_dcgm_logs import DiagKind, DiagVerdict, diag_verdicts
from tools.parsers.dcgm_logs import DcgmLogs, NvvsLine, NvvsLineKind

LOG = "/var/log/nvidia-dcgm/nvvs.log"
FAILED = NvvsLine(NvvsLineKind.FAILED, "memory test Fail")
REMAP_FAILED = NvvsLine(NvvsLineKind.REMAP_FAILURE, "row remap failure")
PENDING = NvvsLine(NvvsLineKind.REMAP_PENDING, "row remap pending")
ERROR = NvvsLine(NvvsLineKind.ERROR, "could not open device")


def kinds(*lines: NvvsLine) -> list[DiagVerdict]:
    return diag_verdicts(DcgmLogs("ok", newest_log=LOG, lines=lines))


def test_logs_that_cannot_be_judged_say_why() -> None:
    assert diag_verdicts(DcgmLogs("unparsed")) == [DiagVerdict(DiagKind.UNPARSED)]
    assert diag_verdicts(DcgmLogs("denied")) == [DiagVerdict(DiagKind.UNREADABLE)]
    cut = DcgmLogs("ok", newest_log=LOG, problem="tail: Permission denied")
    assert diag_verdicts(cut) == [DiagVerdict(DiagKind.UNREADABLE)]
    assert diag_verdicts(DcgmLogs("missing")) == [DiagVerdict(DiagKind.NO_LOG)]


def test_failures_and_pending_remaps_are_each_reported_with_their_lines() -> None:
    assert kinds(PENDING, FAILED, REMAP_FAILED) == [
        DiagVerdict(DiagKind.FAILED, (FAILED, REMAP_FAILED)),
        DiagVerdict(DiagKind.REMAP_PENDING, (PENDING,)),
    ]


def test_errors_count_only_without_a_failed_test() -> None:
    assert kinds(ERROR, FAILED) == [DiagVerdict(DiagKind.FAILED, (FAILED,))]
    assert kinds(ERROR) == [DiagVerdict(DiagKind.ERRORS_ONLY, (ERROR,))]
    assert kinds() == [DiagVerdict(DiagKind.CLEAN)]
