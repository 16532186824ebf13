"""The Messages API through the anthropic SDK, configured the SDK's standard way.

`anthropic.Anthropic()` reads ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN) and
ANTHROPIC_BASE_URL itself: this module never passes a key or a base URL, so a proxy or a
test server set in the environment is honoured. `anthropic` is imported only when a
provider is built (the import alone takes about a second).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from agent.providers._sdk import (
    DEFAULT_MAX_RETRIES,
    Endpoint,
    map_sdk_error,
    send,
    to_model_response,
)
from agent.providers.base import (
    ModelRequest,
    ModelResponse,
    ProviderName,
    ProviderUnavailable,
    TextCallback,
)

if TYPE_CHECKING:
    import anthropic

# The keyless demo is the README's replayed conversation ("Talk to it"): a scripted model
# over recorded clusters, run from a checkout of the repository.
KEYLESS_DEMO = (
    "hyperpod-debug chat --provider scripted --script evals/conversations/efa-egress-fix.json "
    "--recorded evals/clusters/sg-outbound-self-missing.json "
    "--recorded evals/clusters/healthy-eks.json"
)
NO_KEY_MESSAGE = (
    "no Anthropic API key: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN), or use "
    "--provider bedrock with AWS credentials; `hyperpod-debug triage` and "
    "`hyperpod-debug explain` need no key, and neither does the demo chat (from the "
    f"repository): `{KEYLESS_DEMO}`"
)


class AnthropicProvider:
    """Provider "anthropic": one Messages API call per `complete`.

    Retries are the SDK's own (408, 409, 429, 5xx incl. 529 overloaded, connection
    errors; retry-after / retry-after-ms honoured), set to `max_retries` (default 3, one
    more than the SDK's 2) through `with_options`. `timeout` (seconds) replaces the SDK's
    default (600 s, connect 5 s) when given.
    """

    name: ProviderName = "anthropic"

    def __init__(
        self,
        model: str,
        *,
        client: anthropic.Anthropic | None = None,
        max_retries: int = DEFAULT_MAX_RETRIES,
        timeout: float | None = None,
    ) -> None:
        if client is None:
            import anthropic

            client = anthropic.Anthropic()
        if timeout is None:
            client = client.with_options(max_retries=max_retries)
        else:
            client = client.with_options(max_retries=max_retries, timeout=timeout)
        self.model = model
        self._client = client

    @classmethod
    def from_environment(
        cls, model: str, *, max_retries: int = DEFAULT_MAX_RETRIES, timeout: float | None = None
    ) -> AnthropicProvider:
        """The provider the environment configures; ProviderUnavailable without a key."""
        if not (os.environ.get("ANTHROPIC_API_KEY") or os.environ.get("ANTHROPIC_AUTH_TOKEN")):
            raise ProviderUnavailable(NO_KEY_MESSAGE)
        return cls(model, max_retries=max_retries, timeout=timeout)

    @property
    def base_url(self) -> str:
        return str(self._client.base_url)

    def complete(self, request: ModelRequest, on_text: TextCallback | None = None) -> ModelResponse:
        try:
            message = send(self._client.messages, request, on_text)
        except Exception as exc:
            mapped = map_sdk_error(exc, model=request.model, endpoint=self._endpoint())
            if mapped is None:
                raise
            raise mapped from None
        return to_model_response(message)

    def _endpoint(self) -> Endpoint:
        url = self._client.base_url
        host = f"{url.host}:{url.port}" if url.port else url.host
        uses_token = self._client.api_key is None and self._client.auth_token is not None
        variable = "ANTHROPIC_AUTH_TOKEN" if uses_token else "ANTHROPIC_API_KEY"
        secrets = tuple(s for s in (self._client.api_key, self._client.auth_token) if s)
        return Endpoint(
            service="the Anthropic API",
            reach_name="the Messages API",
            host=host,
            credential="the auth token" if uses_token else "the API key",
            credential_hint=f"check {variable}",
            secrets=secrets,
        )
