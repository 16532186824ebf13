"""Regenerate the bundled recorded clusters: `python -m evals.clusters.build`.

Each scenario's world answers the real triage through the real access layer while the real
recorder captures every call, so the files hold exactly what the checks ask for.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from evals.clusters import base
from evals.clusters.scenario import Scenario
from evals.clusters.scenarios import SCENARIOS
from tools.aws.session import AwsAccess
from tools.recorded.model import RecordedCluster, dump_recorded
from tools.recorded.recorder import Recorder
from tools.triage.data import ClusterData
from tools.triage.runner import run_triage
from tools.triage.session import caller_account
from tools.triage.target import TriageTarget

CLUSTERS_DIR = Path(__file__).resolve().parent
log = logging.getLogger("evals.clusters.build")


def record_scenario(scenario: Scenario) -> RecordedCluster:
    world = base.healthy_eks() if scenario.base == "eks" else base.healthy_slurm()
    scenario.edit(world)
    target = TriageTarget(
        cluster=world.cluster["ClusterName"], region=world.region, node=scenario.node
    )
    recorder = Recorder()
    access = AwsAccess(world.region, replay=world, recorder=recorder)
    caller_account(access)
    run_triage(ClusterData(access, target, now=base.RECORDED_AT))
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
