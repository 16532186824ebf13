"""Network fault families (§ A, § B, § C)."""

from __future__ import annotations

from evals.clusters.scenario import Scenario

NETWORK: list[Scenario] = []
