"""Secrets never reach a recording or a report."""

from __future__ import annotations

import pytest

from tools.redaction import REDACTED, redact, redact_text
from tools.text import clip, quoted


def test_access_keys_and_secrets_in_free_text_are_redacted() -> None:
    line = (
        "export AWS_ACCESS_KEY_ID=AKIAABCDEFGHIJKLMNOP aws_secret_access_key=wJalrXUtnFEMI/K7MDENG "
        "token k8s-aws-v1.aHR0cHM6Ly9zdHMu password: hunter2"
    )
    cleaned = redact_text(line)
    for secret in ("AKIAABCDEFGHIJKLMNOP", "wJalrXUtnFEMI", "aHR0cHM6Ly9zdHMu", "hunter2"):
        assert secret not in cleaned
    assert cleaned.count(REDACTED) == 4


def test_quoted_log_text_in_findings_is_redacted_and_clipped() -> None:
    text = "curl failed with key ASIAABCDEFGHIJKLMNOP\r\n" + "x" * 500
    out = quoted(text)
    assert "ASIAABCDEFGHIJKLMNOP" not in out
    assert "\\r" in out
    assert len(clip(text)) <= 200


def test_structures_redact_by_key_but_keep_paging_tokens() -> None:
    data = {
        "Credentials": {"SecretAccessKey": "abc", "SessionToken": "def"},
        "NextToken": "page-2",
        "Arn": "arn:aws:iam::123456789012:role/x",
    }
    out = redact(data, mask_account=True)
    assert out["Credentials"] == REDACTED
    assert out["NextToken"] == "page-2"
    assert out["Arn"] == "arn:aws:iam::111122223333:role/x"


def test_ordinary_text_is_untouched() -> None:
    line = "Lifecycle scripts completed successfully on i-0123456789abcdef0"
    assert redact_text(line) == line


@pytest.mark.parametrize(
    ("line", "secret"),
    [
        ("export AWS_SESSION_TOKEN=IQoJb3JpZ2luX2VjEHoaCXVz", "IQoJb3JpZ2luX2VjEHoaCXVz"),
        ("aws_session_token = IQoJb3JpZ2lu", "IQoJb3JpZ2lu"),
        ('{"SecretAccessKey" : "wJalrXUtnFEMI", "Token": "IQoJzz"}', "wJalrXUtnFEMI"),
        ('{"SecretAccessKey" : "wJalrXUtnFEMI", "Token": "IQoJzz"}', "IQoJzz"),
        ("DB_PASSWORD=hunter2", "hunter2"),
        ("client_secret=abc123def", "abc123def"),
        ("mysql --password hunter2", "hunter2"),
        ("HF_TOKEN=hf_abcdefghijklmnopqrstuv", "hf_abcdefghijklmnopqrstuv"),
        ("git clone https://ghp_abcdefghijklmnopqrstuvwxyz012345@github.com/x", "ghp_abc"),
        ("Authorization: Bearer abcdefghijklmnop", "abcdefghijklmnop"),
        ("https://user:pa55w0rd@github.com/org/repo", "pa55w0rd"),
        ("aws configure set aws_secret_access_key wJalrXUtnFEMIK7MDENG", "wJalrXUtnFEMIK7"),
        ("docker login -u AWS -p eyJwYXlsb2FkIjoiYWJj https://x.dkr.ecr", "eyJwYXlsb2FkIjoiYWJj"),
        ('echo {\\"password\\": \\"hunter2\\"}', "hunter2"),
        ("password = 'a b c'", "b c"),
    ],
)
def test_common_secret_shapes_are_redacted(line: str, secret: str) -> None:
    assert secret not in redact_text(line)


@pytest.mark.parametrize(
    "line",
    [
        "NCCL WARN Timeout after 1800 seconds",
        "Unable to locate credentials",
        "Could not connect to the endpoint URL: https://s3.us-west-2.amazonaws.com/",
        "[provisioning] mounting /opt/sagemaker",
        "arn:aws:secretsmanager:us-west-2:111122223333:secret:db-AbCd",
        "tokenizer: loaded",
        "Secrets: 3 mounted",
        "pwd: /home/ubuntu",
        "token_expiry: 2026-01-01",
        "failed to get token: connection refused",
        "Basic auth complete",
        "max_tokens=100",
    ],
)
def test_error_text_is_kept(line: str) -> None:
    assert redact_text(line) == line


def test_each_account_keeps_its_own_fake_id() -> None:
    from tools.redaction import AccountMasker

    masker = AccountMasker()
    data = {
        "ClusterArn": "arn:aws:sagemaker:us-west-2:123456789012:cluster/abc",
        "Orchestrator": {"Eks": {"ClusterArn": "arn:aws:eks:us-west-2:210987654321:cluster/e"}},
        "Owner": "123456789012",
    }
    out = redact(data, mask_account=masker)
    assert out["ClusterArn"] == "arn:aws:sagemaker:us-west-2:111122223333:cluster/abc"
    assert out["Orchestrator"]["Eks"]["ClusterArn"].split(":")[4] == "444455556666"
    assert out["Owner"] == "111122223333"
