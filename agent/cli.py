"""`hyperpod-debug`: the command line. Heavy imports stay inside the commands, and a
command's module is imported only when that command runs or every command is listed."""

from __future__ import annotations

import contextlib
import errno
import io
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


class _ClosedOutput(io.TextIOWrapper):
    """Standard output that was closed at start (`>&-`): writes go to the null device, and
    whether anything was written is remembered, since output that reached no one is a
    failed run (as `cat file >&-` fails with "Bad file descriptor")."""

    wrote = False

    def write(self, text: str) -> int:
        if text:
            self.wrote = True
        return super().write(text)


def _usable_streams() -> None:
    """Closed standard streams (`<&-`, `>&-`) are None in Python: stdin reads as empty,
    output goes nowhere (and a closed stdout that was written to fails the run, see
    `main`). Output that cannot be encoded (a lone surrogate from the input) is replaced,
    never a crash."""
    if sys.stdin is None:
        sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - lives as long as the process
    elif hasattr(sys.stdin, "reconfigure"):
        sys.stdin.reconfigure(errors="replace")
    if sys.stdout is None:
        sink = open(os.devnull, "wb")  # noqa: SIM115 - lives as long as the process
        sys.stdout = _ClosedOutput(sink, encoding="utf-8", errors="replace")
    elif hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="replace")
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
    elif hasattr(sys.stderr, "reconfigure"):
        sys.stderr.reconfigure(errors="backslashreplace")


# A write to standard output fails with these when its device is full or failing.
_OUTPUT_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO})


def _stdout_to_null() -> None:
    """Point standard output's descriptor at the null device, so that what is still
    buffered can be flushed (and dropped) at shutdown without failing again."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        descriptor = os.open(os.devnull, os.O_WRONLY)
        os.dup2(descriptor, sys.stdout.fileno())
        os.close(descriptor)


def _output_failed(reason: str) -> int:
    """One line on stderr (when it is open) for output that could not be written, and no
    second failure at exit: the interpreter flushes sys.stdout once more as it shuts down,
    and that flush would fail again ("Exception ignored ..." and exit 120). As the Python
    docs' SIGPIPE note does (library/signal.html, "Note on SIGPIPE"), the null device is
    put over standard output first. Returns the exit code, 1."""
    _stdout_to_null()
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.write(f"error: cannot write the output: {reason}\n")
        sys.stderr.flush()
    return 1


def _reason(error: OSError) -> str:
    return error.strerror or type(error).__name__


def main() -> None:
    _usable_streams()
    # As app(), with only the command that runs, and explain's values coerced without
    # pydantic: start-up (issue 12, item 5).
    from agent.commands.explain_startup import command_named, run

    argv = sys.argv[1:]
    code: int | str | None = 0
    try:
        run(build_app(only=command_named(argv, COMMANDS)), argv)
    except SystemExit as stop:  # click ends every run with sys.exit
        code = stop.code
    except OSError as error:
        # Click quiets a closed pipe itself (EPIPE, exit 1); a write that fails otherwise
        # (a full device, an I/O error) reaches here from the command's output.
        if error.errno in _OUTPUT_ERRNOS:
            sys.exit(_output_failed(_reason(error)))
        raise
    # Output that still sits in the buffer (all of it, for a short report into a file)
    # is written now, where a failure can still be reported, rather than at shutdown.
    try:
        sys.stdout.flush()
    except OSError as error:
        if error.errno == errno.EPIPE:  # the reader went away: quiet, as click does
            _stdout_to_null()
            sys.exit(1)
        sys.exit(_output_failed(_reason(error)))
    if isinstance(sys.stdout, _ClosedOutput) and sys.stdout.wrote and code in (0, None):
        sys.exit(_output_failed("standard output is closed"))
    sys.exit(code)
