"""Identifiers pulled out of pasted text, for the agent and for filling next checks."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tools.explain import explain, extract_identifiers

ARN = "arn:aws:sagemaker:ap-northeast-1:123456789012:cluster/ab12cd34ef56"


def test_cluster_arn_gives_id_and_region() -> None:
    ids = extract_identifiers(f"cluster {ARN} failed")
    assert ids.cluster_arns == [ARN]
    assert ids.cluster_ids == ["ab12cd34ef56"]
    assert ids.regions == ["ap-northeast-1"]


def test_cluster_names_from_flags_fields_and_log_groups() -> None:
    text = (
        "aws sagemaker describe-cluster --cluster-name ml-cluster-1\n"
        '{"ClusterName": "prod-train"}\n'
        "/aws/sagemaker/Clusters/eks-hp/abcd1234efgh\n"
        "集群名称：zh-cluster\n"
    )
    ids = extract_identifiers(text)
    assert ids.cluster_names == ["ml-cluster-1", "prod-train", "zh-cluster", "eks-hp"]
    assert ids.cluster_ids == ["abcd1234efgh"]


def test_cluster_flag_with_an_arn_is_not_a_name() -> None:
    ids = extract_identifiers(f"hyperpod-debug triage --cluster {ARN}")
    assert ids.cluster_names == []
    assert ids.cluster_arns == [ARN]


def test_regions_including_china_govcloud_and_availability_zones() -> None:
    text = "us-east-1, cn-north-1, us-gov-west-1, eu-central-1 and AZ ap-southeast-2b"
    assert extract_identifiers(text).regions == [
        "us-east-1",
        "cn-north-1",
        "us-gov-west-1",
        "eu-central-1",
        "ap-southeast-2",
    ]


def test_not_a_region() -> None:
    assert extract_identifiers("us-east-12 xus-east-1 us-middle-1").regions == []


def test_instance_ids_short_and_long() -> None:
    text = "i-0123456789abcdef0 and i-1a2b3c4d but not i-123 or mi-01064afae0734b12b"
    assert extract_identifiers(text).instance_ids == ["i-0123456789abcdef0", "i-1a2b3c4d"]


def test_network_ids() -> None:
    ids = extract_identifiers(
        "sg-0a1b2c3d4e5f60718 subnet-0fedcba9876543210 vpc-1234abcd sg-deadbeef"
    )
    assert ids.security_group_ids == ["sg-0a1b2c3d4e5f60718", "sg-deadbeef"]
    assert ids.subnet_ids == ["subnet-0fedcba9876543210"]
    assert ids.vpc_ids == ["vpc-1234abcd"]


def test_slurm_and_eks_node_names() -> None:
    text = (
        "slurm node ip-10-1-2-3 is down; "
        "kubelet on ip-10-4-5-6.us-west-2.compute.internal and ip-10-7-8-9.ec2.internal; "
        "pod on hyperpod-i-0123456789abcdef0."
    )
    ids = extract_identifiers(text)
    assert ids.slurm_nodes == ["ip-10-1-2-3"]
    assert ids.eks_nodes == [
        "ip-10-4-5-6.us-west-2.compute.internal",
        "ip-10-7-8-9.ec2.internal",
        "hyperpod-i-0123456789abcdef0",
    ]
    assert ids.instance_ids == ["i-0123456789abcdef0"]


def test_ssm_target_gives_cluster_id_group_and_instance() -> None:
    ids = extract_identifiers(
        "--target sagemaker-cluster:ab12cd34ef56_worker-group-1-i-0123456789abcdef0"
    )
    assert ids.cluster_ids == ["ab12cd34ef56"]
    assert ids.instance_groups == ["worker-group-1"]
    assert ids.instance_ids == ["i-0123456789abcdef0"]


def test_time_window_spans_every_iso_timestamp_in_utc() -> None:
    text = (
        '{"ts":"2022-11-09T08:51:47.548Z"} later 2022-11-09 09:00:00 and '
        "2022-11-09T10:30:00+02:00, garbage 2022-13-40T99:00:00"
    )
    window = extract_identifiers(text).time_window
    assert window is not None
    assert window.start == datetime(2022, 11, 9, 8, 30, tzinfo=UTC)
    assert window.end == datetime(2022, 11, 9, 9, 0, tzinfo=UTC)


def test_no_identifiers() -> None:
    ids = extract_identifiers("nothing to see here")
    assert ids.is_empty()
    assert ids.time_window is None


def test_single_identifiers_fill_the_next_checks() -> None:
    result = explain(f"Xid 79 on i-0123456789abcdef0 in {ARN}")
    checks = [c for m in result.matches for c in m.next_checks]
    assert (
        f"hyperpod-debug triage --cluster {ARN} --region ap-northeast-1 --node i-0123456789abcdef0"
        in checks
    )


def test_ambiguous_identifiers_keep_the_placeholder() -> None:
    result = explain("Xid 79 on i-0123456789abcdef0 and i-0fedcba9876543210")
    checks = [c for m in result.matches for c in m.next_checks]
    assert any("--node <INSTANCE_ID>" in c for c in checks)


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("node i-0abc12345678def01 in cluster ml-prod us-west-2", ["ml-prod"]),
        ("HyperPod cluster `train2` lost a GPU", ["train2"]),
        ("集群 ml-prod 的节点掉卡", ["ml-prod"]),
        ("the cluster is down since noon", []),
        ("cluster i-0abc12345678def01 rebooted", []),
    ],
)
def test_cluster_names_mentioned_in_prose(text: str, names: list[str]) -> None:
    assert extract_identifiers(text).cluster_names == names
