"""§ G.1.b gpu-dcgm: the rule alone, on parsed reports, without its words."""

from __future__ import annotations

from tools.checks.gpu_dcgm import DcgmVerdict, dcgm_verdict
from tools.parsers.dcgm import DcgmHealth


def test_unanswered_reports_say_why_dcgm_was_not_read() -> None:
    assert dcgm_verdict(DcgmHealth("not-installed")) is DcgmVerdict.NOT_INSTALLED
    assert dcgm_verdict(DcgmHealth("no-watches")) is DcgmVerdict.NO_WATCHES
    assert dcgm_verdict(DcgmHealth("error", error="no host engine")) is DcgmVerdict.UNREAD
    assert dcgm_verdict(DcgmHealth("unparsed", overall="Failure")) is DcgmVerdict.UNREAD


def test_overall_health_decides_a_read_report() -> None:
    assert dcgm_verdict(DcgmHealth("ok", overall="Failure")) is DcgmVerdict.FAILURE
    assert dcgm_verdict(DcgmHealth("ok", overall="Warning")) is DcgmVerdict.WARNING
    assert dcgm_verdict(DcgmHealth("ok", overall="Healthy")) is DcgmVerdict.HEALTHY


def test_an_unknown_or_missing_overall_is_unrecognised() -> None:
    assert dcgm_verdict(DcgmHealth("ok", overall="Degraded")) is DcgmVerdict.UNRECOGNISED_OVERALL
    assert dcgm_verdict(DcgmHealth("ok")) is DcgmVerdict.UNRECOGNISED_OVERALL
