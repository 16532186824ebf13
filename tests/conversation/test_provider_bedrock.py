"""BedrockProvider: credential and region checks without any network call, and the real
AnthropicBedrock client against the loopback fake (ANTHROPIC_BEDROCK_BASE_URL), both for
InvokeModel and for the binary event stream of InvokeModelWithResponseStream."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from agent.providers.base import ModelRequest, ProviderError, ProviderUnavailable
from agent.providers.bedrock import BedrockProvider
from agent.providers.factory import DEFAULT_MODELS, make_provider

from .fake_messages_api import ErrorReply, FakeMessagesAPI, message_reply, text, tool_use

MODEL = DEFAULT_MODELS["bedrock"]
BEARER_TOKEN = "bedrock-api-key-0123456789abcdef"
_AWS_CREDENTIAL_VARIABLES = (
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_SECURITY_TOKEN",
    "AWS_BEARER_TOKEN_BEDROCK",
    "AWS_PROFILE",
    "AWS_DEFAULT_PROFILE",
    "AWS_REGION",
    "AWS_DEFAULT_REGION",
    "ANTHROPIC_BEDROCK_BASE_URL",
)


@pytest.fixture
def aws_files(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> tuple[Path, Path]:
    """No AWS variables, empty config and credentials files, no instance metadata."""
    for name in _AWS_CREDENTIAL_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    config, credentials = tmp_path / "config", tmp_path / "credentials"
    config.write_text("")
    credentials.write_text("")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(config))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(credentials))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    return config, credentials


@pytest.fixture
def static_credentials(monkeypatch: pytest.MonkeyPatch, aws_files: tuple[Path, Path]) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAFAKEFAKEFAKEFAKE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "fake-secret-access-key")


@pytest.fixture
def socket_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every connect or name lookup, loopback included, is recorded and refused."""
    calls: list[str] = []

    def refuse(what: str) -> OSError:
        calls.append(what)
        return OSError(f"no socket use expected here: {what}")

    def connect(self: socket.socket, address: Any) -> None:
        raise refuse(f"connect {address}")

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        raise refuse(f"resolve {host}")

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return calls


@pytest.fixture
def bedrock_api(
    monkeypatch: pytest.MonkeyPatch, static_credentials: None
) -> Iterator[FakeMessagesAPI]:
    with FakeMessagesAPI() as server:
        monkeypatch.setenv("ANTHROPIC_BEDROCK_BASE_URL", server.url)
        yield server
        server.assert_loopback_only()


def make_request() -> ModelRequest:
    return ModelRequest(
        model=MODEL,
        system=[
            {"type": "text", "text": "You diagnose nodes.", "cache_control": {"type": "ephemeral"}}
        ],
        tools=[],
        messages=[{"role": "user", "content": "Is node i-0abc healthy?"}],
        max_tokens=512,
    )


def provider(**options: Any) -> BedrockProvider:
    return BedrockProvider.from_environment(MODEL, "us-east-1", None, **options)


def bedrock_error(status: int, error_type: str, message: str) -> ErrorReply:
    return ErrorReply(
        status=status, body={"message": message}, headers={"x-amzn-errortype": error_type}
    )


@pytest.mark.usefixtures("aws_files")
def test_no_credentials_is_unavailable() -> None:
    with pytest.raises(ProviderUnavailable) as raised:
        BedrockProvider.from_environment(MODEL, "us-east-1", None)

    line = str(raised.value)
    assert "\n" not in line
    for needed in ("AWS_PROFILE", "AWS_BEARER_TOKEN_BEDROCK", "triage", "explain"):
        assert needed in line


@pytest.mark.usefixtures("static_credentials")
def test_no_region_is_unavailable() -> None:
    with pytest.raises(ProviderUnavailable, match=r"--region .*AWS_REGION"):
        BedrockProvider.from_environment(MODEL, None, None)


