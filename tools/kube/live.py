"""The live transport: GETs through the official client's ApiClient, raw bytes back.

`param_serialize` + `call_api` reuse the client's URL building, TLS settings and bearer
token handling (including the exec plugin's refresh when the token expires), while the
body is read as bytes and never deserialized into the client's typed models.
"""

from __future__ import annotations

from typing import Any

from tools.kube.access import Query, guard
from tools.sources import KubernetesUnavailable
from tools.text import clip


class LiveTransport:
    def __init__(self, configuration: Any, server: str, timeout: tuple[float, float]) -> None:
        from kubernetes.client import ApiClient

        # A couple of quick retries for a flaky connection; a dead server fails fast.
        configuration.retries = 2
        self._client: Any = ApiClient(configuration=configuration)
        self._server = server
        self._timeout = timeout

    def __call__(self, method: str, path: str, query: Query) -> tuple[int, bytes]:
        import urllib3
        from kubernetes.client.exceptions import ApiException

        guard(method, path)
        serialized = self._client.param_serialize(
            method="GET",
            resource_path=path,
            query_params=list(query),
            header_params={"Accept": "application/json, */*"},
            auth_settings=["BearerToken"],
        )
        verb, url, headers, _, _ = serialized
        if verb != "GET":  # the guard above already holds this; kept at the wire too
            raise AssertionError(f"refusing to send {verb}")
        try:
            response = self._client.call_api(
                verb, url, header_params=headers, _request_timeout=self._timeout
            )
            body: bytes = bytes(response.read() or b"")
            status = int(response.status)
        except ApiException as exc:
            # The REST layer raises only for TLS failures (status 0) and retry-after loops.
            raise KubernetesUnavailable(
                f"cannot reach the Kubernetes API server {self._server}: "
                f"{clip(exc.reason or exc, 200)}"
            ) from None
        except urllib3.exceptions.HTTPError as exc:
            raise KubernetesUnavailable(
                f"cannot reach the Kubernetes API server {self._server}: {_why(exc)}"
            ) from None
        return status, body


def _why(exc: Exception) -> str:
    """The innermost cause of a urllib3 failure (connection refused, timeout, DNS)."""
    reason: Any = getattr(exc, "reason", None) or exc
    text = str(reason)
    lowered = text.lower()
    if "refused" in lowered:
        return "connection refused"
    if "timed out" in lowered or "timeout" in lowered:
        return "timed out"
    if "name or service not known" in lowered or "nodename nor servname" in lowered:
        return "the host name does not resolve"
    return clip(text, 200)
