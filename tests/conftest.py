"""Shared test plumbing: no network, fake AWS credentials, an in-process moto server.

* Every test runs behind a socket guard: connections and name lookups are allowed only to
  the loopback interface. A blocked attempt raises ``NetworkBlocked`` (a BaseException, so
  retry loops and ``except Exception`` cannot swallow it) and fails the test at teardown
  even if something caught it anyway.
* Every test gets fake AWS credentials, no region, no profile, no endpoint override and no
  instance metadata: nothing can pick up a developer's real AWS setup.
* ``moto_server`` starts one ``ThreadedMotoServer`` per session on 127.0.0.1 and yields its
  URL; each test that asks for it starts from a reset (empty) moto state.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import socket
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

import pytest

_LOOPBACK_NAMES = frozenset({"127.0.0.1", "::1", "localhost", "0:0:0:0:0:0:0:1"})
_blocked: list[str] = []


class NetworkBlocked(BaseException):
    """A test tried to reach a non-loopback address."""


def _is_loopback(host: object) -> bool:
    if host is None:
        return True
    if isinstance(host, bytes):
        host = host.decode(errors="replace")
    name = str(host).strip("[]").lower().split("%", 1)[0]
    if name in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _refuse(what: str) -> NetworkBlocked:
    _blocked.append(what)
    return NetworkBlocked(f"network access blocked in tests: {what}")


def _check_address(address: Any) -> None:
    # AF_UNIX sockets take a path (str/bytes); inet sockets a (host, port, ...) tuple.
    if isinstance(address, tuple) and address and not _is_loopback(address[0]):
        raise _refuse(f"connect to {address[0]}:{address[1] if len(address) > 1 else '?'}")


_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex
_real_create_connection = socket.create_connection
_real_getaddrinfo = socket.getaddrinfo


def _guarded_connect(self: socket.socket, address: Any) -> None:
    _check_address(address)
    _real_connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: Any) -> int:
    _check_address(address)
    return _real_connect_ex(self, address)


def _guarded_create_connection(address: Any, *args: Any, **kwargs: Any) -> socket.socket:
    _check_address(address)
    return _real_create_connection(address, *args, **kwargs)


def _guarded_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
    if not _is_loopback(host):
        raise _refuse(f"resolve {host}")
    return _real_getaddrinfo(host, *args, **kwargs)


@pytest.fixture(scope="session", autouse=True)
def _no_network() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(socket.socket, "connect", _guarded_connect)
        patch.setattr(socket.socket, "connect_ex", _guarded_connect_ex)
        patch.setattr(socket, "create_connection", _guarded_create_connection)
        patch.setattr(socket, "getaddrinfo", _guarded_getaddrinfo)
        yield


@pytest.fixture
def blocked_network_attempts() -> list[str]:
    """The attempts the guard refused in this test; a test that provokes one clears it."""
    return _blocked


@pytest.fixture(autouse=True)
def _fail_on_blocked_network() -> Iterator[None]:
    _blocked.clear()
    yield
    if _blocked:
        attempts = ", ".join(_blocked)
        _blocked.clear()
        pytest.fail(f"test tried to reach the network: {attempts}")


class _UniquePaths(list[str]):
    """boto3 appends its data path to the loader on every Session: keep it once."""

    def append(self, path: str) -> None:
        if path not in self:
            super().append(path)


@pytest.fixture(scope="session", autouse=True)
def _shared_botocore_loader() -> Iterator[None]:
    """Speed only: every botocore Session (one per AwsAccess) shares one data loader, so
    the service-model JSON files are parsed once per test run, not once per session
    (~0.4 s each). The loader is read-only; what the sessions build from it is not shared.
    """
    import botocore.loaders
    import botocore.session

    loaders: dict[str | None, Any] = {}

    def shared_loader(search_path_string: str | None = None) -> Any:
        if search_path_string not in loaders:
            loader = botocore.loaders.create_loader(search_path_string)
            loader._search_paths = _UniquePaths(loader._search_paths)
            loaders[search_path_string] = loader
        return loaders[search_path_string]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(botocore.session, "create_loader", shared_loader)
        yield


@pytest.fixture(scope="session", autouse=True)
def _replay_validates_parameters() -> Iterator[None]:
    """Replay answers without botocore (tools/aws/replay.py); in the tests each replayed
    call's parameters are still validated against botocore's model, as a live call's are,
    so a check that would send a malformed request live fails its replays too."""
    from tools.aws import replay

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(replay, "validate_replayed_parameters", True)
        yield


_AWS_VARIABLES_TO_CLEAR = (
    "AWS_PROFILE",
    "AWS_DEFAULT_PROFILE",
    "AWS_REGION",
    "AWS_DEFAULT_REGION",
    "AWS_ROLE_ARN",
    "AWS_ROLE_SESSION_NAME",
    "AWS_WEB_IDENTITY_TOKEN_FILE",
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    "AWS_CONTAINER_AUTHORIZATION_TOKEN",
    "AWS_CA_BUNDLE",
    "AWS_MAX_ATTEMPTS",
    "AWS_RETRY_MODE",
    "NO_COLOR",
)


@pytest.fixture(autouse=True)
def fake_aws_env(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Fake credentials, no region, no profile, no endpoint override, no IMDS."""
    for name in list(os.environ):
        if name.startswith("AWS_ENDPOINT_URL") or name in _AWS_VARIABLES_TO_CLEAR:
            monkeypatch.delenv(name, raising=False)
    missing = tmp_path_factory.getbasetemp() / "no-aws-config"
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_SECURITY_TOKEN", "testing")
    monkeypatch.setenv("AWS_SESSION_TOKEN", "testing")
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(missing / "config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(missing / "credentials"))


@pytest.fixture(scope="session")
def moto_server() -> Iterator[str]:
    """URL of an in-process moto server on 127.0.0.1 (reset before every test using it)."""
    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.CRITICAL)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    try:
        yield f"http://{host}:{port}"
    finally:
        server.stop()


