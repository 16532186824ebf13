"""Rewrite the parts of the docs that are generated from the code, after a change that adds
or renames a check or a tool (docs/architecture.md, "Worked example", step 5):

- README.md's sample report: what `triage --recorded evals/clusters/demo-eks.json
  --no-color` prints (held by tests/core/test_readme.py);
- docs/mcp.md's tool table and its tool count, and its table of the tools' output models
  (held by tests/mcp/test_mcp_docs.py).

    .venv/bin/python scripts/refresh_docs.py [--check]

`--check` changes nothing and exits 1 when a file is out of date.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SAMPLE_START = "```\nHyperPod triage:"


def readme_with_sample(readme: str) -> str:
    """README.md with its sample report replaced by what the demo command prints now."""
    from typer.testing import CliRunner

    from agent.cli import app

    demo = ["triage", "--recorded", str(ROOT / "evals/clusters/demo-eks.json"), "--no-color"]
    result = CliRunner().invoke(app, demo)
    if result.exit_code != 0:
        raise SystemExit(f"the demo triage failed (exit {result.exit_code}):\n{result.output}")
    start = readme.index(SAMPLE_START) + len("```\n")
    end = readme.index("```", start)
    return readme[:start] + result.stdout + readme[end:]


def mcp_doc_with_table(doc: str) -> str:
    """docs/mcp.md with its generated tool table and the count of tools before it."""
    from agent.mcp.docs import END, START, tool_table

    table = tool_table()
    block = re.compile(re.escape(START) + r".*?" + re.escape(END), re.DOTALL)
    if not block.search(doc):
        raise SystemExit("docs/mcp.md has no tool-table markers")
    doc = block.sub(lambda _: table, doc, count=1)
    count = table.count("\n| `")
    return re.sub(r"\(\d+ today;", f"({count} today;", doc, count=1)


def mcp_doc_with_outputs(doc: str) -> str:
    """docs/mcp.md with its generated table of output models."""
    from agent.mcp.docs import OUTPUTS_END, OUTPUTS_START, output_table

    block = re.compile(re.escape(OUTPUTS_START) + r".*?" + re.escape(OUTPUTS_END), re.DOTALL)
    if not block.search(doc):
        raise SystemExit("docs/mcp.md has no output-table markers")
    table = output_table()
    return block.sub(lambda _: table, doc, count=1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="report, do not write")
    args = parser.parse_args()
    stale: list[str] = []
    for path, refresh in (
        (ROOT / "README.md", readme_with_sample),
        (ROOT / "docs" / "mcp.md", lambda doc: mcp_doc_with_outputs(mcp_doc_with_table(doc))),
    ):
        text = path.read_text(encoding="utf-8")
        fresh = refresh(text)
        if fresh == text:
            continue
        stale.append(str(path.relative_to(ROOT)))
        if not args.check:
            path.write_text(fresh, encoding="utf-8")
    verb = "out of date" if args.check else "rewritten"
    print(f"{verb}: {', '.join(stale)}" if stale else "up to date")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
