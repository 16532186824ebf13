"""docs/mcp.md stays true to the server: its tool table, prompts and resource URIs."""

from __future__ import annotations

import re

from mcp_support import ROOT

from agent.mcp.docs import END, START, tool_table
from agent.mcp.prompts import prompt_list
from agent.mcp.resources import CATALOG_URI, SECTION_URI_TEMPLATE, section_uri

DOC = ROOT / "docs" / "mcp.md"


def test_the_tool_table_is_the_servers_tool_list() -> None:
    text = DOC.read_text(encoding="utf-8")
    block = re.search(re.escape(START) + r".*?" + re.escape(END), text, re.DOTALL)
    assert block is not None, "docs/mcp.md lost its generated tool table"
    assert block.group(0) == tool_table(), "regenerate: .venv/bin/python -m agent.mcp.docs"
    rows = tool_table().count("\n| `")
    assert f"({rows} today;" in text


def test_the_prompts_and_resources_documented_exist() -> None:
    text = DOC.read_text(encoding="utf-8")
    for prompt in prompt_list():
        assert f"| `{prompt.name}` |" in text
    for uri in (section_uri("A"), CATALOG_URI, SECTION_URI_TEMPLATE):
        assert uri in text


def test_the_readme_links_the_mcp_doc() -> None:
    assert "(docs/mcp.md)" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_output_table_is_the_servers_output_models() -> None:
    from agent.mcp.docs import OUTPUTS_END, OUTPUTS_START, output_table

    text = DOC.read_text(encoding="utf-8")
    block = re.search(re.escape(OUTPUTS_START) + r".*?" + re.escape(OUTPUTS_END), text, re.DOTALL)
    assert block is not None, "docs/mcp.md lost its generated output table"
    assert block.group(0) == output_table(), "regenerate: .venv/bin/python scripts/refresh_docs.py"
    assert "| `TriageOutput` | `triage` | `triage_number`," in text
    assert "`old_recording`?" in text  # absent while empty, and said so