@pytest.fixture(scope="session")
def moto_client(moto_server: str) -> Callable[[str, str], Any]:
    """`moto_client(service, region)`: unguarded boto3 setup clients on the moto server.

    One botocore session for the whole run (creating clients is the slow part); no
    retries, so a moto gap shows up at once instead of after back-off.
    """
    import boto3
    from botocore.config import Config

    session = boto3.Session(aws_access_key_id="testing", aws_secret_access_key="testing")
    config = Config(retries={"mode": "standard", "max_attempts": 1})
    clients: dict[tuple[str, str], Any] = {}

    def make(service: str, region: str) -> Any:
        key = (service, region)
        if key not in clients:
            clients[key] = session.client(
                service, region_name=region, endpoint_url=moto_server, config=config
            )
        return clients[key]

    return make


@pytest.fixture(autouse=True)
def _reset_moto(request: pytest.FixtureRequest) -> None:
    if "moto_server" not in request.fixturenames:
        return
    url: str = request.getfixturevalue("moto_server")
    reset = urllib.request.Request(f"{url}/moto-api/reset", method="POST")
    with urllib.request.urlopen(reset, timeout=10) as response:
        assert response.status == 200


@pytest.fixture
def no_aws_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    """Remove the fake credentials: botocore then finds none at all."""
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SECURITY_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("AWS_SESSION_TOKEN", raising=False)


# Property tests run the same examples on every run (CI stays reproducible); set
# HYPOTHESIS_PROFILE=explore to search new random examples locally.
def _hypothesis_profiles() -> None:
    from hypothesis import settings

    settings.register_profile("default", derandomize=True)
    settings.register_profile("explore", derandomize=False, max_examples=1_000)
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


_hypothesis_profiles()


class _NoRepeats(list[str]):
    """A loader's search paths: boto3 appends its own data folder each time a
    boto3.Session is made; on a loader shared by thousands of sessions the list would
    grow by one path per session and every new model lookup would walk all of them."""

    def append(self, path: str) -> None:
        if path not in self:
            super().append(path)


def _share_botocore_data() -> None:
    """One botocore data loader per test process instead of one per session.

    Every AwsAccess (live, moto or replayed) builds a botocore session, and each new
    session parses the SDK's endpoint and service-model JSON again: about 0.3 s of CPU,
    half of a small recorded triage, paid by thousands of tests. Within one session
    botocore already shares what its loader returns between clients, so sharing it between
    sessions changes nothing a test observes; a session with another data path gets its
    own loader (the key)."""
    import botocore.loaders
    import botocore.session

    made: dict[str | None, botocore.loaders.Loader] = {}
    create = botocore.session.create_loader

    def shared(search_path_string: str | None = None) -> botocore.loaders.Loader:
        loader = made.get(search_path_string)
        if loader is None:
            loader = create(search_path_string)
            loader._search_paths = _NoRepeats(loader.search_paths)
            made[search_path_string] = loader
        return loader

    botocore.session.create_loader = shared


_share_botocore_data()
