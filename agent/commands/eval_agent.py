"""`hyperpod-debug eval agent` and `eval new`: conversation evals, and new cases from
transcripts."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from agent.commands.common import EXIT_FAILED, EXIT_USAGE, die, shown
from agent.commands.options import ModelOption, ProviderChoice

if TYPE_CHECKING:
    from agent.providers.base import Provider
    from evals.agent_eval.case import LoadedCase
    from evals.agent_eval.run import ProviderFactory

DEFAULT_CASES = Path(__file__).resolve().parents[2] / "evals" / "agent"


def agent_command(
    cases: Annotated[
        str, typer.Option("--cases", help="Glob of case folders under --cases-dir.")
    ] = "*",
    cases_dir: Annotated[
        Path, typer.Option("--cases-dir", help="Where the case folders are.")
    ] = DEFAULT_CASES,
    tag: Annotated[
        list[str] | None,
        typer.Option("--tag", help="Only cases with this tag (repeat: any of them)."),
    ] = None,
    provider: Annotated[
        ProviderChoice,
        typer.Option("--provider", help="scripted (each case's script.json), anthropic, bedrock."),
    ] = ProviderChoice.scripted,
    model: ModelOption = None,
    region: Annotated[str | None, typer.Option("--region", help="Bedrock region.")] = None,
    repeat: Annotated[int, typer.Option("--repeat", min=1, max=20, help="Runs per case.")] = 1,
    jobs: Annotated[int, typer.Option("--jobs", min=1, max=32, help="Runs in parallel.")] = 4,
    min_pass_rate: Annotated[
        float, typer.Option("--min-pass-rate", min=0.0, max=1.0, help="Exit 1 below this.")
    ] = 1.0,
    markdown: Annotated[Path | None, typer.Option("--markdown", help="Write the table.")] = None,
    json_path: Annotated[Path | None, typer.Option("--json", help="Write the JSON report.")] = None,
    junit: Annotated[Path | None, typer.Option("--junit", help="Write JUnit XML.")] = None,
    price_input: Annotated[
        float | None, typer.Option("--price-input", help="USD per million input tokens.")
    ] = None,
    price_output: Annotated[
        float | None, typer.Option("--price-output", help="USD per million output tokens.")
    ] = None,
    judge: Annotated[
        ProviderChoice | None,
        typer.Option("--judge", help="Also grade each rubric with a judge model (provider)."),
    ] = None,
    judge_model: Annotated[str | None, typer.Option("--judge-model", help="Judge model.")] = None,
    judge_script: Annotated[
        Path | None, typer.Option("--judge-script", help="Judge turns (--judge scripted).")
    ] = None,
    mutate: Annotated[
        bool,
        typer.Option(
            "--mutate",
            help="Grade generated bad variants of each case's script instead (scripted "
            "provider): how many the graders catch, per mutation kind and per grader.",
        ),
    ] = False,
    mutation: Annotated[
        list[str] | None,
        typer.Option("--mutation", help="With --mutate: only this kind (repeat for more)."),
    ] = None,
) -> None:
    """Play every agent case against its recorded cluster and grade the conversation.

    Exits 1 on any safety violation or a pass rate below --min-pass-rate. With --mutate,
    exits 1 when the share of bad variants caught is below --min-pass-rate."""
    from evals.agent_eval.case import CaseError, case_folders, load_case
    from evals.agent_eval.report import render_json, to_junit, to_markdown
    from evals.agent_eval.suite import Prices, run_suite

    loaded: list[LoadedCase] = []
    try:
        folders = case_folders(cases_dir, cases)
    except (OSError, ValueError) as exc:  # a pattern or folder name the system refuses
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        die(f"cannot look for cases {shown(cases)} in {shown(cases_dir)}: {reason}", EXIT_USAGE)
    for folder in folders:
        try:
            case = load_case(folder)
        except CaseError as exc:
            die(str(exc), EXIT_USAGE)
        if not tag or any(t in case.case.tags for t in tag):
            loaded.append(case)
    if not loaded:
        die(f"no agent case matches '{shown(cases)}' in {shown(cases_dir)}", EXIT_USAGE)
    if mutate:
        if provider is not ProviderChoice.scripted:
            die("--mutate rewrites each case's script: use --provider scripted", EXIT_USAGE)
        _mutate(loaded, mutation or [], jobs, min_pass_rate, markdown, json_path)
        return
    factory = _factory(provider, model, region)
    judge_factory = None
    if judge is not None:
        judge_factory = _judge_factory(judge, judge_model, region, judge_script)
    result = run_suite(
        loaded,
        factory,
        repeats=repeat,
        jobs=jobs,
        prices=Prices(price_input, price_output),
        judge_provider=judge_factory,
    )
    table = to_markdown(result)
    typer.echo(table, nl=False)
    for path, text in (
        (markdown, table),
        (json_path, render_json(result)),
        (junit, to_junit(result)),
    ):
        if path is not None:
            try:
                path.write_text(text, encoding="utf-8")
            except OSError as exc:
                die(f"cannot write {shown(path)}: {exc.strerror}", EXIT_FAILED)
    if result.violations or result.pass_rate < min_pass_rate:
        raise typer.Exit(EXIT_FAILED)


def _mutate(
    loaded: list[LoadedCase],
    kinds: list[str],
    jobs: int,
    min_caught: float,
    markdown: Path | None,
    json_path: Path | None,
) -> None:
    import json

    from evals.agent_eval.mutate import KIND_NAMES, KINDS, measure, to_json, to_markdown

    unknown = [k for k in kinds if k not in KIND_NAMES]
    if unknown:
        die(
            f"unknown mutation {shown(unknown[0])}; known: {', '.join(KIND_NAMES)}",
            EXIT_USAGE,
        )
    chosen = [k for k in KINDS if not kinds or k.name in kinds]
    result = measure(loaded, chosen, jobs=jobs)
    table = to_markdown(result)
    typer.echo(table, nl=False)
    report = json.dumps(to_json(result), indent=2, ensure_ascii=False) + "\n"
    for path, text in ((markdown, table), (json_path, report)):
        if path is not None:
            try:
                path.write_text(text, encoding="utf-8")
            except OSError as exc:
                die(f"cannot write {shown(path)}: {exc.strerror}", EXIT_FAILED)
    generated = len(result.outcomes)
    if generated and result.caught / generated < min_caught:
        raise typer.Exit(EXIT_FAILED)


def _factory(provider: ProviderChoice, model: str | None, region: str | None) -> ProviderFactory:
    from agent.providers.base import ProviderName, ProviderUnavailable
    from agent.providers.factory import make_provider

    name: ProviderName = provider.value

    if provider is ProviderChoice.scripted:

        def scripted(loaded: LoadedCase) -> Provider:
            from agent.providers.scripted import ScriptedProvider

            return ScriptedProvider.from_file(loaded.script_path, model=model)

        return scripted
    try:  # fail once, up front, when the provider cannot be used at all
        make_provider(name, model=model, region=region, profile=None, script=None)
    except ProviderUnavailable as exc:
        die(str(exc), EXIT_FAILED)

    def live(_: LoadedCase) -> Provider:
        return make_provider(name, model=model, region=region, profile=None, script=None)

    return live


def _judge_factory(
    judge: ProviderChoice, model: str | None, region: str | None, script: Path | None
) -> ProviderFactory:
    from agent.providers.base import ProviderName, ProviderUnavailable
    from agent.providers.factory import make_provider

    name: ProviderName = judge.value
    try:
        make_provider(name, model=model, region=region, profile=None, script=script)
    except ProviderUnavailable as exc:
        die(f"judge: {exc}", EXIT_FAILED)

    def build(_: LoadedCase) -> Provider:
        return make_provider(name, model=model, region=region, profile=None, script=script)

    return build


def new_command(
    recorded: Annotated[
        list[Path], typer.Option("--recorded", help="The recording(s) the chat ran on.")
    ],
    transcript: Annotated[Path, typer.Option("--transcript", help="A saved chat transcript.")],
    output: Annotated[Path, typer.Option("--output", "-o", help="The new case folder.")],
    case_id: Annotated[
        str | None, typer.Option("--id", help="Case id (default: folder name).")
    ] = None,
) -> None:
    """Draft a case from a saved `chat` transcript and its recording(s), for a person to
    review: the user's turns, the sections cited, the suggestions made, the model's turns as
    the case's script."""
    from evals.agent_eval.draft import DraftError, draft_case

    try:
        written = draft_case(recorded, transcript, output, case_id=case_id)
    except DraftError as exc:
        die(str(exc), EXIT_USAGE)
    typer.echo(f"Drafted {written}: review case.json (expectations) before committing it.")


def register(group: typer.Typer) -> None:
    group.command("agent")(agent_command)
    group.command("new")(new_command)
