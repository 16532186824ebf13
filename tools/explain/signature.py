"""The shape of one error signature, and helpers to write signature tables as data."""

from __future__ import annotations

import re
from typing import NamedTuple

from tools.explain.anchors import Anchors, Regex, anchors_of, compiled

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


def _join(alternatives: tuple[str, ...]) -> str:
    return "|".join(f"(?:{a})" for a in alternatives)


def _flags(case: bool) -> int:
    return 0 if case else re.IGNORECASE


def rx(*alternatives: str, case: bool = False) -> Regex:
    """Regex alternatives as one pattern (case-insensitive unless ``case``), compiled only
    when a signature that matched needs it as its context or exception."""
    return Regex(_join(alternatives), _flags(case))


def sig(
    id: str,
    section: str,
    weight: float,
    why: str,
    *alternatives: str,
    checks: tuple[str, ...] = (),
    context: Regex | re.Pattern[str] | None = None,
    unless: Regex | re.Pattern[str] | None = None,
    case: bool = False,
) -> Signature:
    return Signature(
        id=id,
        section=section,
        weight=weight,
        regex=_join(alternatives),
        flags=_flags(case),
        why=why,
        checks=checks,
        context=context,
        unless=unless,
    )


def word(text: str) -> str:
    """A regex for ``text`` bounded by non-ASCII-word characters.

    Unlike ``\\b`` this also matches inside Chinese text, where customers write English
    terms with no spaces around them (e.g. "被OOM了").
    """
    return rf"(?<![A-Za-z0-9_])(?:{text})(?![A-Za-z0-9_])"
