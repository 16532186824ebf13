"""Cluster and provisioning fault families (§ D, § F, § J)."""

from __future__ import annotations

from evals.clusters.scenario import Scenario

CLUSTER: list[Scenario] = []
