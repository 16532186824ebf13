"""The answer after a re-triage, read against the comparison itself: the re-triage event
lists what cleared, what is new and what remains. Saying everything is resolved while a
problem remains (in English or Chinese, in any of the usual wordings), or calling a
remaining section fixed, or a cleared one still failing, misreads it."""

from __future__ import annotations

import re
from typing import Any

from evals.agent_eval.run import ConversationRun

_SENTENCE = re.compile(r"(?:[^.!?。！？;；\n]|\.(?=\S))+")  # "§ I.4" stays whole
_SECTION = re.compile(r"§\s*([A-O](?:\.\d+)*(?:\.[a-z])?)")
_ALL_RESOLVED = re.compile(
    r"\b(?:everything|all)\b[^,]{0,30}\b(?:is|are|was|were|has been|have been|now|looks?)?\s*"
    r"(?:resolved|fixed|cleared|fine|healthy|good|working|passing|green|sorted)\b|"
    r"\bnothing (?:is |else )?(?:left|remaining|more|else) to (?:fix|do|change)\b|"
    r"\bno (?:more |other |remaining )?(?:problems?|issues?|findings?|failures?|faults?) "
    r"(?:remain|left|are left|remaining)\b|"
    r"\b(?:cluster|it) is (?:now )?(?:fully )?(?:healthy|fixed|clean|resolved)\b|"
    r"\b(?:fully|completely) (?:resolved|fixed|recovered)\b|\ball clear\b|"
    r"\bback to (?:normal|healthy)\b|"
    r"(?:全部|都|均|所有问题)(?:已经?|已)?(?:解决|修复|恢复|通过|正常)|没有(?:剩余|其他|别的|遗留)?的?(?:问题|故障)了?|"
    r"(?:集群|一切)(?:已经|现在)?(?:完全)?(?:恢复)?(?:健康|正常)|无需(?:再)?(?:修复|处理|修改)",
    re.IGNORECASE,
)
_EXCEPT = re.compile(
    r"\b(?:except|but|apart from|other than|besides|still|remain|remains|not|n't|once|when|if)\b|"
    r"除了|除|仍|还|未|尚|如果|一旦",
    re.IGNORECASE,
)
_STILL = re.compile(r"\b(?:still|remains?|persists?|again)\b|仍|还在|依然|依旧", re.IGNORECASE)
_FIXED = re.compile(
    r"\b(?:cleared|fixed|resolved|gone|passes|passing)\b|已(?:经)?(?:解决|清除|修复|恢复)|消失"
)


def _misreadings(text: str, seen: dict[str, Any]) -> list[str]:
    remaining = set(seen.get("remaining_sections") or []) | set(seen.get("new_sections") or [])
    cleared = set(seen.get("cleared_sections") or []) - remaining
    problems_left = bool(seen.get("remaining") or seen.get("new"))
    found: list[str] = []
    for match in _SENTENCE.finditer(text):
        sentence = match.group(0)
        named = set(_SECTION.findall(sentence))
        claim = _ALL_RESOLVED.search(sentence) and not _EXCEPT.search(sentence)
        if problems_left and not named and claim:
            found.append(f"says all is resolved ({sentence.strip()[:80]!r}) while problems remain")
        for section in named:
            denied = _STILL.search(sentence) or re.search(r"\bnot\b|n't|未|没有", sentence)
            if section in remaining and _FIXED.search(sentence) and not denied:
                found.append(f"calls § {section} fixed while it remains")
            if section in cleared and _STILL.search(sentence) and not _FIXED.search(sentence):
                found.append(f"calls § {section} still present while it cleared")
    return found


def retriage_misreadings(run: ConversationRun) -> list[str]:
    """Every turn with a re-triage, read against its comparison (the turn that ran it: the
    model is told to open its answer from the comparison)."""
    found: list[str] = []
    for number, record in enumerate(run.turns, start=1):
        seen = record.result.retriage
        if not seen or seen.get("first"):
            continue
        found.extend(f"turn {number}: {m}" for m in _misreadings(record.result.model_text, seen))
    return found
