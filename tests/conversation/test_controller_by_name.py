"""The slurm-controller flag knows the controller by every name it goes by (issue 22,
class 7): its instance id, its Slurm host name, its private DNS name and its address, read
from the cluster by the triage; a worker named the same ways gets no such flag."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.safety.model import FLAG_SLURM_CONTROLLER
from agent.safety.suggest import SuggestionContext, build_suggestion
from agent.safety.targets import controller_names
from tools.triage.data.sagemaker_model import ClusterNode

from ._support import toolset_for

DATA = Path(__file__).with_name("data") / "controller_by_name.txt"
COMMANDS = [
    line for line in DATA.read_text("utf-8").splitlines() if line and not line.startswith("#")
]


def test_controller_names() -> None:
    node = ClusterNode.from_api(
        {
            "InstanceId": "i-00000000000000001",
            "InstanceGroupName": "controller",
            "PrivateDnsHostname": "ip-10-1-0-11.us-west-2.compute.internal",
            "PrivatePrimaryIp": "10.1.0.11",
        }
    )
    names = controller_names(node)
    assert {
        "i-00000000000000001",
        "ip-10-1-0-11",
        "ip-10-1-0-11.us-west-2.compute.internal",
    } <= names


@pytest.fixture(scope="module")
def controllers() -> frozenset[str]:
    toolset = toolset_for("healthy-slurm")
    toolset.call("triage", {})
    return frozenset(toolset.state.slurm_controllers)


@pytest.mark.parametrize("command", COMMANDS)
def test_the_controller_is_flagged_by_any_name(command: str, controllers: frozenset[str]) -> None:
    context = SuggestionContext(triage_done=True, slurm_controllers=controllers)
    suggestion = build_suggestion(command, purpose="p", context=context)
    assert suggestion.kind in ("reboot", "replace")
    assert FLAG_SLURM_CONTROLLER in suggestion.flags


@pytest.mark.parametrize("command", COMMANDS)
def test_a_worker_named_the_same_ways_is_not(command: str, controllers: frozenset[str]) -> None:
    worker = command.replace("10-1-0-11", "10-1-0-12").replace("10.1.0.11", "10.1.0.12")
    worker = worker.replace("i-00000000000000001", "i-00000000000000002")
    context = SuggestionContext(triage_done=True, slurm_controllers=controllers)
    assert FLAG_SLURM_CONTROLLER not in build_suggestion(worker, purpose="p", context=context).flags
