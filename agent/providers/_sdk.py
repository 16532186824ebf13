"""What the Anthropic and Bedrock providers share: one Messages call through the anthropic
SDK, the conversion of its answer into a ModelResponse, and the mapping of its errors into
one-line ProviderErrors.

Nothing here imports `anthropic` at module import: the exception classes are looked up when
an error is being mapped, which only happens after the SDK has been imported.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent.providers import retries
from agent.providers.base import (
    ModelRequest,
    ModelResponse,
    ProviderError,
    TextCallback,
    Usage,
)
from tools.redaction import hide_environment_secrets
from tools.visible import clip_line

if TYPE_CHECKING:
    from anthropic.resources.messages import Messages
    from anthropic.types import ContentBlockParam, Message
    from anthropic.types.message_create_params import MessageCreateParamsBase

# The SDK refuses a non-streaming call whose max_tokens could take over ten minutes
# (128,000 tokens an hour, so above ~21,333): such a request is streamed even without a
# text callback.
NONSTREAMING_MAX_TOKENS = 21_333
# The SDK's default is 2; an overloaded (529) or rate-limited (429) API is common enough
# in an interactive session that one more attempt is worth its back-off (0.5 s, 1 s, 2 s
# with jitter, or what retry-after / retry-after-ms asks for).
DEFAULT_MAX_RETRIES = 3
# A streamed call (chat, `ask` on a terminal) gives up on a server that sends nothing for
# this long, instead of the SDK's 600 s per attempt (four attempts: 40 minutes of a blank
# screen). httpx's read timeout counts from the last bytes received, so on a stream it is
# the longest silence between events, not a limit on the whole answer; the API streams
# deltas as tokens come and sends `ping` events in between (how often is not documented:
# 150 s is meant to be far above any healthy silence, unverified against long thinking).
# A plain (non-streamed) call keeps the SDK's 600 s: its body comes only when the whole
# answer is written. Connecting gets 10 s (the SDK's 5 s is tight on a slow proxy or VPN).
STREAM_READ_TIMEOUT = 150.0
CONNECT_TIMEOUT = 10.0
BAD_REQUEST_CLIP = 300
_CAUSE_CLIP = 160
_MIN_SECRET_LENGTH = 6


class IncompleteStream(Exception):
    """The stream ended without an error event but before `message_stop`."""


@dataclass(frozen=True)
class Endpoint:
    """How error lines name the service a provider talks to."""

    service: str
    """Subject of most lines: "the Anthropic API", "Amazon Bedrock"."""
    reach_name: str
    """What cannot be reached: "the Messages API", "Amazon Bedrock"."""
    host: str
    credential: str
    """What a 401 refused: "the API key", "the AWS credentials"."""
    credential_hint: str
    """What to check after a 401 / 403: "check ANTHROPIC_API_KEY"."""
    secrets: tuple[str, ...] = ()
    """Values that must never appear in an error line (API keys, tokens)."""
    read_timeout: float | None = None
    """The longest silence a streamed call waits for, when the line about a timeout can
    name it."""


def request_params(request: ModelRequest) -> MessageCreateParamsBase:
    """The Messages API arguments of one request; empty system / tools are left out."""
    params: MessageCreateParamsBase = {
        "model": request.model,
        "max_tokens": request.max_tokens,
        "messages": request.messages,
    }
    if request.system:
        params["system"] = request.system
    if request.tools:
        params["tools"] = request.tools
    if request.tool_choice is not None:
        params["tool_choice"] = request.tool_choice
    return params


def send(
    messages: Messages,
    request: ModelRequest,
    on_text: TextCallback | None,
    *,
    read_timeout: float = STREAM_READ_TIMEOUT,
) -> Message:
    """One Messages call: streamed when there is a text callback (each text delta goes to
    it in order) or when max_tokens is too large for a plain call, else `create`. The
    SDK's retries are announced to `retries.listen` listeners."""
    with retries.watch():
        return _send(messages, request, on_text, read_timeout)


def _send(
    messages: Messages, request: ModelRequest, on_text: TextCallback | None, read_timeout: float
) -> Message:
    import anthropic

    params = request_params(request)
    if on_text is None and request.max_tokens <= NONSTREAMING_MAX_TOKENS:
        message: Message = messages.create(**params)
        return message
    started = stopped = False
    timeout = anthropic.Timeout(read_timeout, connect=min(CONNECT_TIMEOUT, read_timeout))
    with messages.stream(**params, timeout=timeout) as stream:
        for event in stream:
            started = started or event.type == "message_start"
            stopped = stopped or event.type == "message_stop"
            if event.type == "text" and on_text is not None:
                on_text(event.text)
        if not (started and stopped):
            raise IncompleteStream
        final: Message = stream.get_final_message()
        return final


def to_model_response(message: Message) -> ModelResponse:
    """The content blocks as API dicts, the stop reason and the usage.

    `text` and `tool_use` blocks are what the loop reads; thinking blocks (with their
    signatures) are kept as the API gave them, because the API expects them back unchanged
    in the next request of a tool-use exchange (their fields in the order the SDK's
    model_dump gives them). Other block kinds are dropped."""
    content: list[ContentBlockParam] = []
    for block in message.content:
        if block.type == "text":
            content.append({"type": "text", "text": block.text})
        elif block.type == "tool_use":
            tool_input = block.input if isinstance(block.input, dict) else {}
            content.append(
                {"type": "tool_use", "id": block.id, "name": block.name, "input": tool_input}
            )
        elif block.type == "thinking":
            content.append(
                {"signature": block.signature, "thinking": block.thinking, "type": "thinking"}
            )
        elif block.type == "redacted_thinking":
            content.append({"data": block.data, "type": "redacted_thinking"})
    usage = message.usage
    return ModelResponse(
        content=content,
        stop_reason=message.stop_reason,
        usage=Usage(
            input_tokens=usage.input_tokens or 0,
            output_tokens=usage.output_tokens or 0,
            cache_creation_input_tokens=usage.cache_creation_input_tokens or 0,
            cache_read_input_tokens=usage.cache_read_input_tokens or 0,
        ),
        model=str(message.model),
    )


