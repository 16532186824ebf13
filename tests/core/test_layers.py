"""The direction of imports between layers (docs/architecture.md, "Layers").

Reading goes one way: access (AWS, Kubernetes, node probes, recordings) → parsers → data →
checks → triage → the product (CLI, agent, MCP server, evals). A lower layer that imports a
higher one couples a rule to the way it is shown or run, and is how a check ends up making
its own AWS calls. Every import counts, including the lazy ones inside functions and those
under `TYPE_CHECKING`, because each is a dependency a reader has to follow.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("tools", "agent", "evals", "prompts")
FIRST_PARTY = (*PACKAGES, "cluster_simulator", "tests", "scripts")


@dataclass(frozen=True)
class Rule:
    """Modules under `layer` (dotted prefix) must not import any module under `forbidden`,
    except the modules named in `allowed` (exact module or prefix)."""

    layer: str
    forbidden: tuple[str, ...]
    allowed: tuple[str, ...] = ()
    why: str = ""


ACCESS = ("tools.aws", "tools.kube", "tools.probes", "tools.recorded")
ORCHESTRATION = (
    "tools.triage.runner",
    "tools.triage.render",
    "tools.triage.report",
    "tools.triage.grouping",
    "tools.triage.open_cluster",
    "tools.triage.node_sources",
)

RULES: tuple[Rule, ...] = (
    Rule(
        "tools",
        ("agent", "evals", "cluster_simulator", "tests", "scripts"),
        why="the library knows nothing of the CLI, the agent, the evals or the simulator",
    ),
    Rule(
        "agent",
        ("cluster_simulator", "tests", "scripts"),
        why="the product does not ship or need the test simulator",
    ),
    Rule("evals", ("cluster_simulator", "tests", "scripts"), why="evals ship in the wheel"),
    *(
        Rule(
            layer,
            ("tools.parsers", "tools.triage", "tools.checks", "tools.registry", "tools.explain"),
            why="access returns what AWS, Kubernetes or a node answered, unjudged",
        )
        for layer in ACCESS
    ),
    Rule(
        "tools.parsers",
        (*ACCESS, "tools.triage", "tools.checks", "tools.registry"),
        allowed=("tools.probes.model", "tools.probes.catalog"),
        why="parsers are pure text → typed values",
    ),
    Rule(
        "tools.triage.data",
        ("tools.checks", "tools.registry", *ORCHESTRATION, "tools.explain"),
        why="the data layer fetches and parses; it never judges",
    ),
    Rule(
        "tools.checks",
        ("tools.aws", "tools.kube", "tools.recorded", "tools.probes", *ORCHESTRATION),
        allowed=(
            "tools.aws.errors",
            "tools.probes.model",
            "tools.probes.catalog",
            "tools.probes.instance_facts",
        ),
        why="checks judge what the data layer read: no client, no session, no runner",
    ),
    Rule(
        "tools.signals",
        ("tools",),
        allowed=("tools.signals",),
        why="the wording registry is a leaf: checks and explain both import it",
    ),
    Rule(
        "tools.remediation",
        ("tools",),
        allowed=("tools.remediation",),
        why="the remediation table is a leaf: checks, prompts, the agent and evals all read it",
    ),
    Rule(
        "tools.explain",
        (*ACCESS, "tools.triage", "tools.checks", "tools.registry", "tools.parsers"),
        why="explain reads pasted text only: no AWS, Kubernetes or cluster data",
    ),
    Rule(
        "tools.registry",
        ("tools.aws", "tools.kube", "tools.recorded", *ORCHESTRATION),
        why="the registry names checks; it does not run them",
    ),
)


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(dotted: str) -> bool:
    path = ROOT.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _imports(path: Path) -> Iterator[tuple[int, str]]:
    """(line, imported module) for every absolute first-party import in the file."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            # `from tools.checks import _kube` imports the module tools.checks._kube; the
            # package itself counts only for names that are not modules.
            submodules = [f"{node.module}.{alias.name}" for alias in node.names]
            names = [name for name in submodules if _is_module(name)]
            if len(names) < len(submodules):
                names.append(node.module)
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        for name in names:
            if name.split(".")[0] in FIRST_PARTY:
                yield node.lineno, name


