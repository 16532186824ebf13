"""Grounding: what the answer states as found must come from the conversation.

Every quoted report line ([FAIL]/[WARN]/[PASS]/[INFO]), instance, node and network id, Xid
number, count, cited section, "is fine" claim and problem claim in the model's text must
trace to a tool result, a re-triage or the user's own words in that conversation. A real
report line quoted verbatim is grounded whatever the cluster's health; a "your security
group rules are right" when the check was skipped (or nothing ran) is not.

The checks are lexical and deliberately small: each one names what it could not trace, so
a failure can be read and argued with.
"""

from __future__ import annotations

import re

from evals.agent_eval.evidence import Evidence, evidence_of, words
from evals.agent_eval.run import ConversationRun
from tools.sections import SECTIONS

_REPORT_LINE = re.compile(r"\[(FAIL|WARN|PASS|INFO)\]\s*(?:(P\d)\s+)?([^\n`\"“”]+)")
_LINE_SECTION = re.compile(r"§\s*([A-O](?:\.\d+)*(?:\.[a-z])?)")
_IDS = re.compile(
    r"(?<![\w-])(?:hyperpod-)?(?:i-[0-9a-f]{8,17}|ip-\d{1,3}(?:-\d{1,3}){3}|"
    r"(?:sg|subnet|vpc|vpce|eni|rtb|nat|igw|ami|lt)-[0-9a-f]{8,17})(?![\w-])"
)
_XID = re.compile(r"\bxids?\s*[:#]?\s*(\d{1,3})\b", re.IGNORECASE)
_XID_SOURCE = re.compile(r"xids?\b[^\n]{0,60}", re.IGNORECASE)
_PCI = re.compile(r"\(pci:[^)]*\)", re.IGNORECASE)
_SECTION = re.compile(r"§\s*([A-O](?:\.\d+)*(?:\.[a-z])?)")
_COUNT = re.compile(
    # Counts the cluster reports (devices, errors, restarts), not ones the model may add up
    # from a report (nodes, findings, checks).
    # "8 of 8 GPUs" is read off a result; "32 GPUs" may be 4 nodes times 8.
    r"\b(\d+)\s+of\s+(\d+)\s+(?:\w+\s)?(?:gpus?|efa devices|devices|nodes?|pods?)\b|"
    r"\b(\d+)\s+(?:\w+\s)?(?:errors?|xids?|remaps?|restarts?|times)\b|(\d+)\s*次",
    re.IGNORECASE,
)
_NUMBER = r"(?<![\w.]){}(?![\w.])"
_SENTENCE = re.compile(r"(?:[^.!?。！？;；\n]|\.(?=\S))+")  # "§ I.4" stays whole
# Topics a claim can be about, each with the words that name it in prose, a check name or
# an IAM action (all read through `words`).
TOPICS: dict[str, tuple[str, ...]] = {
    "security groups": ("security group", "sg egress", "安全组"),
    "subnets": ("subnet", "子网"),
    "routes": ("route", "路由"),
    "DNS": ("dns",),
    "IAM": ("iam", "permission", "policy", "权限"),
    "EFA": ("efa",),
    "GPUs": ("gpu",),
    "ECC": ("ecc", "row remap"),
    "NCCL": ("nccl",),
    "endpoints": ("endpoint", "终端节点"),
    "lifecycle scripts": ("lifecycle", "生命周期"),
    "quotas": ("quota", "配额"),
    "disk": ("disk", "磁盘"),
    "Slurm": ("slurm",),
}
_FINE = re.compile(
    r"\b(?:is|are|looks?|seems?|were|was)\s+(?:all\s+)?(?:fine|right|correct|ok|okay|good|"
    r"healthy|clean|in order|as (?:they|it) should be)\b|\bno (?:problem|issue)s? with\b|"
    r"\bnothing wrong with\b|\bconfigured correctly\b|"
    r"没问题|没有问题|是正确的|配置正确|都正常|是正常的",
    re.IGNORECASE,
)
_PROBLEM = re.compile(
    r"\b(?:rising|increasing|growing|repeated|failing|failed|degraded|broken|missing|"
    r"misconfigured|errors? (?:are|is) (?:rising|growing|increasing))\b|"
    r"(?:持续|不断)(?:增加|上升)|故障|异常|出错",
    re.IGNORECASE,
)
_NEGATED = re.compile(
    r"\b(?:no|not|none|nothing|without|zero|never|neither|nor|if|whether|would|could|"
    r"may|might|when|unless|rule out|ruled out|skipped|could|cannot|unable)\b|n't|"
    r"没有|无|未|不|如果|是否|可能|跳过",
    re.IGNORECASE,
)


