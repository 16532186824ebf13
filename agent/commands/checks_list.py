"""`hyperpod-debug checks`: list every registered read-only check."""

from __future__ import annotations

import json
from typing import Annotated

import typer


def checks_command(
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """List the registered checks with their reference sections."""
    from tools.registry import all_checks

    specs = all_checks()
    if as_json:
        rows = [
            {
                "id": s.id,
                "section": s.section,
                "title": s.title,
                "description": s.description,
                "orchestrators": sorted(s.orchestrators),
            }
            for s in specs
        ]
        typer.echo(json.dumps(rows, indent=2))
        return
    width = max(len(s.id) for s in specs)
    for spec in specs:
        typer.echo(f"{spec.id:<{width}}  § {spec.section:<6} {spec.title}")


def register(app: typer.Typer) -> None:
    app.command("checks")(checks_command)