def scrub(text: str, secrets: tuple[str, ...]) -> str:
    """One line, with every secret value replaced (the placeholder of tools.redaction)."""
    line = " ".join(text.split())
    return hide_environment_secrets(line, [s for s in secrets if len(s) >= _MIN_SECRET_LENGTH])


def clip(text: str, limit: int, secrets: tuple[str, ...]) -> str:
    """`scrub`, then at most `limit` characters: a credential is replaced whole before the
    cut, which could otherwise leave a piece too short to match (tools.visible.clip_line)."""
    return clip_line(scrub(text, secrets), limit)


def map_sdk_error(exc: BaseException, *, model: str, endpoint: Endpoint) -> ProviderError | None:
    """The ProviderError for an exception of the anthropic SDK, or None for any other."""
    import anthropic

    line: str | None = None
    if isinstance(exc, IncompleteStream):
        line = f"{endpoint.service} ended the stream before the answer was complete"
    elif isinstance(exc, anthropic.APIConnectionError):
        line = _connection_line(exc, endpoint)
    elif isinstance(exc, anthropic.APIStatusError):
        line = _status_line(exc, model=model, endpoint=endpoint)
    elif isinstance(exc, anthropic.AnthropicError):
        cause = clip(str(exc), BAD_REQUEST_CLIP, endpoint.secrets)
        line = f"{endpoint.service} call failed: {cause}"
    if line is None:
        return None
    return ProviderError(scrub(line, endpoint.secrets))


def _connection_line(exc: BaseException, endpoint: Endpoint) -> str:
    import anthropic

    where = f"cannot reach {endpoint.reach_name} at {endpoint.host}"
    if isinstance(exc, anthropic.APITimeoutError):
        # httpx names the phase that ran out: ConnectTimeout, ReadTimeout, WriteTimeout.
        phase = type(exc.__cause__).__name__
        if phase == "ConnectTimeout":
            return f"{where}: timed out connecting"
        if phase == "ReadTimeout" and endpoint.read_timeout is not None:
            silence = retries.seconds(endpoint.read_timeout)
            return f"{where}: timed out, nothing received for {silence}"
        return f"{where}: timed out"
    return f"{where}: {_short_cause(exc, endpoint.secrets)}"


def _short_cause(exc: BaseException, secrets: tuple[str, ...]) -> str:
    """The innermost cause's text (e.g. "[Errno 111] Connection refused"), clipped."""
    cause: BaseException = exc
    seen: set[int] = set()
    while id(cause) not in seen:
        seen.add(id(cause))
        inner = cause.__cause__ or cause.__context__
        if inner is None:
            break
        cause = inner
    text = " ".join(str(cause).split()) or type(cause).__name__
    return clip(text, _CAUSE_CLIP, secrets)


def _api_message(exc: Any) -> str:
    """The API's own message: Anthropic's `error.message`, Bedrock's `message`."""
    message = getattr(exc, "api_message", None)
    body = getattr(exc, "body", None)
    if not message and isinstance(body, dict):
        message = body.get("message") or body.get("Message")
    if not message and isinstance(body, str):
        message = body
    return " ".join(str(message or "").split())


def _status_line(exc: Any, *, model: str, endpoint: Endpoint) -> str:
    import anthropic

    status = int(exc.status_code)
    message = _api_message(exc)
    detail = f": {clip(message, BAD_REQUEST_CLIP, endpoint.secrets)}" if message else ""
    service = endpoint.service
    kind = getattr(exc, "type", None)
    if status < 400:  # an error event inside a stream that had started with HTTP 200
        return f"{service} broke off the answer ({kind or 'error'}){detail}"
    if isinstance(exc, anthropic.AuthenticationError):
        return f"{service} refused {endpoint.credential} (401): {endpoint.credential_hint}"
    if isinstance(exc, anthropic.PermissionDeniedError):
        return (
            f"{service} denied the request for model {model} (403){detail}; "
            f"{endpoint.credential_hint}"
        )
    if isinstance(exc, anthropic.NotFoundError) or _names_unknown_model(message):
        return f"unknown model {model}: {service} answered HTTP {status}{detail}; check --model"
    after_retries = f"still failing after retries (HTTP {status})"
    if isinstance(exc, anthropic.RateLimitError):
        return f"{service} is rate limiting these requests, {after_retries}"
    if isinstance(exc, anthropic.OverloadedError):
        return f"{service} is overloaded, {after_retries}"
    if isinstance(exc, anthropic.InternalServerError):
        return f"{service} had a server error, {after_retries}"
    if isinstance(exc, (anthropic.RequestTimeoutError, anthropic.ConflictError)):
        return f"{service} timed out or conflicted, {after_retries}{detail}"
    if isinstance(exc, anthropic.BadRequestError):
        return f"{service} rejected the request (400){detail}"
    what = f"HTTP {status}, {kind}" if kind else f"HTTP {status}"
    return f"{service} returned an error ({what}){detail}"


def _names_unknown_model(message: str) -> bool:
    """Bedrock answers an unknown model id with a 400 ValidationException."""
    return "model identifier is invalid" in message.lower()
