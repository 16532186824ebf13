"""This machine's Slurm answers the Slurm probes only when it is the triaged cluster's.

The local runner is a fake (recorded outputs under "local"); the controller is a recorded
node behind the probe runner, so a fall back is seen as the controller's outputs coming
back. The cluster is the healthy Slurm world read through the real access layer.
"""

from __future__ import annotations

from typing import Any

import pytest

from cluster_simulator import base
from cluster_simulator.node_samples import slurm as samples
from cluster_simulator.world import World
from tools.aws.errors import AccessDenied
from tools.aws.session import AwsAccess
from tools.findings import Finding, Status
from tools.probes.model import NodeProbes, ProbeOutput
from tools.probes.runner import ProbeRunner
from tools.probes.transport import RecordedProbes
from tools.registry import get_check
from tools.sources import ProbesUnavailable
from tools.target import TriageTarget
from tools.triage.data import ClusterData, NodeSources, slurm_source
from tools.triage.data.sagemaker_model import ClusterNode
from tools.triage.data.slurm_source import LOCAL, LocalVerdict

OTHER_IDS = ("i-0aaaaaaaaaaaaaaa1", "i-0aaaaaaaaaaaaaaa2")
OTHER_IPS = ("10.9.0.11", "10.9.0.12")
MISSING_FILE = ProbeOutput(
    stdout="cat: /opt/ml/config/resource_config.json: No such file or directory\n", exit_code=1
)


def _ip(node: dict[str, Any]) -> str:
    return str(node["PrivateDnsHostname"]).split(".")[0].removeprefix("ip-").replace("-", ".")


def _name(ip: str) -> str:
    return "ip-" + ip.replace(".", "-")


def _resource_config(pairs: list[tuple[str, str]]) -> ProbeOutput:
    return ProbeOutput(stdout=samples.resource_config([("workers", "ml.p5.48xlarge", pairs)]))


def _own_config(world: World) -> ProbeOutput:
    return _resource_config([(n["InstanceId"], _ip(n)) for n in world.nodes])


def _other_config() -> ProbeOutput:
    return _resource_config(list(zip(OTHER_IDS, OTHER_IPS, strict=True)))


def _sinfo(names: list[str], state: str = "idle", reason: str = "") -> ProbeOutput:
    return ProbeOutput(stdout=samples.sinfo([(n, state, reason) for n in names]))


def _slurm_outputs(sinfo: ProbeOutput, config: ProbeOutput) -> dict[str, ProbeOutput]:
    return {
        "slurm_nodes": sinfo,
        "slurm_stuck_jobs": ProbeOutput(stdout=""),
        "slurm_controller": ProbeOutput(stdout=samples.scontrol_ping()),
        "slurm_resource_config": config,
    }


def _workers(world: World) -> list[dict[str, Any]]:
    return [n for n in world.nodes if n["InstanceGroupName"] != base.CONTROLLER_GROUP]


def _controller_id(world: World) -> str:
    return next(
        str(n["InstanceId"]) for n in world.nodes if n["InstanceGroupName"] == base.CONTROLLER_GROUP
    )


class Sources:
    """A fake local Slurm and the controller behind the probe runner, counting sessions."""

    def __init__(self, world: World, local: dict[str, ProbeOutput] | None) -> None:
        self.world = world
        self.local = local
        self.sessions = 0
        own = _slurm_outputs(_sinfo([_name(_ip(n)) for n in _workers(world)]), _own_config(world))
        self.controller = {_controller_id(world): own}

    def slurm_local(self) -> ProbeRunner | None:
        if self.local is None:
            return None
        return ProbeRunner(RecordedProbes({LOCAL: self.local}), retry_delays_s=())

    def probes(self) -> ProbeRunner:
        self.sessions += 1
        return ProbeRunner(RecordedProbes(self.controller), retry_delays_s=())

    def data(self) -> ClusterData:
        target = TriageTarget(cluster=self.world.cluster["ClusterName"], region=self.world.region)
        sources = NodeSources(probes=self.probes, slurm_local=self.slurm_local)
        access = AwsAccess(self.world.region, replay=self.world)
        return ClusterData(access, target, now=base.RECORDED_AT, sources=sources)


def _run(check_id: str, data: ClusterData) -> list[Finding]:
    return list(get_check(check_id).run(data))


# -- the verdict, over literal outputs ----------------------------------------------------