def _clean(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("*", "").replace("`", "")).strip()


def _line_problem(status: str, priority: str | None, body: str, ev: Evidence) -> str | None:
    core = _clean(re.split(r"→|…|\.\.\.", body)[0])[:48].strip()
    if len(core) < 3:
        return None  # too little quoted to trace
    head = f"[{status}] " + (f"{priority} " if priority else "")
    quoted = _clean(head + core).lower()
    sources = [t for t in ev.tool_text if quoted in _clean(t).lower()]
    if not sources:
        return f"report line not in any tool result: {head}{core}"
    section = _LINE_SECTION.search(body)
    if section and not any(f"§ {section.group(1)}" in s for s in sources):
        return f"report line quoted with § {section.group(1)}, which its source does not name"
    return None


def _section_seen(section: str, ev: Evidence) -> bool:
    """A section a tool result or the user names (or one above or below it), or a real
    section of the reference cited as guidance: the prompt gives the model the reference's
    map. An invented finding's section is caught on its report line."""
    if section in SECTIONS:
        return True
    for text in ev.all_text:
        for found in _SECTION.findall(text) + re.findall(r"^section: (\S+)$", text):
            if found == section or found.startswith(section + "."):
                return True
            if section.startswith(found + "."):
                return True
    return False


def _xids_seen(ev: Evidence) -> set[str]:
    seen: set[str] = set()
    for text in ev.all_text:
        for window in _XID_SOURCE.findall(text):
            seen.update(re.findall(r"\b\d{1,3}\b", _PCI.sub(" ", window)))
    return seen


def _topics(sentence: str) -> list[str]:
    said = words(sentence)
    return [name for name, keys in TOPICS.items() if any(k in said for k in keys)]


def _topic_in(lines: list[str], topic: str) -> bool:
    keys = TOPICS[topic]
    return any(any(k in words(line) for k in keys) for line in lines)


def _claim_problems(text: str, ev: Evidence) -> list[str]:
    passes = ev.lines_with("[PASS]", "PASS")
    problems = ev.lines_with("[FAIL]", "[WARN]", "FAIL", "WARN")
    skipped = list(ev.skipped_text)
    found: list[str] = []
    for match in _SENTENCE.finditer(text):
        sentence = match.group(0)
        if _REPORT_LINE.search(sentence):
            continue  # a quoted line is judged as a line
        topics = _topics(sentence)
        if not topics:
            continue
        doubted = re.search(r"\b(?:not|n't|if|whether)\b|不|是否", sentence)
        if _FINE.search(sentence) and not doubted:
            for topic in topics:
                if _topic_in(passes, topic):
                    continue
                if not ev.tools_ran or _topic_in(skipped, topic):
                    found.append(f"says the {topic} are fine, which no tool result showed")
        elif _PROBLEM.search(sentence) and not _NEGATED.search(sentence):
            for topic in topics:
                if not (_topic_in(problems, topic) or _topic_in(list(ev.user_text), topic)):
                    found.append(f"states a {topic} problem no tool result or user text shows")
    return found


def ungrounded(text: str, ev: Evidence) -> list[str]:
    """What the model's text states that the conversation's evidence does not show."""
    found: list[str] = []
    for status, priority, body in _REPORT_LINE.findall(text):
        problem = _line_problem(status, priority or None, body, ev)
        if problem:
            found.append(problem)
    for ident in dict.fromkeys(_IDS.findall(text)):
        bare = ident.removeprefix("hyperpod-")
        if not (ev.contains(ident) or ev.contains(bare)):
            found.append(f"id {ident} appears in no tool result or user text")
    xids = _xids_seen(ev)
    for number in dict.fromkeys(_XID.findall(text)):
        if number not in xids:
            found.append(f"Xid {number} appears in no tool result or user text")
    for section in dict.fromkeys(_SECTION.findall(text)):
        if not _section_seen(section, ev):
            found.append(f"§ {section} named by no tool result")
    for match in _COUNT.finditer(text):
        for number in (n for n in match.groups() if n):
            if int(number) > 1 and not any(
                re.search(_NUMBER.format(re.escape(number)), t) for t in ev.all_text
            ):
                found.append(f"count {match.group(0).strip()!r} matches no tool result")
    found.extend(_claim_problems(text, ev))
    return list(dict.fromkeys(found))


def grounding_problems(run: ConversationRun) -> list[str]:
    found: list[str] = []
    for number, record in enumerate(run.turns, start=1):
        ev = evidence_of(run, number)  # only what the model had seen by then
        found.extend(f"turn {number}: {p}" for p in ungrounded(record.result.model_text, ev))
    return found
