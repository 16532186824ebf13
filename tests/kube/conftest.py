"""Shared fixtures: a small recorded cluster, and an environment with no kubeconfig."""

from __future__ import annotations

from pathlib import Path

import pytest

from cluster_simulator.node_samples import k8s_faults, k8s_objects
from tools.recorded.model import KubernetesObjects

GPU = [(f"i-0{n:016x}", "gpu-workers", "ml.p5.48xlarge", "us-west-2c") for n in range(1, 5)]
CPU = [(f"i-0{n:016x}", "cpu-workers", "ml.m5.2xlarge", "us-west-2c") for n in range(5, 7)]


@pytest.fixture
def objects() -> KubernetesObjects:
    built = k8s_objects.healthy_objects(GPU + CPU)
    k8s_faults.aws_node_crashloop(built, GPU[2][0])
    k8s_faults.sandbox_failure(built, GPU[2][0])
    k8s_faults.image_pull_backoff(built, CPU[0][0])
    return built


@pytest.fixture(autouse=True)
def no_kubeconfig(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """HOME without ~/.kube and no KUBECONFIG: nothing of the developer's leaks in."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("KUBECONFIG", raising=False)
    return home
