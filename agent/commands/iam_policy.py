"""`hyperpod-debug iam-policy`: print the least-privilege IAM policy triage needs."""

from __future__ import annotations

import json

import typer


def iam_policy_command() -> None:
    """Print the read-only IAM policy document (JSON) that covers every triage call."""
    from tools.aws.allowlist import iam_policy_document

    typer.echo(json.dumps(iam_policy_document(), indent=2))


def register(app: typer.Typer) -> None:
    app.command("iam-policy")(iam_policy_command)
