"""A malformed endpoint URL (AWS_ENDPOINT_URL, AWS_ENDPOINT_URL_<SERVICE>, a profile's
endpoint_url, an explicit endpoint) is a bad argument: one line naming where it was set,
exit 2, no traceback, nothing sent."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.cli import app
from tools.aws.errors import EndpointSettingError
from tools.aws.session import AwsAccess

REGION = "us-west-2"
MALFORMED = [
    "not a url",
    "localhost:4566",
    "http://",
    "ftp://example.com",
    "http://127.0.0.1:99999",
    "http://[::1",
    "http://bad host/",
]


def triage() -> tuple[int, str, BaseException | None]:
    result = CliRunner().invoke(
        app, ["triage", "--cluster", "hp", "--region", REGION, "--no-probes"]
    )
    return result.exit_code, result.output, result.exception


@pytest.mark.parametrize("value", MALFORMED)
@pytest.mark.parametrize("variable", ["AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_SAGEMAKER"])
def test_a_malformed_endpoint_variable_is_exit_2_naming_it(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str
) -> None:
    monkeypatch.setenv(variable, value)
    code, output, exception = triage()

    assert code == 2, output
    assert isinstance(exception, SystemExit)
    assert "Traceback" not in output
    assert output.startswith(f"error: {variable} is not a valid endpoint URL")
    assert len(output.strip().splitlines()) == 1


def test_a_malformed_profile_endpoint_is_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "config"
    config.write_text(
        "[profile lab]\naws_access_key_id = a\naws_secret_access_key = b\n"
        "endpoint_url = localstack:4566\n"
    )
    monkeypatch.setenv("AWS_CONFIG_FILE", str(config))
    result = CliRunner().invoke(
        app, ["triage", "--cluster", "hp", "--region", REGION, "--profile", "lab"]
    )

    assert result.exit_code == 2, result.output
    assert "endpoint_url in the AWS profile is not a valid endpoint URL" in result.output


def test_an_over_long_endpoint_value_is_clipped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ENDPOINT_URL", "x" * 100_000)
    code, output, _ = triage()

    assert code == 2
    assert len(output) < 400


def test_an_explicit_endpoint_is_checked_too() -> None:
    with pytest.raises(EndpointSettingError, match="the endpoint URL is not a valid"):
        AwsAccess(REGION, endpoint_url="127.0.0.1:4566")


@pytest.mark.parametrize(
    "value",
    ["http://127.0.0.1:4566", "https://sagemaker.us-west-2.amazonaws.com", "http://[::1]:4566/"],
)
def test_valid_endpoints_pass(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("AWS_ENDPOINT_URL", value)
    AwsAccess(REGION, endpoint_url=value)


def test_ignored_endpoint_settings_are_not_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    """botocore ignores configured endpoints under AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: so
    does the check (an explicit endpoint is still used, and still checked)."""
    monkeypatch.setenv("AWS_ENDPOINT_URL", "not a url")
    monkeypatch.setenv("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", "true")
    AwsAccess(REGION)
    with pytest.raises(EndpointSettingError):
        AwsAccess(REGION, endpoint_url="not a url")
