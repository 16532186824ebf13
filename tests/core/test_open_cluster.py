"""The seam: one way to open a cluster, a subset of checks, typed inputs, per-node views."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from tools.aws.session import AwsAccess
from tools.recorded.model import load_recorded
from tools.registry import ClusterScope, NodeScope, all_checks, get_check
from tools.target import TriageTarget
from tools.triage.open_cluster import DataSource, open_cluster
from tools.triage.runner import run_checks, run_triage

ROOT = Path(__file__).resolve().parents[2]
CLUSTERS = ROOT / "evals" / "clusters"
FAILED_NODE = "i-00000000000000003"  # demo-eks: the node with Xid 79


def _open(name: str, node: str | None = None) -> Any:
    recording = load_recorded(CLUSTERS / f"{name}.json")
    target = TriageTarget(cluster=recording.cluster, region=recording.region, node=node)
    return open_cluster(target, source=DataSource(recorded=recording))


def _count_calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    calls: list[tuple[str, str]] = []
    original = AwsAccess._invoke

    def counting(self: AwsAccess, service: str, operation: str, params: dict[str, Any]) -> Any:
        calls.append((service, operation))
        return original(self, service, operation, params)

    monkeypatch.setattr(AwsAccess, "_invoke", counting)
    return calls


def test_open_cluster_replays_a_recording_with_its_time_and_account() -> None:
    data = _open("demo-eks")
    report = run_triage(data)
    assert report.recorded
    assert report.cluster.name == "ml-cluster-eks"
    assert data.now.isoformat().startswith("2026-11-20T12:00:00")
    assert any(f.status == "FAIL" and f.section == "G.2" for f in report.findings)


def test_run_checks_runs_only_the_named_checks() -> None:
    outputs = run_checks(_open("demo-eks"), ["efa-security-groups", "gpu-xid"])
    assert [o.check for o in outputs] == ["efa-security-groups", "gpu-xid"]  # registry order
    assert any(f.status == "FAIL" for f in outputs[0].findings)


def test_run_checks_unknown_id_raises() -> None:
    with pytest.raises(KeyError, match="no-such-check"):
        run_checks(_open("demo-eks"), ["no-such-check"])


def test_a_check_for_another_orchestrator_answers_with_a_skip() -> None:
    (output,) = run_checks(_open("demo-eks"), ["slurm-nodes"])
    assert not output.findings
    assert "Slurm clusters only" in output.skipped[0].reason


def test_node_view_matches_a_run_opened_on_that_node() -> None:
    ids = ["cluster-nodes", "gpu-xid", "gpu-count", "k8s-node-health"]
    whole = _open("demo-eks")
    run_checks(whole, ids)
    from_view = run_checks(whole.for_node(FAILED_NODE), ids)
    fresh = run_checks(_open("demo-eks", node=FAILED_NODE), ids)
    assert [o.model_dump() for o in from_view] == [o.model_dump() for o in fresh]


def test_views_share_what_was_fetched(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _count_calls(monkeypatch)
    data = _open("demo-eks")
    run_checks(data, ["cluster-nodes", "efa-security-groups"])
    first = len(calls)
    run_checks(data.for_node(FAILED_NODE), ["cluster-nodes", "efa-security-groups"])
    run_checks(data, ["cluster-nodes", "efa-security-groups"])
    assert first > 0
    assert len(calls) == first  # nothing read twice


def test_a_node_already_probed_is_not_probed_again() -> None:
    data = _open("demo-eks")
    everyone = data.node_probes()
    assert FAILED_NODE in everyone
    focused = data.for_node(FAILED_NODE).node_probes()
    assert focused == {FAILED_NODE: everyone[FAILED_NODE]}


def test_for_node_with_the_same_focus_is_the_same_object() -> None:
    data = _open("demo-eks")
    assert data.for_node(None) is data
    view = data.for_node(FAILED_NODE)
    assert view.target.node == FAILED_NODE
    assert data.target.node is None


def test_every_check_has_a_typed_input_model_by_scope() -> None:
    for spec in all_checks():
        expected = NodeScope if spec.scope == "node" else ClusterScope
        assert spec.input_model is expected, spec.id
    assert get_check("gpu-xid").scope == "node"
    assert get_check("efa-security-groups").scope == "cluster"


@pytest.mark.parametrize("bad", ["i-123", "I-0123456789abcdef0", "sg-0123456789abcdef0", "i-xyz"])
def test_node_scope_refuses_what_is_not_an_instance_id(bad: str) -> None:
    with pytest.raises(ValidationError):
        NodeScope(instance_id=bad)


def test_cluster_scope_takes_no_arguments() -> None:
    with pytest.raises(ValidationError):
        ClusterScope.model_validate({"instance_id": "i-0123456789abcdef0"})


# -- layering ----------------------------------------------------------------------------------

LOWER = ("aws", "kube", "probes", "parsers", "recorded", "commands", "explain")
HIGHER = ("tools.checks", "tools.triage", "tools.registry", "agent", "prompts", "evals")


def _imports(path: Path) -> list[str]:
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
        elif isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
    return names


@pytest.mark.parametrize("package", LOWER)
def test_lower_layers_import_nothing_from_higher_ones(package: str) -> None:
    offenders = [
        f"{path.relative_to(ROOT)}: {name}"
        for path in sorted((ROOT / "tools" / package).rglob("*.py"))
        for name in _imports(path)
        if name.startswith(HIGHER)
    ]
    assert offenders == []


def test_loading_the_kubernetes_config_loads_no_check() -> None:
    code = (
        "import sys, tools.kube.config, tools.kube.access; "
        "print(sorted(m for m in sys.modules if m.startswith(('tools.checks', 'tools.triage'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"
