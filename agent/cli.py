"""`hyperpod-debug`: the command line. Heavy imports stay inside the commands."""

from __future__ import annotations

import typer

from agent.commands import checks_list, eval_cmd, iam_policy, record, triage

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
iam_policy.register(app)
eval_cmd.register(app)


def _register_optional() -> None:
    """Commands that live in their own modules and may land separately."""
    import importlib

    for module_name in ("agent.commands.explain",):
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
            continue
        module.register(app)


_register_optional()


def main() -> None:
    app()
