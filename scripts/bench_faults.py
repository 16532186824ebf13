"""Benchmark: how long a live triage takes when some AWS APIs keep failing.

    .venv/bin/python scripts/bench_faults.py [--fault throttle|timeout|error]
        [--apis sagemaker:ListClusterNodes,ec2:DescribeSecurityGroups,...]

A figure, not a pass/fail test. An in-process moto server on 127.0.0.1 holds a small EKS
HyperPod cluster; a fault proxy, also on 127.0.0.1, sits in front of it and answers every
request for the chosen APIs (four by default) with a fault, passing everything else on to
moto:

  * throttle: HTTP 400 ThrottlingException (EC2: 503 RequestLimitExceeded), every time;
  * timeout:  no answer until the client gives up (the connection is held open);
  * error:    HTTP 500 InternalFailure, every time.

The triage is run the way a user runs it: `hyperpod-debug triage --no-probes --format
json` through the CLI, in this process, with AWS_ENDPOINT_URL pointing at the proxy and
fake credentials. Printed: the wall time, how many requests the proxy faulted per API, and
what the report lists under Skipped for them. Nothing leaves the loopback interface.
"""

from __future__ import annotations

import argparse
import http.client
import json
import logging
import os
import sys
import tempfile
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

REGION = "us-west-2"
CLUSTER = "hp"
DEFAULT_APIS = (
    "sagemaker:ListClusterNodes",
    "ec2:DescribeSecurityGroups",
    "ec2:DescribeRouteTables",
    "logs:DescribeLogStreams",
)
# botocore's names for the services the proxy tells apart (X-Amz-Target prefixes).
_TARGET_PREFIXES = {
    "SageMaker": "sagemaker",
    "Logs_20140328": "logs",
    "AmazonSSM": "ssm",
    "ServiceQuotasV20190624": "service-quotas",
}
_EC2_THROTTLE = (
    '<?xml version="1.0" encoding="UTF-8"?><Response><Errors><Error>'
    "<Code>RequestLimitExceeded</Code><Message>Request limit exceeded.</Message>"
    "</Error></Errors><RequestID>bench</RequestID></Response>"
)


def operation_of(headers: Any, body: bytes) -> str:
    """`service:Operation` of a request in the JSON or query/EC2 protocol ('' otherwise)."""
    target = headers.get("X-Amz-Target", "")
    if "." in target:
        prefix, operation = target.split(".", 1)
        return f"{_TARGET_PREFIXES.get(prefix, prefix.lower())}:{operation}"
    form = parse_qs(body.decode("utf-8", errors="replace"))
    action = form.get("Action", [""])[0]
    if not action:
        return ""
    version = form.get("Version", [""])[0]
    service = {"2016-11-15": "ec2", "2011-06-15": "sts", "2010-05-08": "iam"}.get(version, "?")
    return f"{service}:{action}"


