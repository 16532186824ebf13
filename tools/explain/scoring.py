"""Turn signature hits into ranked sections.

A signature that matches n times adds weight × (2 − 0.5ⁿ⁻¹): repeats count, with
diminishing returns (at most twice the weight). A section lends a share of its own score
to each ancestor (G.1.a → G.1 and G). Ranking is by score, ties broken by section order.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import NamedTuple

from tools.sections import SECTIONS

LEND = 0.25
_ORDER = {section_id: index for index, section_id in enumerate(SECTIONS)}


@dataclass(frozen=True)
class Hit:
    signal: str
    section: str
    weight: float
    why: str
    quote: str
    count: int
    checks: tuple[str, ...]

    @property
    def contribution(self) -> float:
        return self.weight * (2 - 0.5 ** (self.count - 1))


# A NamedTuple, not a frozen dataclass: built at every start-up, where a dataclass
# costs about a millisecond to build (issue 12, item 5).
class SectionScore(NamedTuple):
    section: str
    own: float
    lent: float
    hits: tuple[Hit, ...]  # this section's own hits, strongest first
    lenders: tuple[str, ...]  # descendant sections that lent to it

    @property
    def total(self) -> float:
        return self.own + self.lent


def ancestors(section_id: str) -> list[str]:
    parts = section_id.split(".")
    return [".".join(parts[:i]) for i in range(len(parts) - 1, 0, -1)]


def rank(hits: list[Hit]) -> list[SectionScore]:
    by_section: dict[str, list[Hit]] = defaultdict(list)
    for hit in hits:
        by_section[hit.section].append(hit)
    own = {s: sum(h.contribution for h in section_hits) for s, section_hits in by_section.items()}
    lent: dict[str, float] = defaultdict(float)
    lenders: dict[str, list[str]] = defaultdict(list)
    for section_id, score in own.items():
        for parent in ancestors(section_id):
            lent[parent] += LEND * score
            lenders[parent].append(section_id)
    scores = [
        SectionScore(
            section=section_id,
            own=own.get(section_id, 0.0),
            lent=lent.get(section_id, 0.0),
            hits=tuple(
                sorted(by_section.get(section_id, []), key=lambda h: (-h.contribution, h.signal))
            ),
            lenders=tuple(sorted(lenders.get(section_id, []), key=_ORDER.__getitem__)),
        )
        for section_id in set(own) | set(lent)
    ]
    return sorted(scores, key=lambda s: (-round(s.total, 6), _ORDER[s.section]))
