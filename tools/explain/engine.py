"""explain(): pasted error text → ranked reference sections. No AWS, no model, no I/O."""

from __future__ import annotations

import re
from dataclasses import replace

from tools.explain.anchors import fold
from tools.explain.guesses import Guess, find_guesses
from tools.explain.identifiers import Identifiers, extract_identifiers
from tools.explain.models import ExplainResult, Match
from tools.explain.sanitize import MAX_INPUT_CHARS, clean_text, quote, set_aside_instructions
from tools.explain.scoring import Hit, SectionScore, rank
from tools.explain.signature import TRIAGE, TRIAGE_NODE, Signature
from tools.explain.signatures import ALL_SIGNATURES
from tools.explain.xid_catalog import WEIGHTS, classify_xid, describe_xid, find_xids
from tools.sections import section

TRIAGE_PREFIX = "hyperpod-debug triage"
DEFAULT_TOP = 5
MAX_REPEATS = 8  # repeats beyond this add nothing measurable (see scoring)
MAX_CHECKS = 5
MAX_WHY = 4

_XID_CHECKS: dict[str, tuple[str, ...]] = {
    "G.1.a": ("nvidia-smi -q -d ROW_REMAPPER", "dmesg -T | grep -i xid", TRIAGE_NODE),
    "G.3": ("nvidia-smi -q -d ECC", "nvidia-smi -q -d ROW_REMAPPER", TRIAGE_NODE),
    "G.2": ("dmesg -T | grep -iE 'xid|nvrm'", "nvidia-smi -L", TRIAGE_NODE),
}


def _signature_hit(signature: Signature, text: str, folded: str) -> Hit | None:
    if not signature.may_match(folded):
        return None
    unless = signature.unless
    # An exception that is compiled already (the Xid number pattern) is cheaper to search
    # than the signature's own regex is to compile: when it matches, skip the compile.
    searched = isinstance(unless, re.Pattern)
    if searched and unless is not None and unless.search(text) is not None:
        return None
    first = signature.pattern.search(text)
    if first is None:
        return None
    if signature.context is not None and signature.context.search(text) is None:
        return None
    if unless is not None and not searched and unless.search(text) is not None:
        return None
    count = 0
    for _ in signature.pattern.finditer(text, first.start()):
        count += 1
        if count >= MAX_REPEATS:
            break
    return Hit(
        signal=signature.id,
        section=signature.section,
        weight=signature.weight,
        why=signature.why,
        quote=quote(first.group(0)),
        count=count,
        checks=signature.checks,
    )


def _xid_hits(text: str) -> list[Hit]:
    counts: dict[int, tuple[int, str]] = {}
    for number, carried_by in find_xids(text):
        seen, first = counts.get(number, (0, carried_by))
        counts[number] = (seen + 1, first)
    hits = []
    for number, (count, first) in counts.items():
        info = classify_xid(number)
        hits.append(
            Hit(
                signal=f"xid.{number}",
                section=info.section,
                weight=WEIGHTS[info.kind],
                why=describe_xid(number),
                quote=quote(first),
                count=min(count, MAX_REPEATS),
                checks=_XID_CHECKS[info.section],
            )
        )
    return hits


def find_hits(text: str) -> list[Hit]:
    """Every signature (and Xid) that matches the cleaned text."""
    folded = fold(text)
    hits = [hit for s in ALL_SIGNATURES if (hit := _signature_hit(s, text, folded)) is not None]
    return hits + _xid_hits(text)


def _placeholders(ids: Identifiers) -> dict[str, str]:
    """Placeholder values, only where the text names exactly one candidate."""
    values: dict[str, str] = {}
    cluster = ids.cluster_arns or ids.cluster_names
    if len(cluster) == 1:
        values["<CLUSTER>"] = cluster[0]
    candidates = {
        "<REGION>": ids.regions,
        "<INSTANCE_ID>": ids.instance_ids,
        "<CLUSTER_ID>": ids.cluster_ids,
        "<SG_ID>": ids.security_group_ids,
        "<SUBNET_ID>": ids.subnet_ids,
        "<VPC_ID>": ids.vpc_ids,
        "<NODE_NAME>": [*ids.eks_nodes, *ids.slurm_nodes],
    }
    values.update({key: found[0] for key, found in candidates.items() if len(found) == 1})
    return values


def _fill(command: str, values: dict[str, str]) -> str:
    for placeholder, value in values.items():
        command = command.replace(placeholder, value)
    return command


