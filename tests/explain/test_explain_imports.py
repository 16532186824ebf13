"""tools.explain stays light: no boto3, kubernetes or anthropic, and a quick import."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("boto3", "botocore", "kubernetes", "anthropic")


def _modules_after(statement: str) -> set[str]:
    code = f"import sys\n{statement}\nprint('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def test_explain_imports_nothing_heavy() -> None:
    modules = _modules_after("from tools.explain import explain; explain('Xid 79 aws-node 50051')")
    assert not [m for m in modules if m.split(".")[0] in HEAVY]


def test_explain_command_module_imports_nothing_heavy() -> None:
    modules = _modules_after(
        "import typer\nfrom agent.commands.explain import register\nregister(typer.Typer())"
    )
    assert not [m for m in modules if m.split(".")[0] in HEAVY]
