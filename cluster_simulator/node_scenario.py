"""What the node-level scenario families share: the nodes they plant faults on, the
scenario with exactly one finding, and rewrites of the Slurm controller's probe outputs.
Each family edits a world that `node_world.add_node_level` made healthy at node level."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from cluster_simulator import base
from cluster_simulator.node_samples import slurm
from cluster_simulator.node_world import controller_id, set_probe, slurm_name
from cluster_simulator.scenario import Base, Scenario
from cluster_simulator.world import World

GPU_NODE = base.instance_id(1)  # the accelerator node a triage probes when nothing fails
SLURM_GPU_NODE = base.instance_id(2)  # the first GPU worker of the Slurm world
SECOND_GPU_NODE = base.instance_id(3)


def set_controller(world: World, probe: str, stdout: str) -> None:
    set_probe(world, controller_id(world), probe, stdout)


def rewrite_sinfo(world: World, faults: dict[str, tuple[str, str]]) -> None:
    """Rewrite the controller's sinfo with `faults` (instance id -> (state, reason))."""
    controller = controller_id(world)
    rows = []
    for node in world.nodes:
        if node["InstanceId"] == controller:
            continue
        state, reason = faults.get(str(node["InstanceId"]), ("idle", ""))
        rows.append((slurm_name(node), state, reason))
    set_controller(world, "slurm_nodes", slurm.sinfo(rows))


@dataclass(frozen=True)
class ExpectedFinding:
    """The one FAIL/WARN finding a scenario expects: its check, status and section, and the
    node it names ("" for none)."""

    check: str
    status: str
    section: str
    node: str


def one_finding(
    name: str,
    description: str,
    base_kind: Base,
    edit: Callable[[World], None],
    expected: ExpectedFinding,
) -> Scenario:
    """A scenario with exactly one FAIL/WARN finding, `expected`."""
    check, node = expected.check, expected.node
    return Scenario(
        name,
        description,
        base_kind,
        edit,
        expect=[(check, expected.status, expected.section)],
        resources={check: [node]} if node else {},
    )