def _why(score: SectionScore) -> str:
    parts = []
    for hit in score.hits[:MAX_WHY]:
        times = f" ×{hit.count}" if hit.count > 1 else ""
        parts.append(f'{hit.why} — "{hit.quote}"{times}')
    if len(score.hits) > MAX_WHY:
        parts.append(f"{len(score.hits) - MAX_WHY} more signal(s)")
    if score.lenders:
        lenders = ", ".join(f"§ {s}" for s in score.lenders)
        parts.append(f"supported by matches in {lenders}")
    return "; ".join(parts)


def _checks(
    score: SectionScore, by_section: dict[str, SectionScore], values: dict[str, str]
) -> list[str]:
    hits = list(score.hits)
    if not hits:  # a parent scored only through its children: borrow their checks
        hits = [h for child in score.lenders for h in by_section[child].hits]
    ordered: dict[str, None] = {}
    for hit in hits:
        for command in hit.checks:
            ordered.setdefault(_fill(command, values), None)
    default = _fill(TRIAGE_NODE if "<INSTANCE_ID>" in values else TRIAGE, values)
    checks = list(ordered)[:MAX_CHECKS]
    if not any(c.startswith(TRIAGE_PREFIX) for c in checks):
        checks.append(default)
    return checks


def _guess_match(guess: Guess, values: dict[str, str]) -> Match:
    checks = list(dict.fromkeys(_fill(c, values) for c in guess.family.checks))[:MAX_CHECKS]
    if not any(c.startswith(TRIAGE_PREFIX) for c in checks):
        checks.append(_fill(TRIAGE, values))
    return Match(
        section=guess.section,
        score=guess.score,
        title=section(guess.section).title,
        why=guess.why,
        reference=section(guess.section).reference,
        next_checks=checks,
        signals=[guess.signal],
        guess=True,
    )


def _no_match_message(triage: str, guesses: list[Match]) -> str:
    if guesses:
        closest = ", ".join(f"§ {m.section}" for m in guesses)
        return (
            "No known error signature matched this text. By its wording alone the closest"
            f" sections are {closest}: a guess with a low score, not a diagnosis. Run"
            f" `{triage}` to check the cluster directly."
        )
    return (
        "No known error signature matched this text, so no reference section is suggested. "
        f"Run `{triage}` to check the cluster directly."
    )


def _triage_step(checks: list[str], step: str) -> list[str]:
    """The next checks with every `hyperpod-debug triage ...` given as `step` (once)."""
    return list(dict.fromkeys(step if c.startswith(TRIAGE_PREFIX) else c for c in checks))


def explain(text: str, top: int = DEFAULT_TOP, *, triage_step: str | None = None) -> ExplainResult:
    """Rank the reference sections that pasted error text points at, best first.

    The text is data: it is cleaned, capped at ``MAX_INPUT_CHARS`` and matched against
    the signature tables. Nothing in it is run or followed; sentences that address an
    assistant or try to give it instructions are left out of matching (and of the
    identifiers) and only counted, so they cannot steer the ranking.

    ``triage_step`` replaces the `hyperpod-debug triage --cluster ...` next step where the
    cluster is already open (the chat's "/triage").

    When slots remain under ``top``, sections that the text's wording family points at
    (storage mounts, node access, collective hangs, ...) follow the real matches as
    guesses: ``guess`` is set, the score stays below any real match, and ``why`` says so.
    """
    cleaned, truncated = clean_text(text)
    cleaned, ignored = set_aside_instructions(cleaned)
    ids = extract_identifiers(cleaned)
    values = _placeholders(ids)
    scores = rank(find_hits(cleaned))
    by_section = {s.section: s for s in scores}
    matches = [
        Match(
            section=s.section,
            score=round(s.total, 2),
            title=section(s.section).title,
            why=_why(s),
            reference=section(s.section).reference,
            next_checks=_checks(s, by_section, values),
            signals=[h.signal for h in s.hits],
        )
        for s in scores[: max(top, 0)]
    ]
    room = max(top, 0) - len(matches)
    guesses = (
        [_guess_match(g, values) for g in find_guesses(cleaned, set(by_section))[:room]]
        if room > 0
        else []
    )
    if matches:
        best = matches[0]
        message = (
            f"{len(scores)} section(s) matched; the best match is § {best.section} {best.title}."
        )
        if guesses:
            message += f" {len(guesses)} more section(s) follow as guesses by wording only."
    else:
        message = _no_match_message(triage_step or _fill(TRIAGE, values), guesses)
    matches += guesses
    if triage_step is not None:
        matches = [
            replace(m, next_checks=_triage_step(m.next_checks, triage_step)) for m in matches
        ]
    if truncated:
        message += f" Only the first {MAX_INPUT_CHARS:,} characters were read."
    return ExplainResult(
        matches=matches,
        identifiers=ids,
        message=message,
        truncated=truncated,
        ignored_lines=ignored,
    )
