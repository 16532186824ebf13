"""A data source that cannot be used for this run (kubectl access, the SSM plugin, a node).

The triage runner turns these into `skipped` entries, exactly like AWS access errors: the
checks that need the source are skipped with the reason and the seed's hint, the others run.
"""

from __future__ import annotations


class SourceUnavailable(Exception):
    def __init__(self, reason: str, hint: str = "") -> None:
        self.reason = reason
        self.hint = hint
        super().__init__(reason)


class KubernetesUnavailable(SourceUnavailable):
    """No kubeconfig, no context, a missing exec command, or the API refused us."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason, "Install kubectl and authenticate (see § K).")


class ProbesUnavailable(SourceUnavailable):
    """Node probes cannot run at all (session-manager-plugin missing, probes disabled)."""

    def __init__(
        self, reason: str, hint: str = "Install session-manager-plugin (see § K)."
    ) -> None:
        super().__init__(reason, hint)