def local_slurm_verdict(
    probes: NodeProbes, hyperpod_nodes: list[dict[str, Any]], cluster: str
) -> LocalVerdict:
    # The verdict takes parsed nodes; the cases stay literal ListClusterNodes summaries.
    nodes = [ClusterNode.from_api(n) for n in hyperpod_nodes]
    return slurm_source.local_slurm_verdict(probes, nodes, cluster)


def _here(outputs: dict[str, ProbeOutput]) -> NodeProbes:
    return NodeProbes(instance_id=LOCAL, outputs=outputs)


def test_resource_config_naming_this_clusters_instances_is_trusted() -> None:
    world = base.healthy_slurm()
    verdict = local_slurm_verdict(
        _here(_slurm_outputs(_sinfo(["elsewhere-1"]), _own_config(world))),
        world.nodes,
        "ml-cluster-slurm",
    )
    assert verdict.belongs
    assert "resource_config.json lists 5 of cluster ml-cluster-slurm's instances" in verdict.reason


def test_resource_config_of_another_cluster_is_not_trusted_even_if_names_match() -> None:
    world = base.healthy_slurm()
    # The names would match (same VPC ranges in both clusters), the instance ids do not:
    # the file decides.
    same_names = _sinfo([_name(_ip(n)) for n in world.nodes])
    verdict = local_slurm_verdict(
        _here(_slurm_outputs(same_names, _other_config())), world.nodes, "ml-cluster-slurm"
    )
    assert not verdict.belongs
    assert OTHER_IDS[0] in verdict.reason
    assert "another cluster" in verdict.reason


@pytest.mark.parametrize(
    "config",
    [
        MISSING_FILE,
        ProbeOutput(stdout="{not json"),
        ProbeOutput(stdout='{"InstanceGroups": []}'),
        ProbeOutput(stdout='{"InstanceGroups": [', exit_code=None, truncated=True),
        None,
    ],
    ids=["missing file", "not json", "no instances", "cut off", "not run"],
)
def test_without_resource_config_sinfo_names_decide(config: ProbeOutput | None) -> None:
    world = base.healthy_slurm()
    own_names = [_name(_ip(n)) for n in _workers(world)]
    outputs = _slurm_outputs(_sinfo(own_names), MISSING_FILE)
    if config is None:
        del outputs["slurm_resource_config"]
    else:
        outputs["slurm_resource_config"] = config
    trusted = local_slurm_verdict(_here(outputs), world.nodes, "ml-cluster-slurm")
    assert trusted.belongs
    assert "sinfo here lists 4 of cluster ml-cluster-slurm's nodes" in trusted.reason
    outputs["slurm_nodes"] = _sinfo([_name(ip) for ip in OTHER_IPS])
    refused = local_slurm_verdict(_here(outputs), world.nodes, "ml-cluster-slurm")
    assert not refused.belongs
    assert "ip-10-9-0-11" in refused.reason
    assert "resource_config.json" in refused.reason


def test_nothing_readable_here_is_not_trusted() -> None:
    world = base.healthy_slurm()
    failed = ProbeOutput(stdout="slurm_load_partitions: Unable to contact", exit_code=1)
    verdict = local_slurm_verdict(
        _here(_slurm_outputs(failed, MISSING_FILE)), world.nodes, "ml-cluster-slurm"
    )
    assert not verdict.belongs
    assert "nothing ties this machine to cluster ml-cluster-slurm" in verdict.reason


def test_nodes_without_host_names_cannot_confirm_sinfo() -> None:
    world = base.healthy_slurm()
    names = [_name(_ip(n)) for n in world.nodes]
    nameless = [{k: v for k, v in n.items() if k != "PrivateDnsHostname"} for n in world.nodes]
    verdict = local_slurm_verdict(
        _here(_slurm_outputs(_sinfo(names), MISSING_FILE)), nameless, "ml-cluster-slurm"
    )
    assert not verdict.belongs


# -- the source a triage uses -------------------------------------------------------------


