"""scripts/refresh_docs.py rewrites exactly the generated parts of README.md and docs/mcp.md."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("refresh_docs", ROOT / "scripts/refresh_docs.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_stale_sample_report_is_replaced_and_the_rest_kept() -> None:
    stale = "intro\n```\nHyperPod triage: an old report\n```\nafter\n"
    fresh = _script().readme_with_sample(stale)
    assert fresh.startswith("intro\n```\nHyperPod triage:")
    assert fresh.endswith("```\nafter\n")
    assert "an old report" not in fresh
    assert fresh == _script().readme_with_sample(fresh)  # idempotent


def test_a_stale_tool_table_and_count_are_replaced() -> None:
    from agent.mcp.docs import END, START, tool_table

    stale = f"The tools (1 today; see below):\n\n{START}\n| `old` | gone |\n{END}\nafter\n"
    fresh = _script().mcp_doc_with_table(stale)
    table = tool_table()
    assert table in fresh
    assert f"({table.count(chr(10) + '| `')} today;" in fresh
    assert "`old`" not in fresh
    assert fresh.endswith(f"{END}\nafter\n")


def test_a_stale_output_table_is_replaced() -> None:
    from agent.mcp.docs import OUTPUTS_END, OUTPUTS_START, output_table

    stale = f"before\n{OUTPUTS_START}\n| `OldOutput` | gone |\n{OUTPUTS_END}\nafter\n"
    fresh = _script().mcp_doc_with_outputs(stale)
    assert output_table() in fresh
    assert "OldOutput" not in fresh
    assert fresh == f"before\n{output_table()}\nafter\n"
