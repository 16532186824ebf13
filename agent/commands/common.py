"""Shared CLI plumbing: argument validation, colour policy, clean exits."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import typer
from pydantic import ValidationError

from tools.target import CLUSTER_ARN, TriageTarget

if TYPE_CHECKING:
    from tools.recorded.model import RecordedCluster

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def die(message: str, code: int) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


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
