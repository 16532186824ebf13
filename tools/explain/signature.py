"""The shape of one error signature, and helpers to write signature tables as data."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from tools.explain.anchors import anchors_for

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


@dataclass(frozen=True)
class Signature:
    """One family of error wording that points at a reference section.

    ``why`` is a short human explanation; the matcher appends the quoted text that matched.
    ``context`` must also match somewhere in the text for the signature to count, and
    ``unless`` suppresses it when it matches anywhere. The regex is compiled on first use:
    most texts are ruled out by the literal ``anchors`` before it is needed.
    """

    id: str
    section: str
    weight: float
    regex: str
    flags: int
    why: str
    checks: tuple[str, ...] = ()
    context: re.Pattern[str] | None = None
    unless: re.Pattern[str] | None = None
    anchors: tuple[str, ...] | None = None

    @property
    def pattern(self) -> re.Pattern[str]:
        return _compile(self.regex, self.flags)

    def may_match(self, lowered: str) -> bool:
        """Cheap pre-check on lower-cased text: can the pattern match at all?"""
        return self.anchors is None or any(a in lowered for a in self.anchors)


@cache
def _compile(regex: str, flags: int) -> re.Pattern[str]:
    return re.compile(regex, flags)


def _join(alternatives: tuple[str, ...]) -> str:
    return "|".join(f"(?:{a})" for a in alternatives)


def _flags(case: bool) -> int:
    return 0 if case else re.IGNORECASE


def rx(*alternatives: str, case: bool = False) -> re.Pattern[str]:
    """Compile regex alternatives into one pattern (case-insensitive unless ``case``)."""
    return _compile(_join(alternatives), _flags(case))


def sig(
    id: str,
    section: str,
    weight: float,
    why: str,
    *alternatives: str,
    checks: tuple[str, ...] = (),
    context: re.Pattern[str] | None = None,
    unless: re.Pattern[str] | None = None,
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
        anchors=anchors_for(alternatives),
    )


def word(text: str) -> str:
    """A regex for ``text`` bounded by non-ASCII-word characters.

    Unlike ``\\b`` this also matches inside Chinese text, where customers write English
    terms with no spaces around them (e.g. "被OOM了").
    """
    return rf"(?<![A-Za-z0-9_])(?:{text})(?![A-Za-z0-9_])"
