"""Shared pieces of the Kubernetes checks: naming a node, its instance group, samples."""

from __future__ import annotations

SAMPLES = 10  # resources named by a grouped finding
SHOWN = 5  # of which shown in its message


def describe_node(name: str, instance_id: str | None, group: str | None) -> str:
    """`i-… (gpu-workers)` when the node name is just hyperpod-<id>, else with the name."""
    if not instance_id:
        return f"node {name}"
    where = f"{group}, " if group else ""
    if name == f"hyperpod-{instance_id}":
        return f"{instance_id} ({group})" if group else instance_id
    return f"{instance_id} ({where}node {name})"


def examples(ids: list[str]) -> str:
    shown = ", ".join(ids[:SHOWN])
    return shown + ("…" if len(ids) > SHOWN else "")
