"""Reversible local masking: stable placeholders, a mapping kept on disk, read back exactly."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tools.masking import Masker, load_mapping, unmask, unmask_value

TEXT = (
    "ClusterArn arn:aws:sagemaker:us-west-2:123456789012:cluster/abc123; "
    "Orchestrator arn:aws:eks:us-west-2:210987654321:cluster/ml-eks\n"
    "node ip-10-1-2-3.us-west-2.compute.internal (10.1.2.3) cannot reach 10.1.2.4:443; "
    "endpoint https://0123456789ABCDEF0123456789ABCDEF.gr7.us-west-2.eks.amazonaws.com\n"
    "image 123456789012.dkr.ecr.us-west-2.amazonaws.com/train:1, "
    "bucket sagemaker-us-west-2-123456789012, AccountId: 123456789012; ml-eks degraded; "
    "imds 169.254.169.254, driver 535.104.05"
)


def test_mask_replaces_identifiers_by_stable_placeholders() -> None:
    masker = Masker()
    out = masker.mask(TEXT)
    for real in ("123456789012", "210987654321", "10.1.2.3", "10-1-2-3", "ml-eks", "0123456789AB"):
        assert real not in out, real
    assert "arn:aws:sagemaker:us-west-2:<ACCOUNT_1>:cluster/abc123" in out
    assert "arn:aws:eks:us-west-2:<ACCOUNT_2>:cluster/<CLUSTER_1>" in out
    assert "ip-<IP_1>.us-west-2.compute.internal (<IP_1>)" in out  # same node, same number
    assert "<IP_2>:443" in out
    assert "https://<HOST_1>.eks.amazonaws.com" in out
    assert out.count("<ACCOUNT_1>") == 4
    assert "169.254.169.254" in out  # well known
    assert "535.104.05" in out  # not an address
    assert masker.mapping["<ACCOUNT_1>"] == "123456789012"
    assert masker.mapping["<CLUSTER_1>"] == "ml-eks"
    assert unmask(out, masker.mapping) == TEXT


def test_masking_is_deterministic_within_a_run_and_across_runs() -> None:
    first, second = Masker(), Masker()
    assert first.mask(TEXT) == second.mask(TEXT)
    assert first.mask("again 10.1.2.4") == "again <IP_2>"


def test_cluster_names_known_up_front_are_masked_from_the_first_text() -> None:
    masker = Masker(clusters=["ml-training"])
    assert masker.mask("ml-training is Failed; ml-training-2 is fine") == (
        "<CLUSTER_1> is Failed; ml-training-2 is fine"
    )
    assert masker.mask('{"ClusterName": "other-one"} other-one') == (
        '{"ClusterName": "<CLUSTER_2>"} <CLUSTER_2>'
    )


def test_mask_value_masks_keys_and_values() -> None:
    masker = Masker()
    data = {"10.0.0.9": ["arn:aws:iam::123456789012:role/x"], "n": 1}
    masked = masker.mask_value(data)
    assert masked == {"<IP_1>": ["arn:aws:iam::<ACCOUNT_1>:role/x"], "n": 1}
    assert unmask_value(masked, masker.mapping) == data


def test_the_mapping_is_saved_for_this_user_only_and_read_back(tmp_path: Path) -> None:
    masker = Masker()
    shown = masker.mask(TEXT)
    path = tmp_path / "mapping.json"
    masker.save(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert unmask("Node ip-<IP_1> in <CLUSTER_1>", load_mapping(path)) == (
        "Node ip-10-1-2-3 in ml-eks"
    )
    assert unmask(shown, load_mapping(path)) == TEXT
    again = Masker.load(path)
    assert again.mask("10.1.2.3 and 10.9.9.9") == "<IP_1> and <IP_3>"


def test_unknown_placeholders_and_bad_files(tmp_path: Path) -> None:
    assert unmask("<IP_9> skip-<IP_1>", {"<IP_1>": "10.0.0.1"}) == "<IP_9> skip-10.0.0.1"
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "other"}')
    with pytest.raises(ValueError, match="not a"):
        load_mapping(bad)
    with pytest.raises(ValueError, match="placeholder"):
        Masker(mapping={"IP_1": "10.0.0.1"})


_PIECES = st.sampled_from(
    [
        " ",
        "\n",
        ":",
        "/",
        "10.0.0.1",
        "192.168.1.20",
        "ip-10-0-0-1",
        "ip-172-16-3-4.ec2.internal",
        "arn:aws:iam::123456789012:role/r",
        "arn:aws:eks:us-east-1:111111111111:cluster/prod-eks",
        "prod-eks",
        "999999999999.dkr.ecr.us-east-1.amazonaws.com",
        "account 123456789013",
        "word",
        "1.2",
        ".",
        "-",
    ]
)


@settings(max_examples=200)
@given(st.lists(_PIECES, max_size=30))
def test_unmask_inverts_mask(pieces: list[str]) -> None:
    glued = "".join(pieces)
    masker = Masker()
    assert unmask(masker.mask(glued), masker.mapping) == glued
    spaced = " ".join(pieces)
    masked = masker.mask(spaced)
    assert unmask(masked, masker.mapping) == spaced
    assert "123456789012" not in masked
    assert "10.0.0.1" not in masked


# Issue 22: identifiers a ticket can carry that masking used to leave.
MORE = (
    "restore from s3://ckpt-bucket-123456789012/run7 (arn:aws:s3:::logs-123456789012-us-west-2)\n"
    "pod fd12:3456:789a:1::5 talks to fe80::1ff:fe23:4567:890a%eth0\n"
    "mount fs-0123456789abcdef0.fsx.us-west-2.amazonaws.com@tcp:/abcdefgh\n"
    "db mydb.c9akciq32.us-east-1.rds.amazonaws.com:5432\n"
    "ldap ldap.corp.example-inc.com, git gitlab.internal.acme.io, mail ops@mail.acme.com\n"
    "[PASS] EKS cluster ml-eks is ACTIVE; aws eks describe-cluster --region us-west-2 --name ml-eks"
)
KEPT_BY_MASKING = (
    "at 12:30:45 the MAC 0a:1b:2c:3d:4e:5f and ::1 answered",
    "see https://docs.aws.amazon.com/sagemaker/latest/dg/x.html and github.com/NVIDIA/nccl",
    "config.yaml torch.cuda.OutOfMemoryError libc.so.6 v1.2.3 driver 535.104.05",
    "EKS cluster is healthy; the EKS cluster and the VPC",
    "checkpoint-202401011200 written",  # 12 digits, no account context, no known account
)


def test_issue_22_identifiers_are_masked_consistently() -> None:
    masker = Masker()
    out = masker.mask(MORE)
    for real in (
        "123456789012",
        "fd12:3456:789a:1::5",
        "fe80::1ff:fe23:4567:890a",
        "fs-0123456789abcdef0",
        "mydb.c9akciq32",
        "ldap.corp.example-inc.com",
        "gitlab.internal.acme.io",
        "mail.acme.com",
        "ml-eks",
    ):
        assert real not in out, real
    assert "s3://ckpt-bucket-<ACCOUNT_1>/run7" in out
    assert "arn:aws:s3:::logs-<ACCOUNT_1>-us-west-2" in out  # same account, same placeholder
    assert ".fsx.us-west-2.amazonaws.com" in out  # the service stays readable
    assert ".us-east-1.rds.amazonaws.com:5432" in out
    assert out.count("<CLUSTER_1>") == 2
    assert unmask(out, masker.mapping) == MORE
    # a value seen again later gets the same placeholder
    host = masker.placeholder("HOST", "ldap.corp.example-inc.com")
    assert host in out
    assert masker.mask("again ldap.corp.example-inc.com") == f"again {host}"


def test_a_known_account_is_masked_inside_any_name() -> None:
    masker = Masker()
    masker.mask("arn:aws:iam::123456789012:role/x")
    assert masker.mask("bucket my-data-123456789012 ready") == "bucket my-data-<ACCOUNT_1> ready"


@pytest.mark.parametrize("line", KEPT_BY_MASKING)
def test_ordinary_text_is_not_masked(line: str) -> None:
    assert Masker().mask(line) == line


def test_masking_stays_linear_on_long_runs() -> None:
    """Each new pattern starts at the start of a run and scans a bounded span."""
    import time

    for unit in ("a.", "1:", "fs-0.", "a-", "s3://a-", "EKS cluster "):
        text = unit * 40_000
        start = time.perf_counter()
        Masker().mask(text)
        assert time.perf_counter() - start < 5, unit
