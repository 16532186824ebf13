"""The CLI starts without the heavy SDKs: `--help` and offline paths stay fast.

Import-set tests, not timing tests: each command imports only what it uses (issue 12,
item 5). `scripts/bench_startup.py` prints the timings.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY_SDKS = ("boto3", "botocore", "anthropic", "kubernetes", "openai")
_MARKER = "---modules---"


def test_cli_import_does_not_load_heavy_sdks() -> None:
    code = (
        "import sys, agent.cli; "
        "heavy = [m for m in ('boto3', 'botocore', 'anthropic', 'kubernetes') "
        "if m in sys.modules]; "
        "print(','.join(heavy))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == ""


def _modules_after_cli(*argv: str) -> set[str]:
    """Run `hyperpod-debug ARGV` in a fresh interpreter; the modules it had loaded at exit."""
    code = (
        "import sys\n"
        f"sys.argv = ['hyperpod-debug', *{list(argv)!r}]\n"
        "from agent.cli import main\n"
        "try:\n"
        "    main()\n"
        "except SystemExit as exc:\n"
        "    assert exc.code in (None, 0), exc.code\n"
        f"print({_MARKER!r})\n"
        "print('\\n'.join(sorted(sys.modules)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert _MARKER in result.stdout, result.stderr
    return set(result.stdout.split(_MARKER, 1)[1].split())


def _loaded(modules: set[str], *prefixes: str) -> list[str]:
    return sorted(m for m in modules if any(m == p or m.startswith(p + ".") for p in prefixes))


@pytest.mark.parametrize("argv", [("--help",), ("explain", "NVRM: Xid 79")])
def test_help_and_explain_import_no_check_module_and_no_sdk(argv: tuple[str, ...]) -> None:
    modules = _modules_after_cli(*argv)
    assert "agent.cli" in modules  # the command ran in this interpreter
    assert _loaded(modules, "tools.checks", "tools.registry", "tools.triage") == []
    assert _loaded(modules, *HEAVY_SDKS) == []
    assert _loaded(modules, "agent.providers", "agent.loop", "agent.toolset") == []


def test_help_imports_no_pydantic_model() -> None:
    """`--help` validates nothing: no pydantic, no target model, no explain engine."""
    modules = _modules_after_cli("--help")
    assert _loaded(modules, "pydantic", "pydantic_core", "tools.target", "tools.explain") == []
    assert _loaded(modules, "tarfile", "logging") == []


def test_explain_imports_no_target_model() -> None:
    """`explain` is offline text matching: the triage target model is not needed."""
    modules = _modules_after_cli("explain", "NVRM: Xid 79")
    assert "tools.explain" in modules
    assert _loaded(modules, "tools.target", "tools.recorded", "tools.aws") == []


@pytest.mark.parametrize(
    "argv",
    [
        ("explain", "NVRM: Xid 79"),
        ("explain", "--format", "json", "--top", "3", "Xid 48 on i-0123456789abcdef0"),
        ("--debug", "explain", "No space left on device"),
    ],
)
def test_explain_imports_no_pydantic_and_no_other_command(argv: tuple[str, ...]) -> None:
    """`explain` builds only its own command (no other command module), coerces its
    values without typer's pydantic adapters, and its result is plain dataclasses."""
    modules = _modules_after_cli(*argv)
    assert _loaded(modules, "pydantic", "pydantic_core", "typer._adapters") == []
    commands = _loaded(modules, "agent.commands")
    assert set(commands) <= {
        "agent.commands",
        "agent.commands.common",
        "agent.commands.explain",
        "agent.commands.explain_startup",
    }
    assert _loaded(modules, "rich") == []


def test_help_imports_no_pydantic_adapter_and_no_rich() -> None:
    """`--help` formats without rich and coerces nothing through pydantic."""
    modules = _modules_after_cli("--help")
    assert _loaded(modules, "rich", "typer._adapters", "typer.rich_utils") == []


# The MCP SDK (with starlette and uvicorn) costs seconds to import: only `mcp` pays for it.
MCP_SDK = ("mcp", "mcp_types", "agent.mcp.server", "starlette", "uvicorn")


def test_help_imports_no_mcp_sdk() -> None:
    modules = _modules_after_cli("--help")
    assert _loaded(modules, *MCP_SDK) == []


def test_mcp_help_imports_no_mcp_sdk() -> None:
    """`mcp --help` describes the server without importing the SDK that serves it."""
    modules = _modules_after_cli("mcp", "--help")
    assert "agent.commands.mcp" in modules
    assert _loaded(modules, *MCP_SDK) == []


def test_help_does_not_load_the_cluster_set_up() -> None:
    """The commands' shared set-up (dataclasses, recording checks) loads when a command
    runs; `--help` needs only the option definitions."""
    modules = _modules_after_cli("--help")
    assert "agent.commands.options" in modules
    assert _loaded(modules, "agent.commands.cluster_setup") == []
