"""`hyperpod-debug`: the command line. Heavy imports stay inside the commands, and a
command's module is imported only when that command runs or every command is listed."""

from __future__ import annotations

import os
import sys
from importlib import import_module
from typing import Annotated, Any

import typer

# Each command (or command group) and the module whose register() adds it, in --help order.
COMMANDS: dict[str, str] = {
    "triage": "agent.commands.triage",
    "record": "agent.commands.record",
    "ticket": "agent.commands.ticket",
    "checks": "agent.commands.checks_list",
    "probes": "agent.commands.probes_list",
    "iam-policy": "agent.commands.iam_policy",
    "eval": "agent.commands.eval_cmd",
    "explain": "agent.commands.explain",
    "chat": "agent.commands.chat",
    "ask": "agent.commands.ask",
    "mcp": "agent.commands.mcp",
    "verify": "agent.commands.verify",
}


def build_app(only: str | None = None) -> typer.Typer:
    """The app with every command, or with only the command ``only`` (same settings)."""
    built = typer.Typer(
        name="hyperpod-debug",
        help="Read-only diagnosis of sick nodes in SageMaker HyperPod clusters.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
    )
    built.callback()(_root)
    for name, module in COMMANDS.items():
        if only is None or name == only:
            import_module(module).register(built)
    return built


def __getattr__(name: str) -> typer.Typer:
    """`app`, the whole app, is built on first use: `main` builds only what it runs."""
    if name != "app":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    whole = build_app()
    globals()["app"] = whole
    return whole


def _clip_usage_errors() -> None:
    """Click's own usage errors ("'AAAA…' is not one of 'text', 'json'") echo the bad
    value whole: clip it like every other echoed argument, and make it printable. Every
    such error is shown through the `echo` of click's exceptions module, wrapped here."""
    try:
        from typer._click import exceptions
    except ImportError:  # a typer without its vendored click: its messages stay as they are
        return
    original: Any = getattr(exceptions, "echo", None)
    if original is None:
        return
    if getattr(original, "_clipped", False):
        return

    def echo(message: Any = None, *args: Any, **kwargs: Any) -> None:
        if isinstance(message, str) and message.startswith("Error: "):
            from tools.display import argument

            message = "Error: " + argument(message.removeprefix("Error: "), 600)
        original(message, *args, **kwargs)

    echo._clipped = True  # type: ignore[attr-defined]
    setattr(exceptions, "echo", echo)  # noqa: B010 - not a public attribute


_clip_usage_errors()


def _root(
    debug: Annotated[
        bool,
        typer.Option(
            "--debug",
            help="Print the traceback of internal errors (a check that failed) on stderr.",
        ),
    ] = False,
) -> None:
    """Read-only diagnosis of sick nodes in SageMaker HyperPod clusters."""
    if debug:
        from agent.commands.common import enable_debug

        enable_debug()


def _usable_streams() -> None:
    """Closed standard streams (`<&-`, `>&-`) are None in Python: stdin reads as empty,
    output goes nowhere. Output that cannot be encoded (a lone surrogate from the input)
    is replaced, never a crash."""
    if sys.stdin is None:
        sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - lives as long as the process
    elif hasattr(sys.stdin, "reconfigure"):
        sys.stdin.reconfigure(errors="replace")
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is None:
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))  # noqa: SIM115
        elif hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace" if name == "stdout" else "backslashreplace")


def main() -> None:
    _usable_streams()
    # As app(), with only the command that runs, and explain's values coerced without
    # pydantic: start-up (issue 12, item 5).
    from agent.commands.explain_startup import command_named, run

    argv = sys.argv[1:]
    run(build_app(only=command_named(argv, COMMANDS)), argv)
