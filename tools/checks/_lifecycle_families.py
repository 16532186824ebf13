"""§ D.2: the failure families of lifecycle-script log lines, and the one CloudWatch query
that fetches every line any family could match.

Kept apart from the check so the table can be read (and grown) on its own: each family is
a narrow pattern that only matches in an error context, tried most specific first. Wording
that `explain` shares comes from the signal registry (tools.signals) by id.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tools.signals import compile_alternation, wording


@dataclass(frozen=True)
class LogFamily:
    key: str
    title: str
    pattern: re.Pattern[str]
    on_trace: bool = False  # also judged on `set -x` trace lines
    veto: re.Pattern[str] | None = None  # a line matching this is not this family


# Where the error is said to concern S3 or another AWS endpoint.
_AWS_HOST = r"(\bs3\b|amazonaws\.com)"

# The most specific cause first; the generic script failure is reported only for streams
# that no specific family explains.
LOG_FAMILIES: tuple[LogFamily, ...] = (
    LogFamily(
        "crlf",
        "CRLF (Windows) line endings in a lifecycle script",
        # Broader than the shared wording: bash may print the name without its quote, or
        # the carriage return itself.
        compile_alternation(
            *wording("lifecycle.crlf"),
            r"\\r: command not found",
            r"\r: command not found",
        ),
        on_trace=True,  # `+ $'\r'` in a trace is the CRLF itself
    ),
    LogFamily(
        "lustre-mount",
        "FSx for Lustre mount or connection failure (check the Lustre ports 988 and"
        " 1018-1023 and the mount name, § B.8)",
        # Lifecycle scripts mount FSx; mount.lustre's own failure line names the cause
        # (timed out, Input/output error, No such file or directory for a wrong mount name).
        # Before s3-timeout: the file system's DNS name ends in amazonaws.com, and its
        # "timed out" is the Lustre ports, not an AWS endpoint.
        compile_alternation(*wording("storage.lustre_client")),
    ),
    LogFamily(
        "s3-timeout",
        "timeout reaching S3 (check the S3 endpoint and routing, § B.4)",
        # botocore's own wording, or "timed out" next to an S3 / AWS host; never a bare
        # "timeout" (`--cli-read-timeout`, `(timeout=60)` are options, not errors).
        compile_alternation(
            *wording("aws.endpoint_unreachable"),
            r"read timeout on endpoint url",  # broader than `explain`, which weighs connects
            rf"\b(connect|read)timeouterror\b.{{0,200}}{_AWS_HOST}",
            rf"\btimed out\b.{{0,160}}{_AWS_HOST}",
            rf"{_AWS_HOST}.{{0,160}}\btimed out\b",
        ),
    ),
    LogFamily(
        "access-denied",
        "access denied (check the instance role and bucket policy, § D.1)",
        compile_alternation(
            *wording("aws.access_denied"),
            r"An error occurred \(403\)",
            r"\b403\b.{0,40}Forbidden",
            r"Forbidden.{0,40}\b403\b",
            r"is not authorized to perform",
        ),
    ),
    LogFamily(
        "parameter-mismatch",
        "parameter or instance-group name mismatch with provisioning_parameters.json",
        # An unhandled KeyError (Python prints "KeyError: 'x'"), or provisioning_parameters
        # named together with an error word; "missing" alone is not an error.
        compile_alternation(
            r"\bKeyError:",
            r"provisioning_parameters\S*.{0,120}\b(error|exception|not found|no such file"
            r"|invalid|mismatch|failed to (read|load|parse|open))",
            r"\b(error|exception|fatal|not found|no such file|invalid|mismatch|cannot|can't"
            r"|could not|unable to)\b.{0,120}provisioning_parameters",
            r"instance[ _-]?group\b.{0,120}\bnot (found|defined|present)\b",
        ),
        veto=compile_alternation(
            r"\b(handled|caught|ignor(ed|ing)|fall(ing)? ?back|using (the )?defaults?)\b",
            r"\bexcept\s+KeyError",
        ),
    ),
    LogFamily(
        "script-failure",
        "lifecycle script failure",
        compile_alternation(
            r"exit (code|status)[ :=]*[1-9]",
            r"exited with (exit )?(code|status)?[ :=]*[1-9]",
            r"returned (a )?non-zero",
            r"non-zero exit",
            r"(script|on_create\S*|lifecycle|provision\w*)\b.{0,80}\bfail(ed|ure|s)?\b",
            r"\bfail(ed|ure)\b.{0,80}\b(script|on_create|lifecycle)",
        ),
        veto=compile_alternation(r"\bretry(ing)?\b", r"\bwill retry\b"),
    ),
)
GENERIC = "script-failure"

# A `set -x` trace line ("+ cmd", "++ cmd"), maybe behind a timestamp: a command being run,
# not its outcome.
_TRACE = re.compile(r"^\s*(\[[^\]]*\]\s*|\d{4}-\d\d-\d\d[T ][\d:.,]+Z?\s+)?\++\s")
# Zero counts ("0 failed", "no errors", "failures: 0") say that nothing failed.
_ZERO_COUNT = compile_alternation(
    r"\b(0|no|zero)\s+(\w+\s+){0,2}?(errors?|failed|failures?|failing)\b",
    r"\b(errors?|failed|failures?)\s*[:=]\s*0\b(?![.\d])",
)


# One CloudWatch query for every family: any term (CloudWatch terms are case-sensitive).
LOG_FILTER = " ".join(
    f"?{term}"
    for term in (
        '"command not found"',
        "timeout",
        '"timed out"',
        '"Could not connect"',
        "AccessDenied",
        "Forbidden",
        '"(403)"',
        '"not authorized"',
        "KeyError",
        "provisioning_parameters",
        '"not found"',
        '"exit code"',
        '"exit status"',
        '"non-zero"',
        '": line"',  # bash's "<script>: line N: <error>", for the failing line's number
        "failed",
        "Failed",
        "FAILED",
        "failure",
        "Failure",
    )
)


def classify_line(message: str) -> LogFamily | None:
    text = message or ""
    trace = bool(_TRACE.match(text))
    text = _ZERO_COUNT.sub(" ", text)
    for family in LOG_FAMILIES:
        if trace and not family.on_trace:
            continue
        if family.veto is not None and family.veto.search(text):
            continue
        if family.pattern.search(text):
            return family
    return None
