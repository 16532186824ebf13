"""`hyperpod-debug explain`: pasted error text → ranked reference sections, offline."""

from __future__ import annotations

import json
import sys
from typing import Annotated, Literal

import typer

from agent.commands.common import EXIT_USAGE, die
from tools.sections import SECTIONS

_STDIN_MARKER = "-"


def _read_stdin(limit_chars: int) -> str:
    """Read at most a little more than the explain cap from stdin, decoding leniently."""
    stream = sys.stdin
    raw = getattr(stream, "buffer", None)
    if raw is not None:
        data: bytes = raw.read(limit_chars * 4 + 4)
        return data.decode("utf-8", errors="replace")
    return stream.read(limit_chars + 1)


def _input_text(text: str | None) -> str:
    from tools.explain import MAX_INPUT_CHARS

    if text is not None and text != _STDIN_MARKER:
        return text
    if text is None and sys.stdin.isatty():
        die(
            "no text to explain: pass TEXT, or pipe the error text in (use '-' for stdin)",
            EXIT_USAGE,
        )
    return _read_stdin(MAX_INPUT_CHARS)


def explain_command(
    text: Annotated[
        str | None,
        typer.Argument(
            help="Error text to explain; '-' or nothing reads it from stdin.", show_default=False
        ),
    ] = None,
    output_format: Annotated[
        Literal["text", "json"], typer.Option("--format", "-f", help="Output format.")
    ] = "text",
    top: Annotated[
        int,
        typer.Option("--top", "-n", min=1, max=len(SECTIONS), help="How many sections to show."),
    ] = 5,
) -> None:
    """Match pasted error text to reference sections, with no AWS access and no model."""
    from tools.display import encodable, printable
    from tools.explain import explain
    from tools.explain.render import render_text

    body = _input_text(text)
    if not body.strip():
        die("nothing to explain: the input is empty", EXIT_USAGE)
    result = explain(body, top=top)
    if output_format == "json":
        typer.echo(encodable(json.dumps(result.to_json(), indent=2, ensure_ascii=False)))
    else:
        typer.echo(printable(render_text(result)), nl=False)


def register(app: typer.Typer) -> None:
    app.command("explain")(explain_command)