@pytest.mark.usefixtures("static_credentials")
def test_static_credentials_construct_without_any_network_call(
    monkeypatch: pytest.MonkeyPatch, socket_calls: list[str]
) -> None:
    monkeypatch.setenv("AWS_REGION", "us-west-2")

    built = BedrockProvider.from_environment(MODEL, None, None)

    assert socket_calls == []
    assert built.name == "bedrock"
    assert built.model == MODEL
    assert built.region == "us-west-2"
    assert built.base_url.rstrip("/") == "https://bedrock-runtime.us-west-2.amazonaws.com"


@pytest.mark.usefixtures("static_credentials")
def test_the_region_argument_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_REGION", "us-west-2")

    assert BedrockProvider.from_environment(MODEL, "eu-central-1", None).region == "eu-central-1"


@pytest.mark.usefixtures("aws_files")
def test_a_bearer_token_alone_is_enough(
    monkeypatch: pytest.MonkeyPatch, socket_calls: list[str]
) -> None:
    monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", BEARER_TOKEN)

    assert BedrockProvider.from_environment(MODEL, "us-east-1", None).region == "us-east-1"
    assert socket_calls == []


def test_a_profile_gives_region_and_credentials(aws_files: tuple[Path, Path]) -> None:
    config, credentials = aws_files
    config.write_text("[profile diag]\nregion = eu-west-1\n")
    credentials.write_text("[diag]\naws_access_key_id = AKIAFAKE\naws_secret_access_key = fake\n")

    assert BedrockProvider.from_environment(MODEL, None, "diag").region == "eu-west-1"


@pytest.mark.usefixtures("aws_files")
def test_an_unknown_profile_is_unavailable() -> None:
    with pytest.raises(ProviderUnavailable, match="AWS profile nosuch is not in"):
        BedrockProvider.from_environment(MODEL, "us-east-1", "nosuch")


@pytest.mark.usefixtures("static_credentials")
def test_aws_profile_naming_a_missing_profile_is_unavailable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AWS_PROFILE", "gone")

    with pytest.raises(ProviderUnavailable, match=r"cannot be used for Bedrock: .*gone"):
        BedrockProvider.from_environment(MODEL, "us-east-1", None)


def test_a_bearer_token_and_a_profile_conflict(
    monkeypatch: pytest.MonkeyPatch, aws_files: tuple[Path, Path]
) -> None:
    config, _ = aws_files
    config.write_text("[profile diag]\nregion = eu-west-1\n")
    monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", BEARER_TOKEN)

    with pytest.raises(ProviderUnavailable, match="both set"):
        BedrockProvider.from_environment(MODEL, None, "diag")


def test_invoke_model_is_signed_and_answered(bedrock_api: FakeMessagesAPI) -> None:
    bedrock_api.enqueue(message_reply(text("Healthy."), model=MODEL))

    response = provider().complete(make_request())

    assert response.text == "Healthy."
    assert response.stop_reason == "end_turn"
    recorded = bedrock_api.requests[0]
    assert recorded.path == f"/model/{MODEL}/invoke"
    assert "model" not in recorded.body
    assert "anthropic_version" in recorded.body
    assert recorded.body["max_tokens"] == 512
    assert recorded.body["system"][-1]["cache_control"] == {"type": "ephemeral"}
    assert recorded.headers["authorization"].startswith("AWS4-HMAC-SHA256 ")
    assert "/us-east-1/bedrock/aws4_request" in recorded.headers["authorization"]


def test_streaming_over_the_aws_event_stream(bedrock_api: FakeMessagesAPI) -> None:
    bedrock_api.enqueue(
        message_reply(
            text("Checking the node."),
            tool_use("toolu_07", "describe_node", {"node": "i-0abc"}),
            model=MODEL,
            chunk_size=4,
        )
    )
    deltas: list[str] = []

    response = provider().complete(make_request(), on_text=deltas.append)

    assert bedrock_api.requests[0].path == f"/model/{MODEL}/invoke-with-response-stream"
    assert len(deltas) > 1
    assert "".join(deltas) == "Checking the node." == response.text
    assert response.tool_uses == [
        {"type": "tool_use", "id": "toolu_07", "name": "describe_node", "input": {"node": "i-0abc"}}
    ]
    assert response.stop_reason == "tool_use"


