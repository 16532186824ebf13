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


# Filters replay applies itself to a recorded unfiltered list, as the API would: (service,
# operation) -> (request parameter, item field it matches as a substring). A recording made
# when the list was read in one go still answers a run that reads it filtered (the node
# listing of a large cluster is read one instance group at a time).
SUBSTRING_FILTERS = {
    ("sagemaker", "ListClusterNodes"): ("InstanceGroupNameContains", "InstanceGroupName"),
}


class ReplayStore:
    """Looks recorded calls up by service, operation and identifying parameters."""

    def __init__(self, recording: RecordedCluster) -> None:
        self._calls: dict[str, RecordedCall] = {}
        for call in recording.aws:
            self._calls[call_key(call.service, call.operation, call.params)] = call

    def respond(self, service: str, operation: str, params: dict[str, Any]) -> RecordedCall:
        """The stored call, whole (the access layer cuts the page with `page_call`)."""
        key = call_key(service, operation, params)
        call = self._calls.get(key)
        if call is None:
            call = self._filtered(service, operation, params)
            if call is None:
                identity = {k: v for k, v in params.items() if k not in PAGING_PARAMS}
                shown = json.dumps(identity, sort_keys=True, default=str)
                raise NotRecorded(service, operation, shown)
            self._calls[key] = call  # the next page of the same list reuses it
        return call

    def _filtered(
        self, service: str, operation: str, params: dict[str, Any]
    ) -> RecordedCall | None:
        """The recorded unfiltered list narrowed by a filter parameter (SUBSTRING_FILTERS),
        or None when there is no such filter or no such recording."""
        rule = SUBSTRING_FILTERS.get((service, operation))
        if rule is None or not isinstance(params.get(rule[0]), str):
            return None
        parameter, field = rule
        wanted = str(params[parameter])
        whole = self._calls.get(
            call_key(service, operation, {k: v for k, v in params.items() if k != parameter})
        )
        if whole is None or whole.error is not None or whole.paging is None:
            return whole
        items = (whole.response or {}).get(whole.paging.result_key, [])
        kept = [i for i in items if isinstance(i, dict) and wanted in str(i.get(field) or "")]
        response = {**(whole.response or {}), whole.paging.result_key: kept}
        return whole.model_copy(update={"params": dict(params), "response": response})


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
