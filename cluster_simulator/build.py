"""Regenerate the bundled recorded clusters: `python -m cluster_simulator.build`.

Each scenario's world answers the real triage through the real access layer while the real
recorder captures every call, so the files hold exactly what the checks ask for.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from cluster_simulator import base
from cluster_simulator.node_world import add_node_level
from cluster_simulator.scenario import Scenario
from cluster_simulator.scenarios import SCENARIOS
from cluster_simulator.world import World
from tools.aws.session import AwsAccess
from tools.kube.access import KubeAccess, KubeObservers
from tools.ownership.resolve import cluster_owners
from tools.probes.runner import ProbeRunner
from tools.probes.transport import RecordedProbes
from tools.recorded.model import RecordedCluster, dump_recorded
from tools.recorded.recorder import Recorder
from tools.sources import KubernetesUnavailable, ProbesUnavailable
from tools.target import TriageTarget
from tools.triage.data import ClusterData, NodeSources
from tools.triage.open_cluster import caller_account
from tools.triage.runner import run_triage

# The recordings are eval cases and ship in the wheel, so they live under evals/ while the
# simulator that writes them stays out of it.
CLUSTERS_DIR = Path(__file__).resolve().parents[1] / "evals" / "clusters"
log = logging.getLogger(__name__)


PLUGIN = "session-manager-plugin"


def world_sources(world: World, recorder: Recorder) -> NodeSources:
    """The world's Kubernetes API and nodes as a triage would meet them live, with the
    recorder capturing what the triage reads (as `record` does)."""

    def kube() -> KubeAccess:
        if world.kube_unavailable is not None or world.kubernetes is None:
            reason = world.kube_unavailable or "no Kubernetes API in this world"
            recorder.record_unavailable("kubernetes", "kubeconfig", reason)
            raise KubernetesUnavailable(reason)
        return KubeAccess.from_objects(
            world.kubernetes,
            observers=KubeObservers(
                on_list=recorder.record_kube_list, on_log=recorder.record_kube_log
            ),
        )

    def probes() -> ProbeRunner:
        if world.plugin_missing:
            reason = f"{PLUGIN} not found on PATH"
            recorder.record_unavailable("tool", PLUGIN, reason)
            raise ProbesUnavailable(reason)
        transport = RecordedProbes(world.probes, world.unreachable)
        return ProbeRunner(transport, on_node_done=recorder.record_probes)

    return NodeSources(kube=kube, probes=probes)


def scenario_world(scenario: Scenario) -> World:
    world = base.healthy_eks() if scenario.base == "eks" else base.healthy_slurm()
    add_node_level(world)
    scenario.edit(world)
    return world


def record_scenario(scenario: Scenario) -> RecordedCluster:
    world = scenario_world(scenario)
    target = TriageTarget(
        cluster=world.cluster["ClusterName"], region=world.region, node=scenario.node
    )
    recorder = Recorder()
    access = AwsAccess(world.region, replay=world, recorder=recorder)
    caller_account(access)
    sources = world_sources(world, recorder)
    data = ClusterData(access, target, now=base.RECORDED_AT, sources=sources)
    run_triage(data)
    # Who manages the cluster's resources, as `record` reads it, so a replayed
    # conversation can state the owner of what a suggestion changes.
    cluster_owners(data)
    recording = recorder.build(
        cluster=target.cluster, region=target.region, description=scenario.description
    )
    return recording.model_copy(
        update={"recorded_at": base.iso(base.RECORDED_AT), "expect": scenario.expectations()}
    )


def scenario_path(name: str) -> Path:
    return CLUSTERS_DIR / f"{name}.json"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("names", nargs="*", help="Scenarios to build (default: all).")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    wanted = set(args.names)
    for scenario in SCENARIOS:
        if wanted and scenario.name not in wanted:
            continue
        path = scenario_path(scenario.name)
        dump_recorded(record_scenario(scenario), path)
        log.info("wrote %s", path.relative_to(CLUSTERS_DIR.parent.parent))
    return 0


if __name__ == "__main__":
    sys.exit(main())
