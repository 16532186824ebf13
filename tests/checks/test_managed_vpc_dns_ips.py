"""B.2 and B.6 say 'not applicable' on a SageMaker-managed VPC instead of staying silent."""

from __future__ import annotations

from cluster_simulator import base
from tools.aws.session import AwsAccess
from tools.checks.subnet_free_ips import subnet_free_ips
from tools.checks.vpc_dns import vpc_dns
from tools.findings import Status
from tools.target import TriageTarget
from tools.triage.data import ClusterData


def _data(managed: bool) -> ClusterData:
    world = base.healthy_slurm()
    if managed:
        del world.cluster["VpcConfig"]
    target = TriageTarget(cluster=world.cluster["ClusterName"], region=world.region)
    return ClusterData(AwsAccess(world.region, replay=world), target, now=base.RECORDED_AT)


def test_managed_vpc_is_reported_not_applicable() -> None:
    data = _data(managed=True)
    for findings in (list(vpc_dns(data)), list(subnet_free_ips(data))):
        assert [f.status for f in findings] == [Status.INFO]
        assert "SageMaker-managed VPC" in findings[0].message


def test_customer_vpc_is_still_judged() -> None:
    data = _data(managed=False)
    assert [f.status for f in vpc_dns(data)] == [Status.PASS]
    assert [f.status for f in subnet_free_ips(data)] == [Status.PASS]
