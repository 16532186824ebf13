"""`hyperpod-debug probes`: the fixed catalogue of read-only node probes, exactly as sent."""

from __future__ import annotations

import json
from typing import Annotated

import typer


def probes_command(
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
    commands: Annotated[
        bool, typer.Option("--commands", help="Show the exact shell command of each probe.")
    ] = False,
) -> None:
    """List every command that can ever run on a node: the named read-only probes."""
    from tools.probes.catalog import CATALOGUE, NODE_TIMEOUT_S

    specs = list(CATALOGUE.values())
    if as_json:
        rows = [
            {
                "name": p.name,
                "applies_to": p.kind.value,
                "timeout_s": p.timeout_s,
                "description": p.description,
                "command": p.command,
            }
            for p in specs
        ]
        typer.echo(json.dumps({"node_timeout_s": NODE_TIMEOUT_S, "probes": rows}, indent=2))
        return
    width = max(len(p.name) for p in specs)
    kinds = max(len(p.kind.value) for p in specs)
    for spec in specs:
        typer.echo(f"{spec.name:<{width}}  {spec.kind.value:<{kinds}}  {spec.description}")
        if commands:
            typer.echo(f"{'':<{width}}  {'':<{kinds}}  $ {spec.command}")
    typer.echo(
        f"\nOne SSM session per node runs the probes that apply to it, each under `timeout`, "
        f"at most {NODE_TIMEOUT_S} s in all; nothing else can be sent (docs/how-it-works.md)."
    )


def register(app: typer.Typer) -> None:
    app.command("probes")(probes_command)
