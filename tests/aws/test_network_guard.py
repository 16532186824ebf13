"""The test suite's own safety net: nothing may leave the machine."""

from __future__ import annotations

import socket

import pytest


def test_connect_to_a_public_address_is_blocked(blocked_network_attempts: list[str]) -> None:
    with pytest.raises(BaseException, match="network access blocked") as caught:
        socket.create_connection(("192.0.2.10", 443), timeout=0.1)
    assert not isinstance(caught.value, Exception)  # retry loops cannot swallow it
    assert blocked_network_attempts == ["connect to 192.0.2.10:443"]
    blocked_network_attempts.clear()


def test_name_lookup_of_an_aws_endpoint_is_blocked(blocked_network_attempts: list[str]) -> None:
    with pytest.raises(BaseException, match="network access blocked"):
        socket.getaddrinfo("sts.us-east-1.amazonaws.com", 443)
    assert blocked_network_attempts == ["resolve sts.us-east-1.amazonaws.com"]
    blocked_network_attempts.clear()


def test_boto3_without_endpoint_override_cannot_reach_aws(
    blocked_network_attempts: list[str],
) -> None:
    import boto3

    client = boto3.client("sts", region_name="us-east-1")
    with pytest.raises(BaseException, match="network access blocked"):
        client.get_caller_identity()
    assert blocked_network_attempts
    assert all("amazonaws.com" in attempt for attempt in blocked_network_attempts)
    blocked_network_attempts.clear()


def test_loopback_is_allowed() -> None:
    server = socket.create_server(("127.0.0.1", 0))
    try:
        port = server.getsockname()[1]
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            pass
    finally:
        server.close()


def test_fake_aws_environment() -> None:
    import os

    import boto3

    assert os.environ["AWS_ACCESS_KEY_ID"] == "testing"
    assert os.environ["AWS_EC2_METADATA_DISABLED"] == "true"
    assert "AWS_DEFAULT_REGION" not in os.environ
    assert "AWS_REGION" not in os.environ
    assert not any(name.startswith("AWS_ENDPOINT_URL") for name in os.environ)
    assert not os.path.exists(os.environ["AWS_CONFIG_FILE"])
    assert not os.path.exists(os.environ["AWS_SHARED_CREDENTIALS_FILE"])
    session = boto3.Session()
    assert session.region_name is None
    credentials = session.get_credentials()
    assert credentials is not None
    assert credentials.access_key == "testing"
