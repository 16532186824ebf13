"""Shared CLI plumbing: argument validation, colour policy, clean exits."""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import typer

from tools.display import argument, printable

if TYPE_CHECKING:
    from tools.recorded.model import RecordedCluster
    from tools.target import TriageTarget

# pydantic and tools.target (a pydantic model) load only where a target is validated:
# `--help` and `explain` never pay for them.

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class Stopped(typer.Exit):
    """The exit `die` raises: the line it printed and what kind of error it was, for a
    command whose output is JSON to say it there too (`ask --format json`)."""

    def __init__(self, code: int, message: str, kind: str) -> None:
        super().__init__(code)
        self.message = message
        self.kind = kind


def die(message: str, code: int, kind: str | None = None) -> NoReturn:
    """One line on stderr and the exit code. Values the user gave are clipped where the
    message is built (`shown`); the whole line is made printable here. `kind` names the
    error for JSON output: "usage" (exit 2) or "failed" unless given."""
    line = printable(message)
    typer.echo(f"error: {line}", err=True)
    raise Stopped(code, line, kind or ("usage" if code == EXIT_USAGE else "failed"))


def shown(value: object) -> str:
    """A user-supplied value (cluster name, region, path ...) as an error message echoes
    it: one line, at most 200 characters, its full length said when clipped."""
    return argument(value)


def lenient_stdin() -> None:
    """Stdin that is not valid UTF-8 (a pasted binary log, an encoded surrogate) is read
    with replacement characters instead of failing the read."""
    reconfigure = getattr(sys.stdin, "reconfigure", None)
    if reconfigure is not None:
        with contextlib.suppress(ValueError, OSError):  # already read from, or closed
            reconfigure(errors="replace")


DEBUG_LOGGERS = ("tools", "agent", "evals")


def enable_debug() -> None:
    """`--debug`: internal errors are logged to stderr with their traceback (without it,
    a failed check is one line in the report and nothing more)."""
    import logging

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("debug: %(name)s: %(message)s"))
    for name in DEBUG_LOGGERS:
        logger = logging.getLogger(name)
        logger.setLevel(logging.DEBUG)
        logger.addHandler(handler)


def use_colour(no_color: bool) -> bool:
    if no_color or os.environ.get("NO_COLOR"):
        return False
    return sys.stdout.isatty()


def resolve_region(region: str | None, cluster: str | None, fallback: str | None = None) -> str:
    """--region, then the cluster ARN's region, then AWS_REGION / AWS_DEFAULT_REGION.

    The ARN names where the cluster lives, so it beats an environment default; only an
    explicit --region that contradicts it is an error (see `build_target`).
    """
    if region:
        return region
    from tools.target import CLUSTER_ARN

    match = CLUSTER_ARN.match(cluster or "")
    if match:
        return match.group("region")
    for variable in ("AWS_REGION", "AWS_DEFAULT_REGION"):
        value = os.environ.get(variable)
        if value:
            return value
    if fallback:
        return fallback
    die("a region is required: pass --region or set AWS_DEFAULT_REGION", EXIT_USAGE)


def build_target(cluster: str, region: str, node: str | None) -> TriageTarget:
    from pydantic import ValidationError

    from tools.target import CLUSTER_ARN, TriageTarget

    try:
        target = TriageTarget(cluster=cluster, region=region, node=node)
    except ValidationError as exc:
        problems = "; ".join(str(e["msg"]).removeprefix("Value error, ") for e in exc.errors())
        die(problems, EXIT_USAGE)
    match = CLUSTER_ARN.match(target.cluster)
    if match and match.group("region") != target.region:
        die(
            f"the cluster ARN is in {match.group('region')} but --region is {target.region}",
            EXIT_USAGE,
        )
    return target


def load_recording_or_exit(path: Path) -> RecordedCluster:
    from tools.recorded.model import RecordedFileError, load_recorded

    try:
        return load_recorded(path)
    except RecordedFileError as exc:
        die(str(exc), EXIT_USAGE)
