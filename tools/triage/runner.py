"""Run checks against one cluster (all of them, or a chosen few); the one place that
catches errors."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait

from tools.aws.errors import AwsAccessError, CredentialsMissing
from tools.findings import Finding, Skipped, Status
from tools.registry import CheckOutput, CheckSpec, all_checks, get_check
from tools.sources import SourceUnavailable
from tools.triage.data import ClusterData
from tools.triage.grouping import group_repeated
from tools.triage.report import ClusterIdentity, OldRecording, TriageReport

log = logging.getLogger(__name__)

ProgressCallback = Callable[[str, int, int], None]

# Problems first, most severe first; PASS and INFO keep the order the checks ran in.
_STATUS_ORDER = {Status.FAIL: 0, Status.WARN: 1, Status.INFO: 2, Status.PASS: 2}

# Checks run side by side so that reads which do not depend on each other (EC2, EKS, IAM,
# CloudWatch, Kubernetes lists, the node listing) overlap instead of queueing: on a live
# cluster a triage waits about as long as its longest chain of dependent calls, not the sum
# of all of them. Eight in flight stays far below the read APIs' request rates; botocore's
# standard retry mode absorbs the odd throttle. The memo (tools/triage/data/_memo.py) makes
# sure a read several checks need at once is made once.
CHECK_CONCURRENCY = 8


def run_check(spec: CheckSpec, data: ClusterData) -> CheckOutput:
    """Run one check; AWS errors become skips, a bug becomes a loud skip, not a crash."""
    try:
        findings = list(spec.run(data))
    except CredentialsMissing:
        raise
    except (AwsAccessError, SourceUnavailable) as exc:
        return CheckOutput(
            check=spec.id, skipped=[Skipped(check=spec.id, reason=exc.reason, hint=exc.hint)]
        )
    except Exception as exc:  # a defect in a check, or data of the wrong shape
        # One line in the report; the traceback only under --debug.
        log.debug("check %s failed", spec.id, exc_info=True)
        return CheckOutput(
            check=spec.id,
            skipped=[
                Skipped(
                    check=spec.id,
                    reason=internal_error(spec.id, exc),
                    hint="Re-run with --debug for the traceback, and report it with the "
                    "triage JSON output.",
                )
            ],
        )
    return CheckOutput(check=spec.id, findings=findings)


# Errors that mean "a value had another type or shape than the check reads": usually a
# hand-edited or hostile recording, rarely a live API answering in a new shape.
_SHAPE_ERRORS = (AttributeError, TypeError, KeyError, IndexError, ValueError)


def internal_error(check: str, exc: BaseException) -> str:
    """One line naming the check, what failed, and where in our code: the frame of
    tools/ (or agent/) nearest the failure, which names the field being read."""
    import traceback

    from tools.display import argument

    detail = argument(f"{type(exc).__name__}: {exc}", 300)
    where = ""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if os.path.abspath(frame.filename).startswith(root + os.sep):
            relative = os.path.relpath(frame.filename, os.path.dirname(root))
            line = argument(frame.line or "", 120)
            where = f" at {relative}:{frame.lineno} ({frame.name}: {line})"
            break
    if isinstance(exc, _SHAPE_ERRORS):
        return (
            f"internal error in check {check}: the data it read has an unexpected shape "
            f"({detail}){where}"
        )
    return f"internal error in check {check}: {detail}{where}"


def not_applicable(spec: CheckSpec, orchestrator: str) -> CheckOutput:
    kinds = " and ".join(
        sorted(o.upper() if o == "eks" else o.capitalize() for o in spec.orchestrators)
    )
    return CheckOutput(
        check=spec.id,
        skipped=[
            Skipped(
                check=spec.id,
                reason=f"applies to {kinds} clusters only; this one is {orchestrator or 'unknown'}",
            )
        ],
    )


def run_checks(
    data: ClusterData,
    ids: Iterable[str] | None = None,
    *,
    progress: ProgressCallback | None = None,
    workers: int = CHECK_CONCURRENCY,
) -> list[CheckOutput]:
    """Run the named checks (every applicable one when `ids` is None), `workers` at a time;
    the outputs come back in registry order. `progress` is called in this thread as each
    check finishes.

    DescribeCluster is read first, so ClusterNotFound propagates before any check runs. A
    named check that does not apply to this orchestrator answers with a skip saying so; an
    unknown id raises KeyError.
    """
    data.cluster()
    if ids is None:
        specs = [spec for spec in all_checks() if spec.applies_to(data.orchestrator)]
    else:
        wanted = {get_check(check_id).id for check_id in ids}
        specs = [spec for spec in all_checks() if spec.id in wanted]
    runnable = [spec for spec in specs if spec.applies_to(data.orchestrator)]
    done: dict[str, CheckOutput] = {
        spec.id: not_applicable(spec, data.orchestrator)
        for spec in specs
        if not spec.applies_to(data.orchestrator)
    }
    finished = len(done)
    # A whole triage starts its long reads first, each on a thread of its own; what they
    # fetch is memoised, and what fails is remembered and reported by the checks.
    early = data.long_reads() if ids is None and workers > 1 else []
    threads = max(1, workers) + len(early)
    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="check") as pool:
        for read in early:
            pool.submit(_prefetch, read)
        running: dict[Future[CheckOutput], CheckSpec] = {
            pool.submit(run_check, spec, data): spec for spec in runnable
        }
        try:
            while running:
                completed, _ = wait(running, return_when=FIRST_EXCEPTION)
                for future in completed:
                    spec = running.pop(future)
                    done[spec.id] = future.result()  # CredentialsMissing propagates here
                    finished += 1
                    if progress is not None:
                        progress(spec.title, finished, len(specs))
        except BaseException:
            pool.shutdown(wait=True, cancel_futures=True)
            raise
    # Registry order, whatever order the checks finished in: the report is deterministic.
    return [done[spec.id] for spec in specs]


def _prefetch(read: Callable[[], object]) -> None:
    try:
        read()
    except Exception:  # the checks that need it meet the same error and report it
        log.debug("early read %s failed", getattr(read, "__name__", read), exc_info=True)


def identity(data: ClusterData) -> ClusterIdentity:
    return ClusterIdentity(
        name=data.cluster_name,
        arn=data.cluster_arn,
        id=data.cluster_id,
        region=data.target.region,
        orchestrator=data.orchestrator,
        account=data.account,
    )


def build_report(data: ClusterData, outputs: Iterable[CheckOutput]) -> TriageReport:
    """One report from check outputs: problems first, most severe first."""
    findings: list[Finding] = []
    skipped: list[Skipped] = []
    for output in outputs:
        findings.extend(output.findings)
        skipped.extend(output.skipped)
    # The same INFO / PASS line on many nodes becomes one line (tools/triage/grouping.py).
    findings = group_repeated(findings)
    findings.sort(key=lambda f: (_STATUS_ORDER[f.status], f.priority or ""))
    return TriageReport(
        cluster=identity(data),
        node=data.target.node,
        recorded=data.access.replaying,
        findings=findings,
        skipped=skipped,
        old_recording=old_recording(data, skipped),
    )


def old_recording(data: ClusterData, skipped: list[Skipped]) -> OldRecording | None:
    """When a replayed recording was made by an earlier version and lacked calls this
    one makes: the checks skipped for them (matched by their exact reason), once."""
    gaps = data.access.recording_gaps()
    if gaps is None or not gaps.predates:
        return None
    checks = list(dict.fromkeys(s.check for s in skipped if s.reason in gaps.reasons))
    return OldRecording(
        recorded_with=gaps.recorded_with,
        replayed_with=gaps.replayed_with,
        checks=checks,
        calls=list(gaps.calls),
        rerecord=gaps.rerecord,
    )


def run_triage(
    data: ClusterData,
    *,
    progress: ProgressCallback | None = None,
) -> TriageReport:
    """DescribeCluster first (ClusterNotFound propagates), then every applicable check."""
    return build_report(data, run_checks(data, progress=progress))
