"""Every bundled scenario, healthy ones first. Fault families live in their own modules."""

from __future__ import annotations

from evals.clusters.scenario import Scenario, unchanged
from evals.clusters.scenarios_cluster import CLUSTER
from evals.clusters.scenarios_network import NETWORK

HEALTHY: list[Scenario] = [
    Scenario("healthy-eks", "A healthy EKS-orchestrated cluster.", "eks", unchanged),
    Scenario("healthy-slurm", "A healthy Slurm-orchestrated cluster.", "slurm", unchanged),
]

SCENARIOS: list[Scenario] = [*HEALTHY, *NETWORK, *CLUSTER]
