"""The Messages API through the anthropic SDK, configured the SDK's standard way.

`anthropic.Anthropic()` reads ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN) and
ANTHROPIC_BASE_URL itself: this module never passes a key or a base URL, so a proxy or a
test server set in the environment is honoured.

`anthropic` is imported, and the client built, when the first call needs it, or earlier in
the background when the chat calls `prepare()` while the user types (agent/chat/warmup.py):
the import alone takes about a second of CPU, which the banner and the first prompt should
not wait for. Building the provider only checks the environment.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

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
    ProviderName,
    ProviderUnavailable,
    TextCallback,
)
from agent.providers.lazy import LazyClient

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
    default (600 s, connect 5 s) when given; a streamed call otherwise waits at most
    STREAM_READ_TIMEOUT for the next event (agent/providers/_sdk.py says why).
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
        self.model = model
        self._max_retries = max_retries
        self._timeout = timeout
        self._read_timeout = STREAM_READ_TIMEOUT if timeout is None else timeout
        self._lazy = LazyClient(
            self._build, self._configured(client) if client is not None else None
        )

    def _configured(self, client: anthropic.Anthropic) -> anthropic.Anthropic:
        if self._timeout is None:
            return client.with_options(max_retries=self._max_retries)
        return client.with_options(max_retries=self._max_retries, timeout=self._timeout)

    def _build(self) -> anthropic.Anthropic:
        import anthropic

        return self._configured(anthropic.Anthropic())

    @property
    def _client(self) -> anthropic.Anthropic:
        """The SDK client, built on first use (or by `prepare`, which it waits for)."""
        return self._lazy.get()

    def prepare(self) -> None:
        """Import the SDK and build the client now (agent/providers/lazy.py)."""
        self._lazy.prepare()

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
            message = send(self._client.messages, request, on_text, read_timeout=self._read_timeout)
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
            read_timeout=self._read_timeout,
        )
