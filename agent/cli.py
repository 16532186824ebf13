"""`hyperpod-debug`: the command line. Heavy imports stay inside the commands."""

from __future__ import annotations

import typer

from agent.commands import (
    ask,
    chat,
    checks_list,
    eval_cmd,
    explain,
    iam_policy,
    probes_list,
    record,
    triage,
)

app = typer.Typer(
    name="hyperpod-debug",
    help="Read-only diagnosis of sick nodes in SageMaker HyperPod clusters.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

triage.register(app)
record.register(app)
checks_list.register(app)
probes_list.register(app)
iam_policy.register(app)
eval_cmd.register(app)
explain.register(app)
chat.register(app)
ask.register(app)


def main() -> None:
    app()