def test_access_denied_says_what_to_check(bedrock_api: FakeMessagesAPI) -> None:
    bedrock_api.enqueue(
        bedrock_error(403, "AccessDeniedException", "You don't have access to the model.")
    )

    with pytest.raises(ProviderError) as raised:
        provider().complete(make_request())

    line = str(raised.value)
    assert line.startswith(f"Amazon Bedrock denied the request for model {MODEL} (403)")
    assert "You don't have access to the model." in line
    assert "bedrock:InvokeModel" in line
    assert "us-east-1" in line


def test_an_invalid_model_id_is_an_unknown_model(bedrock_api: FakeMessagesAPI) -> None:
    bedrock_api.enqueue(
        bedrock_error(400, "ValidationException", "The provided model identifier is invalid.")
    )
    request = replace(make_request(), model="us.anthropic.claude-nonesuch")

    with pytest.raises(ProviderError, match=r"^unknown model us\.anthropic\.claude-nonesuch"):
        provider().complete(request)


def test_throttled_after_every_retry(bedrock_api: FakeMessagesAPI) -> None:
    throttled = bedrock_error(429, "ThrottlingException", "Too many requests")
    bedrock_api.enqueue(
        ErrorReply(429, throttled.body, {**throttled.headers, "retry-after-ms": "5"}),
        ErrorReply(429, throttled.body, {**throttled.headers, "retry-after-ms": "5"}),
    )

    with pytest.raises(ProviderError, match=r"still failing after retries \(HTTP 429\)"):
        provider(max_retries=1).complete(make_request())
    assert len(bedrock_api.requests) == 2


def test_a_bearer_token_is_sent_and_never_shown(
    monkeypatch: pytest.MonkeyPatch, bedrock_api: FakeMessagesAPI
) -> None:
    monkeypatch.delenv("AWS_ACCESS_KEY_ID")
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY")
    monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", BEARER_TOKEN)
    bedrock_api.enqueue(
        bedrock_error(403, "AccessDeniedException", f"token {BEARER_TOKEN} expired")
    )

    with pytest.raises(ProviderError) as raised:
        provider().complete(make_request())

    assert bedrock_api.requests[0].headers["authorization"] == f"Bearer {BEARER_TOKEN}"
    assert BEARER_TOKEN not in str(raised.value)
    assert "check AWS_BEARER_TOKEN_BEDROCK" in str(raised.value)


@pytest.mark.usefixtures("static_credentials")
def test_factory_builds_the_bedrock_provider(socket_calls: list[str]) -> None:
    built = make_provider("bedrock", model=None, region="us-east-1", profile=None, script=None)

    assert built.name == "bedrock"
    assert built.model == MODEL
    assert socket_calls == []


@pytest.mark.usefixtures("aws_files")
def test_factory_without_credentials_is_unavailable() -> None:
    with pytest.raises(ProviderUnavailable, match="no AWS credentials"):
        make_provider("bedrock", model=None, region="us-east-1", profile=None, script=None)


@pytest.mark.usefixtures("static_credentials")
@pytest.mark.parametrize("region", ["a:b", "us west 2", "us-west-2/x"])
def test_a_region_that_cannot_name_an_endpoint_is_unavailable(
    monkeypatch: pytest.MonkeyPatch, region: str
) -> None:
    """Said before the chat starts, in one line: the client, built on first use, would
    otherwise fail on the endpoint's URL with a traceback (or ask DNS for a bad host)."""
    with pytest.raises(ProviderUnavailable, match="is not an AWS region"):
        BedrockProvider.from_environment(MODEL, region, None)
    monkeypatch.setenv("AWS_REGION", region)
    with pytest.raises(ProviderUnavailable, match="is not an AWS region"):
        BedrockProvider.from_environment(MODEL, None, None)
