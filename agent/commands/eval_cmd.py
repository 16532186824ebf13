"""`hyperpod-debug eval`: grade triage on recorded clusters and explain on labelled cases;
`eval agent` runs the agent's conversation cases; `eval new` drafts a case from a transcript."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from agent.commands.common import EXIT_FAILED, EXIT_USAGE, die, shown

DEFAULT_CLUSTERS = Path(__file__).resolve().parents[2] / "evals" / "clusters"


def _cluster_files(paths: list[Path]) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        try:
            if path.is_dir():
                files.extend(sorted(path.glob("*.json")))
                continue
            is_file = path.is_file()
        except (OSError, ValueError) as exc:  # a name too long, a NUL byte
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            die(f"cannot read {shown(path)}: {reason}", EXIT_USAGE)
        if not is_file:
            die(f"no such file or directory: {shown(path)}", EXIT_USAGE)
        files.append(path)
    return files


def eval_command(
    ctx: typer.Context,
    clusters: Annotated[
        list[Path] | None,
        typer.Option("--clusters", help="Recorded-cluster files or folders (default: bundled)."),
    ] = None,
    explain_cases: Annotated[
        Path | None,
        typer.Option("--explain-cases", help="JSONL of explain cases (default: bundled)."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print results as JSON.")] = False,
) -> None:
    """Grade every recorded cluster that declares `expect`, and score explain (top-1/top-3).

    Exits 1 when a cluster case fails, so a pipeline can gate on it. Subcommands: `agent`
    (conversation evals) and `new` (a case from a saved chat transcript).
    """
    if ctx.invoked_subcommand is not None:
        return
    from evals.explain.score import CASES_PATH, load_cases, render, score
    from evals.grading import CaseResult, grade
    from tools.recorded.model import RecordedFileError, load_recorded

    results = []
    for path in _cluster_files(clusters or [DEFAULT_CLUSTERS]):
        try:
            recording = load_recorded(path)
        except RecordedFileError as exc:
            # One unreadable case fails; it does not stop the others from being graded.
            results.append(CaseResult(name=path.stem, problems=[str(exc)]))
            continue
        results.append(grade(path.stem, recording))
    try:
        cases = load_cases(explain_cases or CASES_PATH)
    except (OSError, ValueError) as exc:
        die(f"cannot read explain cases: {shown(exc)}", EXIT_USAGE)
    explain_scores = score(cases)
    failed = [r for r in results if not r.passed]
    if as_json:
        payload: dict[str, Any] = {
            "clusters": [
                {"name": r.name, "passed": r.passed, "problems": r.problems} for r in results
            ],
            "explain": {group: vars(t) for group, t in explain_scores.items()},
        }
        typer.echo(json.dumps(payload, indent=2, default=str))
    else:
        for result in results:
            typer.echo(f"{'PASS' if result.passed else 'FAIL'}  {result.name}")
            for problem in result.problems:
                typer.echo(f"      {problem}")
        typer.echo(f"\nclusters: {len(results) - len(failed)}/{len(results)} passed\n")
        typer.echo(render(explain_scores))
    if failed:
        raise typer.Exit(EXIT_FAILED)


def register(app: typer.Typer) -> None:
    from agent.commands import eval_agent

    group = typer.Typer(
        invoke_without_command=True,
        no_args_is_help=False,
        add_completion=False,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
    )
    group.callback()(eval_command)
    eval_agent.register(group)
    app.add_typer(group, name="eval")