def test_this_clusters_login_node_answers_locally() -> None:
    world = base.healthy_slurm()
    local = _slurm_outputs(_sinfo([_name(_ip(n)) for n in _workers(world)]), _own_config(world))
    sources = Sources(world, local)
    data = sources.data()
    assert data.slurm_probes().instance_id == LOCAL
    assert data.slurm_source().local
    assert sources.sessions == 0  # no SSM session to the controller
    findings = _run("slurm-nodes", data)
    assert findings[0].status is Status.INFO
    assert findings[0].message.startswith("Slurm state read on this machine: ")
    assert all(f.evidence["slurm_source"] == "this machine" for f in findings)
    assert "local_slurm_rejected" not in findings[0].evidence


def test_another_clusters_login_node_falls_back_to_the_controller() -> None:
    """A login node of another cluster: its sinfo (two DOWN nodes) must neither be judged
    as this cluster's nor steer which nodes get probed."""
    world = base.healthy_slurm()
    other = _sinfo([_name(ip) for ip in OTHER_IPS], state="down*", reason="Not responding")
    sources = Sources(world, _slurm_outputs(other, _other_config()))
    data = sources.data()
    controller = _controller_id(world)
    assert data.slurm_probes().instance_id == controller
    source = data.slurm_source()
    assert (source.host, source.local) == (controller, False)
    assert OTHER_IDS[0] in source.local_rejected
    assert sources.sessions == 1
    assert data.slurm_unhealthy_instance_ids() == []

    findings = _run("slurm-nodes", data)
    note = findings[0]
    assert note.status is Status.INFO
    assert f"read from the controller {controller} over SSM" in note.message
    assert "another cluster" in note.message
    assert not [f for f in findings if f.status in (Status.FAIL, Status.WARN)]
    for finding in [*findings, *_run("slurm-jobs", data), *_run("slurm-node-mapping", data)]:
        assert finding.evidence["slurm_source"] == f"controller {controller}"
        assert (
            finding.evidence["slurm_source_reason"] == "this machine's Slurm is not this cluster's"
        )
        assert OTHER_IDS[0] in finding.evidence["local_slurm_rejected"]


def test_sinfo_names_of_this_cluster_are_enough_without_resource_config() -> None:
    world = base.healthy_slurm()
    local = _slurm_outputs(_sinfo([_name(_ip(n)) for n in _workers(world)]), MISSING_FILE)
    data = Sources(world, local).data()
    assert data.slurm_probes().instance_id == LOCAL
    assert "sinfo here lists 4" in data.slurm_source().reason


def test_no_sinfo_here_says_so_and_adds_no_note() -> None:
    world = base.healthy_slurm()
    data = Sources(world, None).data()
    source = data.slurm_source()
    assert (source.host, source.reason, source.local_rejected) == (
        _controller_id(world),
        "sinfo is not installed here",
        "",
    )
    findings = _run("slurm-nodes", data)
    assert not any("Slurm state read" in f.message for f in findings)
    assert all(f.evidence["slurm_source"] == f"controller {source.host}" for f in findings)


def test_an_unconfirmable_local_slurm_is_not_used_when_the_node_list_is_denied() -> None:
    world = base.healthy_slurm()
    world.denied.add(("sagemaker", "ListClusterNodes"))
    local = _slurm_outputs(_sinfo([_name(_ip(n)) for n in _workers(world)]), _own_config(world))
    sources = Sources(world, local)
    # Unconfirmed, the local answer is dropped; the controller cannot be found without the
    # node list either, so the Slurm checks are skipped with the denied call as the reason.
    with pytest.raises(AccessDenied, match="ListClusterNodes"):
        sources.data().slurm_probes()
    assert sources.sessions == 0


def test_a_rejected_local_slurm_is_named_when_the_controller_cannot_be_probed() -> None:
    world = base.healthy_slurm()
    sources = Sources(world, _slurm_outputs(_sinfo(["ip-10-9-0-11"]), _other_config()))

    def no_plugin() -> ProbeRunner:
        raise ProbesUnavailable("session-manager-plugin not found on PATH")

    target = TriageTarget(cluster=world.cluster["ClusterName"], region=world.region)
    data = ClusterData(
        AwsAccess(world.region, replay=world),
        target,
        now=base.RECORDED_AT,
        sources=NodeSources(probes=no_plugin, slurm_local=sources.slurm_local),
    )
    with pytest.raises(ProbesUnavailable) as unavailable:
        data.slurm_probes()
    assert unavailable.value.reason.startswith("session-manager-plugin not found on PATH; ")
    assert "this machine's Slurm was not used" in unavailable.value.reason
    assert OTHER_IDS[0] in unavailable.value.reason
