"""The shape of one error signature, and helpers to write signature tables as data."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

from tools.explain.anchors import Anchors, Regex, anchors_of, compiled
from tools.signals.alternation import alternation, regex_flags, word

# `word` is the shared helper (tools.signals), re-exported for the tables that import it here.
__all__ = [
    "DESCRIBE_CLUSTER",
    "DESCRIBE_NODE",
    "LIST_EVENTS",
    "LIST_NODES",
    "TRIAGE",
    "TRIAGE_NODE",
    "Signature",
    "rx",
    "sig",
    "word",
]

# Next checks are read-only commands; placeholders in angle brackets are filled from the
# identifiers found in the text when there is exactly one candidate.
TRIAGE = "hyperpod-debug triage --cluster <CLUSTER> --region <REGION>"
TRIAGE_NODE = f"{TRIAGE} --node <INSTANCE_ID>"
DESCRIBE_CLUSTER = "aws sagemaker describe-cluster --cluster-name <CLUSTER> --region <REGION>"
LIST_EVENTS = "aws sagemaker list-cluster-events --cluster-name <CLUSTER> --region <REGION>"
LIST_NODES = "aws sagemaker list-cluster-nodes --cluster-name <CLUSTER> --region <REGION>"
DESCRIBE_NODE = (
    "aws sagemaker describe-cluster-node --cluster-name <CLUSTER> --node-id <INSTANCE_ID>"
    " --region <REGION>"
)


# A NamedTuple, not a frozen dataclass: built at every start-up, where a dataclass
# costs about a millisecond to build (issue 12, item 5).
class Signature(NamedTuple):
    """One family of error wording that points at a reference section.

    ``why`` is a short human explanation; the matcher appends the quoted text that matched.
    ``context`` must also match somewhere in the text for the signature to count, and
    ``unless`` suppresses it when it matches anywhere. The regex is compiled on first use:
    most texts are ruled out by the literal ``anchors`` before it is needed, and the
    anchors come from a precomputed index (tools.explain.anchors).
    """

    id: str
    section: str
    weight: float
    regex: str
    flags: int
    why: str
    checks: tuple[str, ...] = ()
    context: Regex | re.Pattern[str] | None = None
    unless: Regex | re.Pattern[str] | None = None

    @property
    def pattern(self) -> re.Pattern[str]:
        return compiled(self.regex, self.flags)

    @property
    def anchors(self) -> Anchors | None:
        return anchors_of(self.regex)

    def may_match(self, folded: str) -> bool:
        """Cheap pre-check on the folded text (``anchors.fold``): can the pattern match?"""
        keys = anchors_of(self.regex)
        return keys is None or any(a in folded for a in keys)


def rx(*alternatives: str, case: bool = False) -> Regex:
    """Regex alternatives as one pattern (case-insensitive unless ``case``), compiled only
    when a signature that matched needs it as its context or exception."""
    return Regex(alternation(alternatives), regex_flags(case))


@dataclass(frozen=True, slots=True)
class Matching:
    """How a signature's alternatives match: case-insensitively unless `case`, and only
    where the text also holds `context` and does not hold `unless`."""

    case: bool = False
    context: Regex | re.Pattern[str] | None = None
    unless: Regex | re.Pattern[str] | None = None


PLAIN = Matching()


def sig(
    id: str,
    section: str,
    weight: float,
    why: str,
    *alternatives: str,
    checks: tuple[str, ...] = (),
    matching: Matching = PLAIN,
) -> Signature:
    return Signature(
        id=id,
        section=section,
        weight=weight,
        regex=alternation(alternatives),
        flags=regex_flags(matching.case),
        why=why,
        checks=checks,
        context=matching.context,
        unless=matching.unless,
    )