def _under(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def _source_files() -> list[tuple[str, Path]]:
    paths = sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))
    return [(_module_name(p), p) for p in paths]


def violations(rule: Rule, files: list[tuple[str, Path]]) -> list[str]:
    """Each import of a forbidden module by a module of the rule's layer, as
    "module:line imports name"."""
    found: list[str] = []
    for module, path in files:
        if not _under(module, rule.layer):
            continue
        for line, imported in _imports(path):
            if any(_under(imported, allowed) for allowed in rule.allowed):
                continue
            if any(_under(imported, forbidden) for forbidden in rule.forbidden):
                found.append(f"{module}:{line} imports {imported}")
    return sorted(set(found))


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.layer)
def test_layer_imports_point_down(rule: Rule) -> None:
    assert violations(rule, _source_files()) == [], rule.why


def _registered_check_modules() -> set[str]:
    from tools.checks import CHECK_MODULES

    return {f"tools.checks.{name}" for name in CHECK_MODULES}


def test_registered_check_modules_do_not_import_each_other() -> None:
    """A check's shared pieces live in private `tools/checks/_*.py` modules or the data
    layer: importing another registered check would tie two sections' rules together."""
    registered = _registered_check_modules()
    found = [
        f"{path.relative_to(ROOT)}:{line} imports {imported}"
        for path in sorted((ROOT / "tools" / "checks").glob("*.py"))
        if _module_name(path) in registered
        for line, imported in _imports(path)
        if imported in registered and imported != _module_name(path)
    ]
    assert found == []


def test_private_check_helpers_do_not_import_registered_checks() -> None:
    registered = _registered_check_modules()
    found = [
        f"{path.relative_to(ROOT)}:{line} imports {imported}"
        for path in sorted((ROOT / "tools" / "checks").glob("_*.py"))
        for line, imported in _imports(path)
        if imported in registered
    ]
    assert found == []


# -- The scanner itself: a rule that cannot fail proves nothing ----------------------------


def test_a_forbidden_import_is_found_lazy_ones_too(tmp_path: Path) -> None:
    rule = Rule("tools.checks", ("tools.aws",), allowed=("tools.aws.errors",))
    fake = tmp_path / "fake.py"
    fake.write_text(
        "from tools.aws.errors import AwsAccessError\n"
        "def f() -> None:\n"
        "    from tools.aws.session import AwsAccess\n",
        encoding="utf-8",
    )
    assert violations(rule, [("tools.checks.fake", fake)]) == [
        "tools.checks.fake:3 imports tools.aws.session"
    ]
    # The same file in a layer the rule does not govern is not a violation.
    assert violations(rule, [("tools.triage.data.fake", fake)]) == []


def test_from_package_import_module_counts_as_importing_the_module(tmp_path: Path) -> None:
    fake = tmp_path / "fake.py"
    fake.write_text(
        "import json\nfrom tools.checks import _kube, events\nfrom tools.findings import fail\n",
        encoding="utf-8",
    )
    assert list(_imports(fake)) == [
        (2, "tools.checks._kube"),
        (2, "tools.checks.events"),
        (3, "tools.findings"),
    ]
    assert _under("tools.checks.events", "tools.checks")
    assert not _under("tools.checksum", "tools.checks")


def test_the_architecture_page_states_every_rule() -> None:
    """docs/architecture.md names each governed layer in its table (docs held true)."""
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    rows = [line for line in page.splitlines() if line.startswith("| ")]
    for rule in RULES:
        assert any(f"`{rule.layer}`" in row for row in rows), rule.layer
