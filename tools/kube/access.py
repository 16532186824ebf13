"""`KubeAccess`: the only way the triage talks to Kubernetes. GET, known paths, raw JSON.

Read-only by construction: every request passes `guard`, which refuses any method but GET
and any path outside the few list and log endpoints the checks need (fail closed: an
unknown path is refused, not attempted). Lists page with `limit` / `continue` and each
item is slimmed as its page arrives (tools/kube/slim.py), so a large cluster never holds
its full JSON, and no typed client models are built (the client's pydantic models reject
objects that miss fields and cost far more than the dicts).

Live access goes through the official client's `ApiClient` (its kubeconfig credentials,
TLS and token refresh); replay answers the same requests from recorded objects through
tools/kube/responder.py, so both paths share the paging, slimming and error handling.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tools.kube.slim import Kind, slim
from tools.recorded.model import KubernetesObjects
from tools.sources import KubernetesUnavailable
from tools.text import clip

PAGE_SIZE = 500
# Loop safety only: a server that keeps answering with continue tokens must not spin
# forever (2,000 pages of 500 is a million objects).
MAX_PAGES = 2_000
LOG_TAIL = 200
LOG_LIMIT_BYTES = 64 * 1024
TIMEOUT = (10, 60)  # seconds: connect, read

Query = list[tuple[str, str]]
# (method, path, query) -> (HTTP status, body); in replay a 200 list page may come as the
# dict its JSON would decode to (no encoding and decoding of what is already in memory).
Transport = Callable[[str, str, Query], tuple[int, bytes | dict[str, Any]]]
OnList = Callable[[str, list[dict[str, Any]]], None]
OnLog = Callable[[str, str], None]
# (kind, reason): a read that raised KubernetesUnavailable; kind is a list kind or "logs".
OnError = Callable[[str, str], None]
LOGS = "logs"
Keep = Callable[[dict[str, Any]], bool]

_NAME = r"[a-z0-9]([-a-z0-9.]*[a-z0-9])?"
_NS = rf"(/namespaces/{_NAME})?"
READ_PATHS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p)
    for p in (
        r"/api/v1/nodes",
        r"/api/v1/namespaces",
        rf"/api/v1{_NS}/pods",
        rf"/api/v1{_NS}/events",
        rf"/apis/apps/v1{_NS}/daemonsets",
        rf"/apis/apps/v1{_NS}/deployments",
        rf"/api/v1/namespaces/{_NAME}/pods/{_NAME}/log",
    )
)


class KubeRequestRefused(Exception):
    """A request outside the read-only surface: a programming error, never a skip."""


def guard(method: str, path: str) -> None:
    """Refuse anything but a GET of a known list or log path."""
    if method != "GET":
        raise KubeRequestRefused(f"refused {method} {path}: Kubernetes access is GET-only")
    if not any(p.fullmatch(path) for p in READ_PATHS):
        raise KubeRequestRefused(f"refused GET {path}: not a list or log path triage reads")


def _status_message(body: bytes) -> str:
    """The `message` of a Kubernetes Status body, or the start of whatever came back."""
    try:
        parsed = json.loads(body)
    except ValueError:
        return clip(body[:300].decode("utf-8", "replace"), 160)
    if isinstance(parsed, dict) and parsed.get("message"):
        return clip(parsed["message"], 160)
    return ""


# The `on_error` kind that stands for the whole access, not one read.
WHOLE_ACCESS = "kubeconfig"


@dataclass(frozen=True, slots=True)
class KubeObservers:
    """Who is told of each read (a recorder, a test): every list read (`on_list`), every
    log tail (`on_log`), and each read that failed (`on_error`, kind and reason)."""

    on_list: OnList | None = None
    on_log: OnLog | None = None
    on_error: OnError | None = None


class KubeAccess:
    """GET-only lists and log tails, as raw (slimmed) JSON dicts."""

    def __init__(
        self,
        transport: Transport,
        *,
        server: str | None = None,
        context: str | None = None,
        observers: KubeObservers | None = None,
        page_size: int = PAGE_SIZE,
        unavailable: Mapping[str, str] | None = None,
    ) -> None:
        observers = observers or KubeObservers()
        self._transport = transport
        self.server = server
        self.context = context
        self._on_list = observers.on_list
        self._on_log = observers.on_log
        self._on_error = observers.on_error
        self._page_size = page_size
        # Kind -> reason: reads a recording could not make, refused again on replay.
        self._unavailable = dict(unavailable or {})

    # -- constructors -------------------------------------------------------------------

    @classmethod
    def from_kubeconfig(
        cls,
        path: Path | None,
        context: str | None,
        *,
        observers: KubeObservers | None = None,
    ) -> KubeAccess:
        """Live access with the kubeconfig's credentials (raises KubernetesUnavailable)."""
        from tools.kube.config import load_kubeconfig
        from tools.kube.live import LiveTransport

        loaded = load_kubeconfig(path, context)
        return cls(
            LiveTransport(loaded.configuration, loaded.server, TIMEOUT),
            server=loaded.server,
            context=loaded.context,
            observers=observers,
        )

    @classmethod
    def from_objects(
        cls,
        objects: KubernetesObjects,
        *,
        observers: KubeObservers | None = None,
        page_size: int = PAGE_SIZE,
        unavailable: Mapping[str, str] | None = None,
        latency: float = 0.0,
    ) -> KubeAccess:
        """Replay: the same requests answered from recorded objects, in process; a kind in
        `unavailable` (kind -> reason, as the recording saw it) raises KubernetesUnavailable
        with that reason, as the live read did. Each answer waits `latency` seconds first
        (a simulated round trip, see `AwsAccess.pace_replay`)."""
        from tools.kube.responder import Selections, answer

        if objects.namespaces is None:
            # A recording made before namespaces were read holds none: refuse the read
            # (the check is skipped) rather than answer "no namespaces" and FAIL on it.
            unavailable = {
                "namespaces": "the recording holds no namespace list (recorded by an older "
                "version; record the cluster again)",
                **(unavailable or {}),
            }

        # Each list is selected once from the recorded objects; its pages are slices.
        selections: Selections = {}

        def transport(method: str, path: str, query: Query) -> tuple[int, bytes | dict[str, Any]]:
            guard(method, path)
            if latency > 0:
                time.sleep(latency)
            status, body, _ = answer(objects, path, query, selections)
            return status, body

        return cls(
            transport,
            observers=observers,
            page_size=page_size,
            unavailable=unavailable,
        )

    # -- requests -----------------------------------------------------------------------

    def _get(self, path: str, query: Query) -> tuple[int, bytes | dict[str, Any]]:
        guard("GET", path)
        return self._transport("GET", path, query)

    def _where(self) -> str:
        if self.server:
            context = f" (context {self.context})" if self.context else ""
            return f"the Kubernetes API server {self.server}{context}"
        return "the recorded Kubernetes API"

    def _raise_for(self, status: int, body: bytes, what: str) -> None:
        message = _status_message(body)
        detail = f": {message}" if message else ""
        if status == 401:
            raise KubernetesUnavailable(
                f"unauthenticated: {self._where()} answered 401 to {what}{detail} "
                "(expired credentials, or no EKS access entry for this IAM principal)"
            )
        if status == 403:
            raise KubernetesUnavailable(
                f"forbidden: {self._where()} refused to {what}{detail} "
                "(the identity lacks read access to it)"
            )
        raise KubernetesUnavailable(f"{self._where()} answered HTTP {status} to {what}{detail}")

    def refuse(self, reason: str) -> KubernetesUnavailable:
        """The whole access is unusable (e.g. the context points at another cluster): tell
        the recorder, as for a failed read, and return the error for the caller to raise."""
        error = KubernetesUnavailable(reason)
        self._failed(WHOLE_ACCESS, error)
        return error

    def _refused(self, kind: str) -> None:
        """Raise the recorded reason for a kind the recording could not read."""
        if kind in self._unavailable:
            raise KubernetesUnavailable(self._unavailable[kind])

    def _failed(self, kind: str, exc: KubernetesUnavailable) -> None:
        """Tell the recorder (before the error travels on) that `kind` could not be read."""
        if self._on_error is not None:
            self._on_error(kind, exc.reason)

    def _list(
        self,
        kind: Kind,
        path: str,
        query: Query,
        keep: Keep | None = None,
    ) -> list[dict[str, Any]]:
        self._refused(kind)
        try:
            items = self._list_pages(kind, path, query, keep)
        except KubernetesUnavailable as exc:
            self._failed(kind, exc)
            raise
        if self._on_list is not None:
            self._on_list(kind, items)
        return items

    def _list_pages(
        self,
        kind: Kind,
        path: str,
        query: Query,
        keep: Keep | None,
    ) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        token: str | None = None
        restarted = False
        what = f"list {kind}" + (f" ({', '.join(f'{k}={v}' for k, v in query)})" if query else "")
        pages = 0
        while True:
            paging = [("limit", str(self._page_size))] + ([("continue", token)] if token else [])
            status, body = self._get(path, query + paging)
            if status == 410 and token and not restarted:
                # The continue token expired (paging took longer than the API keeps a
                # snapshot): start over once rather than judge a partial list.
                items, token, restarted, pages = [], None, True, 0
                continue
            if status == 404:
                items = []
                break
            if isinstance(body, dict):
                # Replay: a 200 page as its decoded JSON. Its items are the recording's own
                # objects: slimming builds new dicts around them, but leaves it keeps whole
                # (labels, selectors) stay shared with the recording and are only read.
                page = body
            else:
                if status != 200:
                    self._raise_for(status, body, what)
                page = self._parse(body, what)
            del body
            for item in page.get("items") or []:
                if isinstance(item, dict):
                    slimmed = slim(kind, item)
                    if keep is None or keep(slimmed):
                        items.append(slimmed)
            metadata = page.get("metadata") if isinstance(page.get("metadata"), dict) else {}
            next_token = (metadata or {}).get("continue") or None
            pages += 1
            if not next_token:
                break
            if next_token == token or pages >= MAX_PAGES:
                raise KubernetesUnavailable(
                    f"{self._where()} kept paging {what} after {pages} pages: stopped"
                )
            token = str(next_token)
        return items

    def _parse(self, body: bytes, what: str) -> dict[str, Any]:
        try:
            page = json.loads(body)
        except ValueError:
            raise KubernetesUnavailable(
                f"{self._where()} answered {what} with something that is not JSON"
            ) from None
        if not isinstance(page, dict):
            raise KubernetesUnavailable(f"{self._where()} answered {what} with no list")
        return page

    # -- the reads ----------------------------------------------------------------------

    def list_nodes(self, label_selector: str | None = None) -> list[dict[str, Any]]:
        return self._list("nodes", "/api/v1/nodes", _query(labelSelector=label_selector))

    def list_namespaces(self, field_selector: str | None = None) -> list[dict[str, Any]]:
        """Namespaces (cluster-scoped), e.g. `metadata.name=aws-hyperpod` for one of them: a
        list with a field selector answers "does it exist" with an empty list, not a 404."""
        return self._list("namespaces", "/api/v1/namespaces", _query(fieldSelector=field_selector))

    def list_pods(
        self,
        namespace: str | None = None,
        field_selector: str | None = None,
        *,
        label_selector: str | None = None,
        keep: Keep | None = None,
    ) -> list[dict[str, Any]]:
        """Pods, optionally only those `keep` accepts (applied per page, after slimming,
        so a cluster's healthy pods are never all held at once)."""
        return self._list(
            "pods",
            _scoped("/api/v1", namespace, "pods"),
            _query(fieldSelector=field_selector, labelSelector=label_selector),
            keep,
        )

    def list_daemonsets(self, namespace: str) -> list[dict[str, Any]]:
        return self._list("daemonsets", _scoped("/apis/apps/v1", namespace, "daemonsets"), [])

    def list_deployments(self, namespace: str) -> list[dict[str, Any]]:
        return self._list("deployments", _scoped("/apis/apps/v1", namespace, "deployments"), [])

    def list_events(
        self, namespace: str | None = None, field_selector: str | None = None
    ) -> list[dict[str, Any]]:
        return self._list(
            "events", _scoped("/api/v1", namespace, "events"), _query(fieldSelector=field_selector)
        )

    def pod_log(
        self,
        namespace: str,
        pod: str,
        container: str,
        tail_lines: int = LOG_TAIL,
        previous: bool = False,
    ) -> str:
        """The last lines of a container's log ("" when the pod or container has none)."""
        self._refused(LOGS)
        path = f"/api/v1/namespaces/{namespace}/pods/{pod}/log"
        query = _query(
            container=container,
            tailLines=str(tail_lines),
            limitBytes=str(LOG_LIMIT_BYTES),
            previous="true" if previous else None,
        )
        try:
            status, answered = self._get(path, query)
            body = answered if isinstance(answered, bytes) else json.dumps(answered).encode()
            # 404: no such pod; 400: no such container, or no previous (crashed) instance.
            if status in (400, 404):
                text = ""
            elif status != 200:
                self._raise_for(status, body, f"read the log of {namespace}/{pod}/{container}")
                text = ""
            else:
                text = body.decode("utf-8", "replace")
        except KubernetesUnavailable as exc:
            self._failed(LOGS, exc)
            raise
        if self._on_log is not None:
            key = f"{namespace}/{pod}/{container}" + ("#previous" if previous else "")
            self._on_log(key, text)
        return text


def _scoped(prefix: str, namespace: str | None, resource: str) -> str:
    return f"{prefix}/namespaces/{namespace}/{resource}" if namespace else f"{prefix}/{resource}"


def _query(**params: str | None) -> Query:
    return [(k, v) for k, v in params.items() if v is not None]
