"""Serve recorded AWS responses, paging stored lists the way the real APIs page them."""

from __future__ import annotations

import json
from typing import Any, Protocol

from tools.aws.errors import NotRecorded
from tools.recorded.model import PAGING_PARAMS, RecordedCall, RecordedCluster

_TOKEN_PREFIX = "hpd-replay:"
_DEFAULT_PAGE = 100


def call_key(service: str, operation: str, params: dict[str, Any]) -> str:
    identity = {k: v for k, v in params.items() if k not in PAGING_PARAMS}
    return f"{service}:{operation}:{json.dumps(identity, sort_keys=True, default=str)}"


def _page_size(params: dict[str, Any]) -> int:
    for key in ("MaxResults", "maxResults", "limit", "Limit", "MaxItems"):
        value = params.get(key)
        if isinstance(value, int) and value > 0:
            return value
    return _DEFAULT_PAGE


def _offset(token: object) -> int:
    if token is None:
        return 0
    if isinstance(token, str) and token.startswith(_TOKEN_PREFIX):
        try:
            return max(0, int(token.removeprefix(_TOKEN_PREFIX)))
        except ValueError:
            pass
    raise ValueError(f"invalid replay pagination token {token!r}")


class Responder(Protocol):
    """Anything that answers AWS calls without the network (a recording, a test world).

    `respond` returns the whole answer; a paged list is cut into pages by `page_call`.
    """

    def respond(self, service: str, operation: str, params: dict[str, Any]) -> RecordedCall: ...


class ReplayStore:
    """Looks recorded calls up by service, operation and identifying parameters."""

    def __init__(self, recording: RecordedCluster) -> None:
        self._calls: dict[str, RecordedCall] = {}
        for call in recording.aws:
            self._calls[call_key(call.service, call.operation, call.params)] = call

    def respond(self, service: str, operation: str, params: dict[str, Any]) -> RecordedCall:
        """The stored call, whole (the access layer cuts the page with `page_call`)."""
        call = self._calls.get(call_key(service, operation, params))
        if call is None:
            identity = {k: v for k, v in params.items() if k not in PAGING_PARAMS}
            raise NotRecorded(service, operation, json.dumps(identity, sort_keys=True, default=str))
        return call


def page_call(call: RecordedCall, params: dict[str, Any]) -> RecordedCall:
    """Cut a whole stored list down to the page that `params` asks for."""
    if call.error is not None or call.paging is None or call.response is None:
        return call
    paging = call.paging
    items = call.response.get(paging.result_key, [])
    start = _offset(params.get(paging.token_key))
    size = _page_size(params)
    page = dict(call.response)
    page[paging.result_key] = items[start : start + size]
    page.pop(paging.token_key, None)
    if start + size < len(items):
        page[paging.token_key] = f"{_TOKEN_PREFIX}{start + size}"
    return call.model_copy(update={"response": page})
