"""Slurm reads (being written: issue 3)."""

from __future__ import annotations

from tools.triage.data.nodes import NodeReads


class SlurmReads(NodeReads):
    def slurm_unhealthy_instance_ids(self) -> list[str]:
        """Instance ids of Slurm nodes that are DOWN / DRAIN / FAIL / NOT_RESPONDING."""
        return []
