"""A loopback Kubernetes API server for tests: tools/kube/responder.py behind http.server.

It records every request (method, path, query, Authorization header) so tests can prove
what the real client sent, can demand a bearer token (401 otherwise), and can be told to
answer one path with a fixed status.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from tools.kube.responder import respond, status_body
from tools.recorded.model import KubernetesObjects


@dataclass
class Seen:
    method: str
    path: str
    query: list[tuple[str, str]]
    authorization: str | None


@dataclass
class FakeApiServer:
    objects: KubernetesObjects
    token: str | None = None
    overrides: dict[str, int] = field(default_factory=dict)  # path -> status
    seen: list[Seen] = field(default_factory=list)
    url: str = ""


def _handler(api: FakeApiServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            return

        def _answer(self) -> None:
            parts = urlsplit(self.path)
            query = parse_qsl(parts.query, keep_blank_values=True)
            auth = self.headers.get("Authorization")
            api.seen.append(Seen(self.command, parts.path, query, auth))
            if self.command != "GET":
                self._send(405, status_body(405, "MethodNotAllowed", "read-only test server"))
                return
            if api.token is not None and auth != f"Bearer {api.token}":
                self._send(401, status_body(401, "Unauthorized", "Unauthorized"))
                return
            if parts.path in api.overrides:
                code = api.overrides[parts.path]
                self._send(code, status_body(code, "Override", f"forced {code}"))
                return
            code, body, content_type = respond(api.objects, parts.path, query)
            self._send(code, body, content_type)

        def _send(self, code: int, body: bytes, content_type: str = "application/json") -> None:
            self.send_response(code)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _answer

    return Handler


@contextmanager
def serve(objects: KubernetesObjects, token: str | None = None) -> Iterator[FakeApiServer]:
    api = FakeApiServer(objects, token)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(api))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    api.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield api
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def write_kubeconfig(
    path: Path,
    server: str,
    *,
    token: str | None = None,
    exec_command: str | None = None,
    context: str = "test",
    current: bool = True,
) -> Path:
    """A kubeconfig (JSON is YAML) with one cluster, one user and one context."""
    user: dict[str, Any] = {}
    if token is not None:
        user["token"] = token
    if exec_command is not None:
        user["exec"] = {
            "apiVersion": "client.authentication.k8s.io/v1beta1",
            "command": exec_command,
            "args": ["eks", "get-token", "--cluster-name", "ml-eks"],
            "interactiveMode": "Never",
        }
    config: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "c", "cluster": {"server": server}}],
        "users": [{"name": "u", "user": user}],
        "contexts": [{"name": context, "context": {"cluster": "c", "user": "u"}}],
    }
    if current:
        config["current-context"] = context
    path.write_text(json.dumps(config))
    return path


def write_exec_plugin(path: Path, token: str, exit_code: int = 0) -> Path:
    """A stand-in for `aws eks get-token`: prints an ExecCredential (or fails)."""
    credential = {
        "apiVersion": "client.authentication.k8s.io/v1beta1",
        "kind": "ExecCredential",
        "status": {"token": token, "expirationTimestamp": "2099-01-01T00:00:00Z"},
    }
    body = (
        f"import sys\nsys.stderr.write('Unable to locate credentials\\n')\nsys.exit({exit_code})\n"
        if exit_code
        else f"print({json.dumps(json.dumps(credential))})\n"
    )
    path.write_text(f"#!{sys.executable}\n{body}")
    path.chmod(0o755)
    return path