class FaultProxy:
    """A loopback HTTP proxy in front of moto that faults the chosen operations."""

    def __init__(self, upstream: str, faulted: set[str], fault: str) -> None:
        self.upstream = urlsplit(upstream)
        self.faulted = faulted
        self.fault = fault
        self.counts: Counter[str] = Counter()
        self.release = threading.Event()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_: Any) -> None:
                return

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                operation = operation_of(self.headers, body)
                if operation in proxy.faulted:
                    proxy.counts[operation] += 1
                    proxy.answer_fault(self, operation)
                    return
                proxy.forward(self, body)

            do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = _handle

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def answer_fault(self, handler: BaseHTTPRequestHandler, operation: str) -> None:
        if self.fault == "timeout":
            self.release.wait(120)  # hold the connection until the client gives up
            handler.close_connection = True
            return
        if self.fault == "throttle" and operation.startswith("ec2:"):
            status, body, kind = 503, _EC2_THROTTLE.encode(), "text/xml"
        elif self.fault == "throttle":
            status, kind = 400, "application/x-amz-json-1.1"
            body = json.dumps(
                {"__type": "ThrottlingException", "message": "Rate exceeded"}
            ).encode()
        elif operation.startswith("ec2:"):
            status, kind = 500, "text/xml"
            body = (
                _EC2_THROTTLE.replace("RequestLimitExceeded", "InternalError")
                .replace("Request limit exceeded.", "An internal error has occurred.")
                .encode()
            )
        else:
            status, kind = 500, "application/x-amz-json-1.1"
            body = json.dumps({"__type": "InternalFailure", "message": "boom"}).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", kind)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    def forward(self, handler: BaseHTTPRequestHandler, body: bytes) -> None:
        connection = http.client.HTTPConnection(
            self.upstream.hostname or "127.0.0.1", self.upstream.port, timeout=30
        )
        headers = {k: v for k, v in handler.headers.items() if k.lower() != "host"}
        connection.request(handler.command, handler.path, body=body, headers=headers)
        response = connection.getresponse()
        payload = response.read()
        handler.send_response(response.status)
        for key, value in response.getheaders():
            if key.lower() not in {"content-length", "transfer-encoding", "connection"}:
                handler.send_header(key, value)
        handler.send_header("Content-Length", str(len(payload)))
        handler.end_headers()
        handler.wfile.write(payload)
        connection.close()

    def stop(self) -> None:
        self.release.set()
        self.server.shutdown()


def build_world(moto_url: str) -> None:
    """The moto cluster of the live triage tests (tests/aws/_moto_cluster.py)."""
    import boto3
    from botocore.config import Config

    sys.path.insert(0, str(REPO / "tests" / "aws"))
    from _moto_cluster import build_cluster  # type: ignore[import-not-found]

    session = boto3.Session(aws_access_key_id="testing", aws_secret_access_key="testing")
    config = Config(retries={"mode": "standard", "max_attempts": 1})

    def client(service: str, region: str) -> Any:
        return session.client(service, region_name=region, endpoint_url=moto_url, config=config)

    build_cluster(client, moto_url)


def fake_environment(tmp: Path, endpoint: str) -> None:
    for name in list(os.environ):
        if name.startswith("AWS_"):
            del os.environ[name]
    os.environ.update(
        {
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_EC2_METADATA_DISABLED": "true",
            "AWS_CONFIG_FILE": str(tmp / "config"),
            "AWS_SHARED_CREDENTIALS_FILE": str(tmp / "credentials"),
            "AWS_ENDPOINT_URL": endpoint,
        }
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fault", choices=("throttle", "timeout", "error"), default="throttle")
    parser.add_argument("--apis", default=",".join(DEFAULT_APIS))
    args = parser.parse_args()

    from moto.server import ThreadedMotoServer
    from typer.testing import CliRunner

    from agent.cli import app

    logging.getLogger("werkzeug").setLevel(logging.CRITICAL)
    faulted = {a.strip() for a in args.apis.split(",") if a.strip()}
    moto = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    moto.start()
    host, port = moto.get_host_and_port()
    moto_url = f"http://{host}:{port}"
    proxy = FaultProxy(moto_url, faulted, args.fault)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            fake_environment(Path(tmp), proxy.url)
            build_world(moto_url)
            command = [
                "triage",
                "--cluster",
                CLUSTER,
                "--region",
                REGION,
                "--no-probes",
                "--kubeconfig",
                str(Path(tmp) / "no-kubeconfig"),
                "--format",
                "json",
            ]
            start = time.perf_counter()
            result = CliRunner().invoke(app, command)
            elapsed = time.perf_counter() - start
    finally:
        proxy.stop()
        moto.stop()

    print(f"fault: {args.fault} on {len(faulted)} APIs: {', '.join(sorted(faulted))}")
    print(f"triage wall time: {elapsed:.1f} s (exit {result.exit_code})")
    for operation in sorted(faulted):
        print(f"  {operation}: {proxy.counts[operation]} requests faulted")
    if result.exit_code != 0:
        print(result.output[-2000:])
        return
    report = json.loads(result.stdout)
    print("skipped:")
    for skip in report.get("skipped", []):
        print(f"  {skip['check']}: {skip['reason']}")


if __name__ == "__main__":
    main()
