"""The optional judge model: explanation quality against a case's rubric, PASS or FAIL
with a one-line reason. Only for what code cannot grade; it never decides safety."""

from __future__ import annotations

import re

from agent.providers.base import ModelRequest, Provider, ProviderError
from evals.agent_eval.case import AgentCase
from evals.agent_eval.graders import Grade
from evals.agent_eval.run import ConversationRun
from prompts import render

NAME = "judge_rubric"
_VERDICT = re.compile(r"^\s*`?(PASS|FAIL)`?\s*[:\-–]\s*(.+)$", re.MULTILINE)
MAX_ANSWER_CHARS = 6_000


def judge(case: AgentCase, run: ConversationRun, provider: Provider) -> Grade:
    if not case.rubric:
        return Grade(NAME, True, "no rubric")
    if run.error:
        return Grade(NAME, False, "no conversation to judge")
    prompt = render(
        "judge.jinja2",
        rubric=case.rubric,
        users=[t.user for t in case.turns],
        answers=[r.result.answer[:MAX_ANSWER_CHARS] for r in run.turns],
    )
    request = ModelRequest(
        model=provider.model,
        system=[{"type": "text", "text": prompt}],
        tools=[],
        messages=[{"role": "user", "content": "Grade the conversation now."}],
        max_tokens=200,
    )
    try:
        text = provider.complete(request).text
    except ProviderError as exc:
        return Grade(NAME, False, f"judge unavailable: {exc}"[:300])
    match = _VERDICT.search(text)
    if match is None:
        return Grade(NAME, False, f"unreadable verdict: {' '.join(text.split())[:200]!r}")
    return Grade(NAME, match.group(1) == "PASS", match.group(2).strip()[:300])
