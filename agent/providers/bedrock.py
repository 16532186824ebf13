"""Claude on Amazon Bedrock through the anthropic SDK's `AnthropicBedrock` client.

That client signs its own requests (SigV4 from the boto3 credential chain, or the bearer
token in AWS_BEARER_TOKEN_BEDROCK) and can only call the model (InvokeModel /
InvokeModelWithResponseStream). It is separate from the project's guarded read-only boto3
session (tools/aws/session.py), which never sees these calls and is never used for them.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any

from agent.providers._sdk import (
    DEFAULT_MAX_RETRIES,
    STREAM_READ_TIMEOUT,
    Endpoint,
    map_sdk_error,
    send,
    to_model_response,
)
from agent.providers.base import (
    ModelRequest,
    ModelResponse,
    ProviderError,
    ProviderName,
    ProviderUnavailable,
    TextCallback,
)
from agent.providers.lazy import LazyClient

if TYPE_CHECKING:
    from anthropic import AnthropicBedrock

BEARER_TOKEN_VARIABLE = "AWS_BEARER_TOKEN_BEDROCK"
NO_MODEL_NEEDED = "`hyperpod-debug triage` and `hyperpod-debug explain` need no model"
# What a region may hold: it becomes the host name of the endpoint (bedrock-runtime.REGION...).
_REGION = re.compile(r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*")


class BedrockProvider:
    """Provider "bedrock": one InvokeModel (or InvokeModelWithResponseStream) per call.

    Same retries as the Anthropic provider (the SDK's, `max_retries` default 3). The client
    (and with it the SDK's import, about a second) is built on first use or by `prepare`,
    which the chat runs once its first prompt is drawn, as for the Anthropic provider.
    """

    name: ProviderName = "bedrock"

    def __init__(
        self,
        model: str,
        *,
        region: str,
        profile: str | None = None,
        client: AnthropicBedrock | None = None,
        max_retries: int = DEFAULT_MAX_RETRIES,
        timeout: float | None = None,
    ) -> None:
        self.model = model
        self.region = region
        self._profile = profile
        self._max_retries = max_retries
        self._timeout = timeout
        self._read_timeout = STREAM_READ_TIMEOUT if timeout is None else timeout
        self._lazy = LazyClient(
            self._build, self._configured(client) if client is not None else None
        )

    def _configured(self, client: AnthropicBedrock) -> AnthropicBedrock:
        if self._timeout is None:
            return client.with_options(max_retries=self._max_retries)
        return client.with_options(max_retries=self._max_retries, timeout=self._timeout)

    def _build(self) -> AnthropicBedrock:
        from anthropic import AnthropicBedrock

        try:
            built = AnthropicBedrock(aws_region=self.region, aws_profile=self._profile)
        except ValueError as exc:  # a bearer token and a profile at once
            raise ProviderUnavailable(_token_and_profile(self._profile)) from exc
        return self._configured(built)

    @property
    def _client(self) -> AnthropicBedrock:
        """The SDK client, built on first use (or by `prepare`, which it waits for)."""
        return self._lazy.get()

    def prepare(self) -> None:
        """Import the SDK and build the client now (agent/providers/lazy.py)."""
        self._lazy.prepare()

    @classmethod
    def from_environment(
        cls,
        model: str,
        region: str | None,
        profile: str | None,
        *,
        max_retries: int = DEFAULT_MAX_RETRIES,
        timeout: float | None = None,
    ) -> BedrockProvider:
        """Check that a region and credentials resolve (no network call), then build."""
        from botocore.exceptions import BotoCoreError

        from tools.display import argument

        if profile is not None and os.environ.get(BEARER_TOKEN_VARIABLE) is not None:
            # What the SDK's client refuses to be built with, said before the chat starts.
            raise ProviderUnavailable(_token_and_profile(profile))
        session = _botocore_session(profile)
        if profile is not None and profile not in session.available_profiles:
            raise ProviderUnavailable(
                f"AWS profile {profile} is not in the AWS config or credentials files; "
                f"{NO_MODEL_NEEDED}"
            )
        try:
            resolved_region = (
                region
                or os.environ.get("AWS_REGION")
                or os.environ.get("AWS_DEFAULT_REGION")
                or session.get_config_variable("region")
            )
            has_credentials = bool(os.environ.get(BEARER_TOKEN_VARIABLE)) or (
                session.get_credentials() is not None
            )
        except BotoCoreError as exc:  # e.g. AWS_PROFILE names a profile that does not exist
            line = f"the AWS configuration cannot be used for Bedrock: {exc}; {NO_MODEL_NEEDED}"
            raise ProviderUnavailable(" ".join(line.split())) from None
        if not resolved_region:
            raise ProviderUnavailable(
                "no AWS region for Bedrock: pass --region or set AWS_REGION "
                f"(or a region in the profile); {NO_MODEL_NEEDED}"
            )
        if not _REGION.fullmatch(str(resolved_region)):
            # It names the endpoint's host: anything else fails on the URL, or asks DNS.
            raise ProviderUnavailable(
                f"{argument(str(resolved_region), 60)} is not an AWS region (e.g. us-west-2); "
                f"{NO_MODEL_NEEDED}"
            )
        if not has_credentials:
            raise ProviderUnavailable(
                "no AWS credentials for Bedrock: set AWS_PROFILE (or pass --profile), "
                f"AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, or {BEARER_TOKEN_VARIABLE}; "
                f"{NO_MODEL_NEEDED}"
            )
        return cls(
            model,
            region=str(resolved_region),
            profile=profile,
            max_retries=max_retries,
            timeout=timeout,
        )

    @property
    def base_url(self) -> str:
        return str(self._client.base_url)

    def complete(self, request: ModelRequest, on_text: TextCallback | None = None) -> ModelResponse:
        from botocore.exceptions import BotoCoreError

        endpoint = self._endpoint()
        try:
            message = send(self._client.messages, request, on_text, read_timeout=self._read_timeout)
        except BotoCoreError as exc:  # credentials that resolved once but no longer do
            raise ProviderError(_credentials_line(str(exc))) from None
        except RuntimeError as exc:
            if "credentials" not in str(exc).lower():
                raise
            raise ProviderError(_credentials_line(str(exc))) from None
        except Exception as exc:
            mapped = map_sdk_error(exc, model=request.model, endpoint=endpoint)
            if mapped is None:
                raise
            raise mapped from None
        return to_model_response(message)

    def _endpoint(self) -> Endpoint:
        url = self._client.base_url
        host = f"{url.host}:{url.port}" if url.port else url.host
        token = self._client.api_key
        hint = (
            f"check {BEARER_TOKEN_VARIABLE}"
            if token
            else "check the AWS credentials and that they allow bedrock:InvokeModel "
            f"on this model in {self.region} (model access enabled)"
        )
        return Endpoint(
            service="Amazon Bedrock",
            reach_name="Amazon Bedrock",
            host=host,
            credential="the bearer token" if token else "the AWS credentials",
            credential_hint=hint,
            secrets=(token,) if token else (),
            read_timeout=self._read_timeout,
        )


def _token_and_profile(profile: str | None) -> str:
    return (
        f"{BEARER_TOKEN_VARIABLE} and --profile {profile} are both set: "
        "unset the token or drop --profile"
    )


def _credentials_line(cause: str) -> str:
    return " ".join(f"AWS credentials for Bedrock could not be used: {cause}".split())


def _botocore_session(profile: str | None) -> Any:
    import botocore.session

    return botocore.session.Session(profile=profile)
