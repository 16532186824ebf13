"""Print the structural figures issue 14 reports before and after: untyped data passed
around, long functions and long modules.

    .venv/bin/python scripts/structure_metrics.py [--list]

Counted over the shipped packages (tools/, agent/, evals/, prompts/): functions longer than
60 lines and modules longer than 300; inside tools/, the text `dict[str, Any]`; inside
tools/checks/, the ways a check digs into a raw API dict (`str(x.get(` and
`isinstance(..., dict)`). `--list` names the long functions and modules.
"""

from __future__ import annotations

import argparse
import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("tools", "agent", "evals", "prompts")
LONG_FUNCTION, LONG_MODULE = 60, 300

STR_GET = re.compile(r"\bstr\(\s*[\w.\[\]\"']+\.get\(")
DICT_GUARD = re.compile(r"isinstance\([^()]*,\s*dict\)")


def _python_files(*dirs: str) -> list[Path]:
    return sorted(p for d in dirs for p in (ROOT / d).rglob("*.py"))


def long_functions(files: list[Path]) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > LONG_FUNCTION:
                    found.append((length, f"{path.relative_to(ROOT)}:{node.name}"))
    return sorted(found, reverse=True)


def long_modules(files: list[Path]) -> list[tuple[int, str]]:
    sizes = ((len(p.read_text(encoding="utf-8").splitlines()), p) for p in files)
    return sorted(
        ((n, str(p.relative_to(ROOT))) for n, p in sizes if n > LONG_MODULE), reverse=True
    )


def text_count(pattern: re.Pattern[str] | str, files: list[Path]) -> int:
    texts = (p.read_text(encoding="utf-8") for p in files)
    if isinstance(pattern, str):
        return sum(t.count(pattern) for t in texts)
    return sum(len(pattern.findall(t)) for t in texts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="name the long functions/modules")
    args = parser.parse_args()
    shipped = _python_files(*PACKAGES)
    checks = _python_files("tools/checks")
    functions, modules = long_functions(shipped), long_modules(shipped)
    rows = [
        ("`dict[str, Any]` in tools/", text_count("dict[str, Any]", _python_files("tools"))),
        ("`dict[str, Any]` in tools/checks/", text_count("dict[str, Any]", checks)),
        ("`str(x.get(` in tools/checks/", text_count(STR_GET, checks)),
        ("`isinstance(..., dict)` in tools/checks/", text_count(DICT_GUARD, checks)),
        (f"functions over {LONG_FUNCTION} lines", len(functions)),
        (f"modules over {LONG_MODULE} lines", len(modules)),
    ]
    width = max(len(label) for label, _ in rows)
    for label, value in rows:
        print(f"{label:<{width}}  {value:>5}")
    if args.list:
        print("\nlong functions:")
        for length, name in functions:
            print(f"  {length:>4}  {name}")
        print("\nlong modules:")
        for length, name in modules:
            print(f"  {length:>4}  {name}")


if __name__ == "__main__":
    main()
