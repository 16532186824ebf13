"""Recordings are redacted: secret keys and values never reach the file, accounts are
masked when asked, and a masked recording of the moto cluster still replays the same.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tools.recorded.model import dump_recorded, load_recorded
from tools.recorded.recorder import MASKED_ACCOUNT, REDACTED, Recorder
from tools.triage.node_sources import NodeOptions
from tools.triage.open_cluster import DataSource, open_cluster
from tools.triage.runner import run_triage

from ._moto_cluster import (
    ACCOUNT,
    CLUSTER,
    HMA_PREFIX,
    REGION,
    SECRET_KEY_ID,
    SECRET_VALUE,
    MotoClient,
    MotoCluster,
)

# -- (d) redaction ------------------------------------------------------------------------


def test_recorder_redacts_secret_keys_and_values(tmp_path: Path) -> None:
    private_key = "-----BEGIN RSA PRIVATE KEY-----\nMIIEabc\n-----END RSA PRIVATE KEY-----"
    recorder = Recorder()
    recorder.record_response(
        "sts",
        "GetCallerIdentity",
        {},
        {
            "Account": ACCOUNT,
            "Credentials": {
                "AccessKeyId": SECRET_KEY_ID,
                "SecretAccessKey": SECRET_VALUE,
                "SessionToken": "FwoGZXIvYXdzEXAMPLETOKEN",
            },
            "NextToken": "keep-me",
            "Notes": [f"key {SECRET_KEY_ID} in text", private_key, "token k8s-aws-v1.abcDEF_123"],
            "Config": {"aws_secret_access_key": "xyz", "password": "hunter2"},
        },
    )
    recorder.record_error(
        "ec2",
        "DescribeSubnets",
        {"SubnetIds": ["subnet-1"]},
        code="AuthFailure",
        message=f"credential {SECRET_KEY_ID} secret={SECRET_VALUE}",
        status=401,
    )
    path = tmp_path / "secrets.json"
    dump_recorded(recorder.build(cluster=CLUSTER, region=REGION), path)
    text = path.read_text()
    for secret in (
        SECRET_KEY_ID,
        SECRET_VALUE,
        "FwoGZXIvYXdzEXAMPLETOKEN",
        "MIIEabc",
        "PRIVATE KEY",
        "k8s-aws-v1.abc",
        "hunter2",
        '"xyz"',
    ):
        assert secret not in text, secret
    assert REDACTED in text
    assert "keep-me" in text  # pagination tokens survive
    assert ACCOUNT in text  # not masked unless asked
    load_recorded(path)  # still a valid recorded cluster


@pytest.mark.usefixtures("fast_retries", "probes")
def test_live_recording_redacts_and_masks_accounts(
    cluster: MotoCluster, moto_client: MotoClient, tmp_path: Path, aws_only: NodeOptions
) -> None:
    logs = moto_client("logs", REGION)
    logs.put_log_events(
        logGroupName=f"/aws/sagemaker/Clusters/{CLUSTER}/{CLUSTER}",
        logStreamName=f"{HMA_PREFIX}workers/workers-7",
        logEvents=[
            {
                "timestamp": int(time.time() * 1000) - 30_000,
                "message": (
                    "HealthMonitoringAgentDetectionEvent NvidiaErrorReboot leaked env "
                    f"AWS_ACCESS_KEY_ID={SECRET_KEY_ID} aws_secret_access_key={SECRET_VALUE}"
                ),
            }
        ],
    )
    recorder = Recorder(mask_account=True)
    data = open_cluster(
        cluster.target,
        source=DataSource(recorder=recorder, endpoint_url=cluster.url),
        options=aws_only,
    )
    live = run_triage(data)
    # moto drops Orchestrator, so triage never asks EKS; read it once to record its secrets.
    data.access.call("eks", "DescribeCluster", name="hp-eks")
    path = tmp_path / "masked.json"
    dump_recorded(recorder.build(cluster=CLUSTER, region=REGION), path)
    text = path.read_text()

    assert SECRET_KEY_ID not in text
    assert SECRET_VALUE not in text
    assert "leaked env AWS_ACCESS_KEY_ID=" in text  # the rest of the log line is kept
    assert ACCOUNT not in text
    assert f"arn:aws:sagemaker:{REGION}:{MASKED_ACCOUNT}:cluster/{CLUSTER}" in text
    assert f"arn:aws:eks:{REGION}:{MASKED_ACCOUNT}:cluster/hp-eks" in text
    eks = next(c for c in load_recorded(path).aws if c.service == "eks")
    assert eks.response is not None
    assert eks.response["cluster"]["certificateAuthority"] == REDACTED

    # A masked recording still replays, to the same judgements.
    recording = load_recorded(path)
    replayed = run_triage(open_cluster(cluster.target, source=DataSource(recorded=recording)))
    assert replayed.cluster.account == MASKED_ACCOUNT
    assert [(f.check, f.status, f.section) for f in replayed.findings] == [
        (f.check, f.status, f.section) for f in live.findings
    ]
    assert [s.check for s in replayed.skipped] == [s.check for s in live.skipped]
