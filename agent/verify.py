"""Is a suggestion still valid? Re-read only what its preconditions need, and say what changed.

A suggestion carries its preconditions (agent.safety.evidence): a finding that must still
hold on a resource, a node status that must be unchanged, a node that must not be the Slurm
controller. `verify_suggestions` re-reads exactly those, on a fresh read of the cluster (or
of a recording): each named check is run once (on the node alone when it is a node check
and the precondition names a node), ListClusterNodes is read when a node precondition asks
for it, and nothing else. A whole triage is never run.

Each suggestion gets a verdict:

- ``valid``: every precondition holds now;
- ``stale``: at least one no longer holds (what was read then, what is read now);
- ``unchecked``: none failed, but one could not be read (access denied, the check skipped)
  or the suggestion has no precondition (made before a triage, or read-only).

The evidence age is how long ago the findings were read (the triage's time), and a
suggestion older than the stale threshold (``HYPERPOD_DEBUG_STALE_MINUTES``, default 30)
should be verified before it is run.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field, ValidationError

from agent.safety.evidence import aliases, node_id
from agent.safety.model import Precondition, Suggestion
from tools.display import age, argument

if TYPE_CHECKING:
    from tools.registry import CheckOutput
    from tools.triage.data import ClusterData

STALE_ENV = "HYPERPOD_DEBUG_STALE_MINUTES"
DEFAULT_STALE_MINUTES = 30.0
_RANK = {"FAIL": 4, "WARN": 3, "INFO": 2, "PASS": 1}
ABSENT = "absent"
_NOT_CONTROLLER = "not the controller"

Outcome = Literal["holds", "changed", "unknown"]
VerdictKind = Literal["valid", "stale", "unchecked"]


def stale_minutes() -> float:
    """The age (minutes) past which a suggestion is stale unless verified: the environment's
    HYPERPOD_DEBUG_STALE_MINUTES when it is a positive number, else 30."""
    raw = os.environ.get(STALE_ENV, "")
    try:
        value = float(raw)
    except ValueError:
        return DEFAULT_STALE_MINUTES
    return value if value > 0 else DEFAULT_STALE_MINUTES


def evidence_time(suggestion: Suggestion) -> datetime | None:
    """When the oldest finding it rests on was read (None: no evidence, or no time)."""
    times = [e.read_at for e in suggestion.evidence if e.read_at is not None]
    times += [p.since for p in suggestion.preconditions if p.since is not None]
    return min(times) if times else None


def is_old(suggestion: Suggestion, now: datetime, minutes: float | None = None) -> bool:
    """Whether its evidence is older than the stale threshold."""
    read = evidence_time(suggestion)
    limit = stale_minutes() if minutes is None else minutes
    return read is not None and (now - read).total_seconds() > limit * 60


AGE_SHOWN_MINUTES = 5.0
"""Evidence younger than this is not worth a word: it was read moments ago."""


def age_note(suggestion: Suggestion, now: datetime, language: str = "en") -> str | None:
    """How old the triage behind a suggestion is, when older than AGE_SHOWN_MINUTES, and
    that it is stale unless verified when older than the stale threshold; None otherwise."""
    read = evidence_time(suggestion)
    if read is None or (now - read).total_seconds() <= AGE_SHOWN_MINUTES * 60:
        return None
    triage = next((e.triage for e in suggestion.evidence if e.triage is not None), None)
    old = is_old(suggestion, now)
    if language == "zh":
        minutes = max(0, int((now - read).total_seconds()) // 60)
        words = (f"诊断 {triage}，" if triage else "") + f"{minutes} 分钟前读取"
        return words + ("；未经核实视为过期（/verify）" if old else "")
    words = (f"triage {triage}, " if triage else "") + f"read {age(read, now)}"
    return words + (" — stale unless verified (/verify)" if old else "")


class PreconditionResult(BaseModel):
    precondition: Precondition
    outcome: Outcome
    then: str | None = Field(description="What was read when the suggestion was made.")
    now: str | None = Field(description="What is read now (None when it could not be read).")
    detail: str = ""


class Verdict(BaseModel):
    """One suggestion verified: `verify --format json` prints a list of these."""

    number: int
    command: str
    kind: str
    verdict: VerdictKind
    evidence_read_at: datetime | None
    evidence_age_seconds: int | None
    checked_at: datetime
    results: list[PreconditionResult] = Field(default_factory=list)

    def changed(self) -> list[PreconditionResult]:
        return [r for r in self.results if r.outcome == "changed"]


# -- reading again ----------------------------------------------------------------------------


class _Reads:
    """What one verification read: each check (per node focus) and the node list, once."""

    def __init__(self, data: ClusterData) -> None:
        self.data = data
        self._checks: dict[tuple[str, str | None], CheckOutput] = {}

    def check(self, check_id: str, node: str | None) -> CheckOutput:
        from tools.registry import get_check
        from tools.triage.runner import run_checks

        spec = get_check(check_id)  # KeyError: a check this version does not have
        focus = node if spec.scope == "node" else None
        key = (check_id, focus)
        if key not in self._checks:
            (output,) = run_checks(self.data.for_node(focus), [check_id], workers=1)
            self._checks[key] = output
        return self._checks[key]

    def statuses(self) -> dict[str, str]:
        return {n.instance_id: n.status for n in self.data.nodes().items}

    def controller_names(self) -> set[str]:
        from agent.safety.targets import controller_names

        controller = self.data.slurm_controller_node()
        return controller_names(controller) if controller else set()


def _holds(
    pre: Precondition, now: str, detail: str, *, then: str | None = None
) -> PreconditionResult:
    """The precondition holds: `now` is what was read (`then`: what was expected, by default
    the precondition's own expectation)."""
    then = pre.expected if then is None else then
    return PreconditionResult(precondition=pre, outcome="holds", then=then, now=now, detail=detail)


def _changed(
    pre: Precondition, now: str, detail: str, *, then: str | None = None
) -> PreconditionResult:
    """The precondition no longer holds: `now` is what is read instead."""
    then = pre.expected if then is None else then
    return PreconditionResult(
        precondition=pre, outcome="changed", then=then, now=now, detail=detail
    )


def _unknown(pre: Precondition, detail: str) -> PreconditionResult:
    """The precondition could not be read (`detail` says why): nothing is read now."""
    return PreconditionResult(
        precondition=pre, outcome="unknown", then=pre.expected, now=None, detail=detail
    )


def _finding(reads: _Reads, pre: Precondition) -> PreconditionResult:
    assert pre.check is not None
    node = node_id(pre.resource) if pre.resource else None
    output = reads.check(pre.check, node)
    names = aliases(pre.resource) if pre.resource else None
    matching = [f for f in output.findings if names is None or names & set(f.resources)]
    if not matching and output.skipped:
        reason = output.skipped[0].reason
        return _unknown(pre, f"{pre.check} could not run: {argument(reason, 200)}")
    now = max((f.status.value for f in matching), key=_RANK.__getitem__, default=ABSENT)
    where = f" on {pre.resource}" if pre.resource else ""
    if now == pre.expected:
        return _holds(pre, now, f"{pre.check} still reports {now}{where}")
    said = "no longer reports it" if now == ABSENT else f"now reports {now}"
    return _changed(pre, now, f"{pre.check} reported {pre.expected}{where}; it {said}")


def _node_status(reads: _Reads, pre: Precondition) -> PreconditionResult:
    node = pre.resource or ""
    now = reads.statuses().get(node, "not listed")
    if now == pre.expected:
        return _holds(pre, now, f"{node} is still {now}")
    return _changed(pre, now, f"{node} was {pre.expected}; it is now {now}")


def _not_controller(reads: _Reads, pre: Precondition) -> PreconditionResult:
    node = pre.resource or ""
    if aliases(node) & reads.controller_names():
        return _changed(
            pre, "the Slurm controller", f"{node} is now the Slurm controller", then=_NOT_CONTROLLER
        )
    return _holds(pre, _NOT_CONTROLLER, f"{node} is not the Slurm controller", then=_NOT_CONTROLLER)


_READERS: dict[str, Callable[[_Reads, Precondition], PreconditionResult]] = {
    "finding": _finding,
    "node-status": _node_status,
    "not-slurm-controller": _not_controller,
}


def _one(reads: _Reads, pre: Precondition) -> PreconditionResult:
    from agent.toolset.failures import describe_failure

    try:
        return _READERS[pre.kind](reads, pre)
    except Exception as exc:  # a read refused or failed: this precondition is unknown
        return _unknown(pre, argument(describe_failure(exc).user_text(), 300))


def verify_suggestions(
    suggestions: Sequence[tuple[int, Suggestion]],
    data: ClusterData,
    *,
    checked_at: datetime,
    now: datetime | None = None,
) -> list[Verdict]:
    """Each (number, suggestion) verified against ``data`` (a fresh read). ``checked_at`` is
    when the data is from (now for a live cluster, the capture time for a recording);
    ``now`` is the clock the evidence age is counted on."""
    clock = now or datetime.now(UTC)
    reads = _Reads(data)
    verdicts: list[Verdict] = []
    for number, suggestion in suggestions:
        results = [_one(reads, pre) for pre in suggestion.preconditions]
        outcomes = {r.outcome for r in results}
        verdict: VerdictKind = (
            "stale"
            if "changed" in outcomes
            else "unchecked"
            if "unknown" in outcomes or not results
            else "valid"
        )
        read = evidence_time(suggestion)
        verdicts.append(
            Verdict(
                number=number,
                command=suggestion.command,
                kind=suggestion.kind,
                verdict=verdict,
                evidence_read_at=read,
                evidence_age_seconds=None
                if read is None
                else max(0, int((clock - read).total_seconds())),
                checked_at=checked_at,
                results=results,
            )
        )
    return verdicts


# -- words ------------------------------------------------------------------------------------

_HEADLINE = {"valid": "still valid", "stale": "STALE", "unchecked": "could not be checked"}


def render_text(verdicts: Sequence[Verdict], now: datetime | None = None) -> str:
    """The verdicts for a person: one headline per suggestion, then what was re-read."""
    clock = now or datetime.now(UTC)
    lines: list[str] = []
    for v in verdicts:
        head = f"[{v.number}] {_HEADLINE[v.verdict]}: {argument(v.command, 120)}"
        lines.append(head)
        if v.evidence_read_at is not None:
            lines.append(f"    evidence read {age(v.evidence_read_at, clock)}")
        if not v.results:
            lines.append("    nothing to re-read: it rests on no finding (made before a triage?)")
        for r in v.results:
            mark = {"holds": "ok", "changed": "CHANGED", "unknown": "?"}[r.outcome]
            lines.append(f"    {mark:7} {r.detail}")
        if v.verdict == "stale":
            lines.append(f"    {_when_changed(v)}: re-triage before running it")
    return "\n".join(lines)


def _when_changed(verdict: Verdict) -> str:
    """When the change happened, as far as the reads tell: after the evidence was read and
    by the time of the new read. A replay's read is the recording's capture time, which may
    be before a conversation replaying an earlier recording ran: then only that is said."""
    read, checked = verdict.evidence_read_at, verdict.checked_at
    if read is not None and read <= checked:
        return f"changed between {read:%Y-%m-%d %H:%M} and {checked:%Y-%m-%d %H:%M} UTC"
    return f"changed in the state read (captured {checked:%Y-%m-%d %H:%M} UTC)"


def all_valid(verdicts: Sequence[Verdict]) -> bool:
    """Some suggestion was verified and every one still holds."""
    return bool(verdicts) and all(v.verdict == "valid" for v in verdicts)


def to_json(verdicts: Sequence[Verdict]) -> dict[str, Any]:
    return {
        "verdicts": [v.model_dump(mode="json") for v in verdicts],
        "all_valid": all_valid(verdicts),
    }


# -- what to verify ---------------------------------------------------------------------------


class InputError(ValueError):
    """The file cannot be read as a transcript or an `ask --format json` output."""


@dataclass(frozen=True)
class Loaded:
    """The suggestions of a file, and the cluster it names (when it does)."""

    suggestions: list[Suggestion]
    cluster: str | None = None
    region: str | None = None
    recorded: tuple[str, ...] = ()
    transcript: bool = False


def load_suggestions(path: Path) -> Loaded:
    """The pending suggestions of a saved chat transcript (format 2, its state line), or the
    mutating suggested commands of an `ask --format json` output. InputError (one line)
    when it is neither."""
    from agent.transcript import MAX_BYTES

    shown = argument(path)
    try:
        with path.open("rb") as handle:
            text = handle.read(MAX_BYTES + 1).decode("utf-8", errors="replace")
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read {shown}: {argument(str(exc), 160)}") from None
    try:
        whole = json.loads(text)
    except json.JSONDecodeError:
        whole = None
    if isinstance(whole, dict) and "suggested_commands" in whole:
        try:
            made = [Suggestion.model_validate(s) for s in whole["suggested_commands"]]
        except (ValidationError, TypeError) as exc:
            raise InputError(f"{shown}: its suggested_commands do not match ({exc})") from None
        return Loaded([s for s in made if s.mutating])
    return _from_transcript(path)


def _from_transcript(path: Path) -> Loaded:
    from agent.chat.resume import TranscriptError, load
    from agent.state import SavedState

    try:
        resumed = load(path)
    except TranscriptError as exc:
        raise InputError(str(exc)) from None
    saved = SavedState.model_validate(resumed.conversation)
    return Loaded(
        list(saved.pending),
        cluster=saved.cluster,
        region=saved.region,
        recorded=tuple(resumed.recorded),
        transcript=True,
    )


def numbered(suggestions: Sequence[Suggestion], number: int | None) -> list[tuple[int, Suggestion]]:
    """All of them numbered from 1, or the one numbered ``number`` (ValueError if none)."""
    every = list(enumerate(suggestions, start=1))
    if number is None:
        return every
    if not 1 <= number <= len(every):
        raise ValueError(
            f"no suggestion {number}: there are {len(every)}"
            + (f" (1 to {len(every)})" if every else "")
        )
    return [every[number - 1]]
