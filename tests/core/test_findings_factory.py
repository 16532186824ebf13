"""One finding constructor: the shorthands and a check's bound `Findings` build the same."""

from __future__ import annotations

import pytest

from tools.findings import Findings, Priority, Site, Status, fail, finding, info, passed, warn

REPORT = Findings("efa-security-groups", "A")


def test_bound_factory_builds_what_the_shorthands_build() -> None:
    pairs = [
        (
            REPORT.fail(Priority.P0, "no self rule", resources=["sg-1"], group="sg-1"),
            fail(
                "efa-security-groups",
                Priority.P0,
                "A",
                "no self rule",
                resources=["sg-1"],
                group="sg-1",
            ),
        ),
        (
            REPORT.warn(Priority.P2, "egress"),
            warn("efa-security-groups", Priority.P2, "A", "egress"),
        ),
        (REPORT.passed("ok", count=2), passed("efa-security-groups", "A", "ok", count=2)),
        (REPORT.info("note"), info("efa-security-groups", "A", "note")),
    ]
    for bound, shorthand in pairs:
        assert bound == shorthand
    assert [bound.status for bound, _ in pairs] == [
        Status.FAIL,
        Status.WARN,
        Status.PASS,
        Status.INFO,
    ]


def test_a_finding_can_point_to_another_section_than_its_checks() -> None:
    made = REPORT.at("B.4").fail(Priority.P1, "egress")
    assert (made.section, made.check) == ("B.4", "efa-security-groups")
    assert REPORT.info("x").section == "A"


def test_an_unknown_section_fails_when_the_check_binds_it() -> None:
    with pytest.raises(KeyError):
        Findings("some-check", "Z.9")


def test_the_constructor_still_validates() -> None:
    with pytest.raises(ValueError, match="needs a priority"):
        finding(Site("some-check", "A"), Status.FAIL, "no priority")
    made = finding(Site("some-check", "A"), Status.PASS, "fine")
    assert (made.resources, made.evidence, made.priority) == ([], {}, None)


def test_a_check_registers_with_its_bound_id_and_section() -> None:
    from tools import registry

    bound = Findings("factory-test-check", "B.4")

    def run(data: object) -> list[object]:
        """A check used only by this test."""
        return []

    registry.check(bound, title="Factory test")(run)  # type: ignore[arg-type]
    try:
        spec = registry._REGISTRY["factory-test-check"]
        assert (spec.id, spec.section, spec.title) == ("factory-test-check", "B.4", "Factory test")
    finally:
        del registry._REGISTRY["factory-test-check"]


def test_a_check_cannot_name_two_sections_or_none() -> None:
    from tools import registry

    with pytest.raises(ValueError, match="not its own"):
        registry.check(Findings("factory-test-check", "B.4"), title="t", section="A")
    with pytest.raises(ValueError, match="needs a section"):
        registry.check("factory-test-check", title="t")
