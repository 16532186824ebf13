"""Credentials as users have them: role profiles, web identity, IAM Identity Center,
credential_process, container and instance roles, through the guarded access layer.

botocore's providers run on a separate credential session (tools/aws/credentials.py) that
may send only the operations that obtain credentials; the guarded session receives the
credentials and still refuses sts:AssumeRole and every other operation outside the
read-only allow-list. STS is served by the in-process moto server (AWS_ENDPOINT_URL points
every client there); the IAM Identity Center portal and OIDC answers, which moto does not
serve, are canned botocore responses; container and instance metadata come from a small
HTTP server on 127.0.0.1.
"""

from __future__ import annotations

import hashlib
import json
import sys
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agent.cli import app
from tools.aws import credentials
from tools.aws.allowlist import CREDENTIAL_OPERATIONS, is_allowed
from tools.aws.errors import CredentialsMissing, MutatingOperationRefused
from tools.aws.session import AwsAccess

REGION = "us-west-2"
ACCOUNT = "123456789012"
ROLE = f"arn:aws:iam::{ACCOUNT}:role/hp-debug"


# -- fixtures ------------------------------------------------------------------------------


@pytest.fixture
def aws_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[str], Path]:
    """`aws_config(text)` writes ~/.aws/config for this test and points botocore at it."""
    path = tmp_path / "aws-config"

    def write(text: str) -> Path:
        path.write_text(text)
        monkeypatch.setenv("AWS_CONFIG_FILE", str(path))
        return path

    return write


@pytest.fixture
def via_moto(moto_server: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every client of both sessions (guarded and credential) talks to moto."""
    monkeypatch.setenv("AWS_ENDPOINT_URL", moto_server)
    return moto_server


def signed_key_ids(access: AwsAccess) -> list[str]:
    """The access key id of every request the guarded session sends, as it sends it."""
    keys: list[str] = []

    def capture(request: Any, **_: Any) -> None:
        header = request.headers.get("Authorization", b"")
        text = header.decode() if isinstance(header, bytes) else str(header)
        keys.append(
            text.split("Credential=", 1)[1].split("/", 1)[0] if "Credential=" in text else ""
        )

    access._session.events.register("before-send", capture)
    return keys


def caller_arn(access: AwsAccess) -> str:
    return str(access.call("sts", "GetCallerIdentity")["Arn"])


# -- role profiles, web identity (moto serves STS) ------------------------------------------


@pytest.mark.usefixtures("via_moto", "no_aws_credentials")
def test_role_profile_with_source_profile_assumes_the_role(
    aws_config: Callable[[str], Path],
) -> None:
    aws_config(
        "[profile base]\n"
        "aws_access_key_id = AKIABASEEXAMPLE00001\n"
        "aws_secret_access_key = base-secret\n"
        "[profile hp]\n"
        f"role_arn = {ROLE}\n"
        "source_profile = base\n"
        "role_session_name = triage\n"
    )
    access = AwsAccess(REGION, profile="hp", max_attempts=0)
    keys = signed_key_ids(access)

    assert caller_arn(access) == f"arn:aws:sts::{ACCOUNT}:assumed-role/hp-debug/triage"
    assert access.call("sagemaker", "ListClusters")["ClusterSummaries"] == []
    # Both reads were signed with the assumed role's key, not the source profile's.
    assert len(keys) == 2
    assert len(set(keys)) == 1
    assert keys[0] != "AKIABASEEXAMPLE00001"


@pytest.mark.usefixtures("via_moto")
def test_role_profile_with_credential_source_environment(
    aws_config: Callable[[str], Path],
) -> None:
    aws_config(f"[profile hp]\nrole_arn = {ROLE}\ncredential_source = Environment\n")
    access = AwsAccess(REGION, profile="hp", max_attempts=0)

    assert ":assumed-role/hp-debug/" in caller_arn(access)


@pytest.mark.usefixtures("via_moto", "no_aws_credentials")
def test_web_identity_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    token = tmp_path / "token"
    token.write_text("eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJwb2QifQ.c2ln")
    monkeypatch.setenv("AWS_WEB_IDENTITY_TOKEN_FILE", str(token))
    monkeypatch.setenv("AWS_ROLE_ARN", ROLE)
    monkeypatch.setenv("AWS_ROLE_SESSION_NAME", "irsa")
    access = AwsAccess(REGION, max_attempts=0)

    assert caller_arn(access) == f"arn:aws:sts::{ACCOUNT}:assumed-role/hp-debug/irsa"


# -- the guard still holds -------------------------------------------------------------------


@pytest.mark.usefixtures("via_moto", "no_aws_credentials")
def test_the_guarded_session_still_refuses_assume_role(
    aws_config: Callable[[str], Path],
) -> None:
    """A role profile works, and yet nothing that holds the access layer can assume a role
    or obtain credentials: not through call(), not through a client of its own."""
    aws_config(
        "[profile base]\naws_access_key_id = AKIABASEEXAMPLE00001\n"
        "aws_secret_access_key = base-secret\n"
        f"[profile hp]\nrole_arn = {ROLE}\nsource_profile = base\n"
    )
    access = AwsAccess(REGION, profile="hp", max_attempts=0)
    sent = signed_key_ids(access)
    assert caller_arn(access)
    sent.clear()

    for service, operation in sorted(CREDENTIAL_OPERATIONS):
        assert not is_allowed(service, operation)
        with pytest.raises(MutatingOperationRefused):
            access.call(service, operation)
    with pytest.raises(MutatingOperationRefused):
        access.client("sts").assume_role(RoleArn=ROLE, RoleSessionName="escalate")
    with pytest.raises(MutatingOperationRefused):
        access._session.client("sts").assume_role(RoleArn=ROLE, RoleSessionName="escalate")
    assert sent == []


def test_the_credential_session_obtains_credentials_and_nothing_else() -> None:
    """The session the providers run on refuses every other operation: reads, writes."""
    from botocore.config import Config

    session = credentials.credential_session(None, Config(retries={"max_attempts": 0}))
    refused = []
    calls: tuple[tuple[str, str, dict[str, Any]], ...] = (
        ("sagemaker", "list_clusters", {}),
        ("ec2", "terminate_instances", {"InstanceIds": ["i-0123456789abcdef0"]}),
        ("sts", "get_caller_identity", {}),
        ("iam", "create_access_key", {}),
    )
    for service, method, params in calls:
        client = session.create_client(
            service, region_name=REGION, endpoint_url="http://127.0.0.1:9"
        )
        with pytest.raises(MutatingOperationRefused) as error:
            getattr(client, method)(**params)
        refused.append(error.value.reason)
    assert all("only obtains credentials" in reason for reason in refused)


# -- IAM Identity Center (canned portal and OIDC answers) ----------------------------------


def _answer(body: dict[str, Any]) -> Any:
    from botocore.awsrequest import AWSResponse

    payload = json.dumps(body).encode()

    class Raw:
        def stream(self, **_: Any) -> Iterator[bytes]:
            yield payload

    return AWSResponse("http://127.0.0.1/", 200, {"Content-Type": "application/json"}, Raw())


@pytest.fixture
def sso_world(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, aws_config: Callable[[str], Path]
) -> dict[str, list[str]]:
    """An sso-session profile whose cached token has expired (so the token provider must
    refresh it with sso-oidc:CreateToken), and canned answers for CreateToken and
    sso:GetRoleCredentials on every credential session. Returns the calls answered."""
    import botocore.credentials
    import botocore.tokens

    cache = tmp_path / "sso-cache"
    cache.mkdir()
    monkeypatch.setattr(botocore.tokens.SSOTokenProvider, "_SSO_TOKEN_CACHE_DIR", str(cache))
    monkeypatch.setattr(botocore.credentials.SSOProvider, "_SSO_TOKEN_CACHE_DIR", str(cache))
    expired = (datetime.now(UTC) - timedelta(minutes=5)).strftime("%Y-%m-%dT%H:%M:%SZ")
    later = (datetime.now(UTC) + timedelta(days=30)).strftime("%Y-%m-%dT%H:%M:%SZ")
    (cache / f"{hashlib.sha1(b'corp').hexdigest()}.json").write_text(
        json.dumps(
            {
                "startUrl": "https://corp.awsapps.com/start",
                "region": "us-east-1",
                "accessToken": "expired-token",
                "expiresAt": expired,
                "clientId": "client",
                "clientSecret": "secret",
                "registrationExpiresAt": later,
                "refreshToken": "refresh",
            }
        )
    )
    aws_config(
        "[profile sso]\n"
        "sso_session = corp\n"
        f"sso_account_id = {ACCOUNT}\n"
        "sso_role_name = ReadOnly\n"
        "[sso-session corp]\n"
        "sso_start_url = https://corp.awsapps.com/start\n"
        "sso_region = us-east-1\n"
    )
    answered: dict[str, list[str]] = {"CreateToken": [], "GetRoleCredentials": []}
    expiry_ms = int((datetime.now(UTC) + timedelta(hours=1)).timestamp() * 1000)

    def create_token(request: Any, **_: Any) -> Any:
        answered["CreateToken"].append(json.loads(request.body)["refreshToken"])
        return _answer({"accessToken": "fresh-token", "expiresIn": 3600, "tokenType": "Bearer"})

    def role_credentials(request: Any, **_: Any) -> Any:
        bearer = request.headers["x-amz-sso_bearer_token"]
        answered["GetRoleCredentials"].append(
            bearer.decode() if isinstance(bearer, bytes) else str(bearer)
        )
        return _answer(
            {
                "roleCredentials": {
                    "accessKeyId": "ASIASSOEXAMPLE000001",
                    "secretAccessKey": "sso-secret",
                    "sessionToken": "sso-token",
                    "expiration": expiry_ms,
                }
            }
        )

    real = credentials.credential_session

    def with_canned_answers(profile: str | None, config: Any) -> Any:
        session = real(profile, config)
        session.register("before-send.sso-oidc.CreateToken", create_token)
        session.register("before-send.sso.GetRoleCredentials", role_credentials)
        return session

    monkeypatch.setattr(credentials, "credential_session", with_canned_answers)
    return answered


@pytest.mark.usefixtures("via_moto", "no_aws_credentials")
def test_sso_session_profile_refreshes_its_token_and_gets_role_credentials(
    sso_world: dict[str, list[str]],
) -> None:
    access = AwsAccess(REGION, profile="sso", max_attempts=0)
    keys = signed_key_ids(access)

    assert caller_arn(access)
    assert keys == ["ASIASSOEXAMPLE000001"]
    assert sso_world["CreateToken"] == ["refresh"]  # the expired token was refreshed ...
    assert sso_world["GetRoleCredentials"] == ["fresh-token"]  # ... and then used


# -- credential_process -------------------------------------------------------------------


def _process_profile(tmp_path: Path, aws_config: Callable[[str], Path], script: str) -> None:
    program = tmp_path / "creds.py"
    program.write_text(script)
    aws_config(f'[profile proc]\ncredential_process = "{sys.executable}" "{program}"\n')


def _json_credentials(key: str, expires_in: timedelta | None) -> str:
    body: dict[str, Any] = {"Version": 1, "AccessKeyId": key, "SecretAccessKey": "s"}
    if expires_in is not None:
        body["SessionToken"] = "t"
        body["Expiration"] = (datetime.now(UTC) + expires_in).strftime("%Y-%m-%dT%H:%M:%SZ")
    return json.dumps(body)


@pytest.mark.usefixtures("via_moto", "no_aws_credentials")
def test_credential_process_printing_json(
    tmp_path: Path, aws_config: Callable[[str], Path]
) -> None:
    _process_profile(
        tmp_path, aws_config, f"print({_json_credentials('AKIAPROCESSEXAMPLE01', None)!r})\n"
    )
    access = AwsAccess(REGION, profile="proc", max_attempts=0)
    keys = signed_key_ids(access)

    assert caller_arn(access)
    assert keys == ["AKIAPROCESSEXAMPLE01"]


@pytest.mark.usefixtures("via_moto", "no_aws_credentials")
def test_refreshable_credentials_refresh_through_the_provider_during_a_run(
    tmp_path: Path, aws_config: Callable[[str], Path]
) -> None:
    """Credentials that are about to expire are refreshed by their provider (on the
    credential session) before each use: a long triage keeps working; when the refresh
    goes wrong, the run stops with a credentials error, not a traceback."""
    runs = tmp_path / "runs"
    fresh = _json_credentials("ASIAREFRESHEXAMPLE01", timedelta(minutes=5))
    _process_profile(
        tmp_path,
        aws_config,
        "from pathlib import Path\n"
        f"runs = Path({str(runs)!r})\n"
        "n = int(runs.read_text()) + 1 if runs.exists() else 1\n"
        "runs.write_text(str(n))\n"
        f"print({fresh!r} if n <= 3 else 'not json at all')\n",
    )
    access = AwsAccess(REGION, profile="proc", max_attempts=0)
    keys = signed_key_ids(access)

    caller_arn(access)
    access.call("sagemaker", "ListClusters")
    assert keys == ["ASIAREFRESHEXAMPLE01"] * 2
    assert int(runs.read_text()) >= 2  # within 10 minutes of expiry: refreshed on use

    runs.write_text("3")  # the next refresh prints garbage
    with pytest.raises(CredentialsMissing, match="did not print JSON"):
        access.call("sagemaker", "ListClusters")


@pytest.mark.usefixtures("no_aws_credentials")
@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("print('<html>login required</html>')", "did not print JSON"),
        ("print('[1, 2]')", "unexpected shape"),
        ("import sys; sys.stderr.write('token expired'); sys.exit(3)", "token expired"),
    ],
)
def test_a_broken_credential_process_is_one_line_and_exit_1(
    tmp_path: Path, aws_config: Callable[[str], Path], output: str, expected: str
) -> None:
    _process_profile(tmp_path, aws_config, output + "\n")
    result = CliRunner().invoke(
        app, ["triage", "--cluster", "hp", "--region", REGION, "--profile", "proc", "--no-probes"]
    )

    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    assert expected in result.output
    assert "Fix your AWS credentials and re-run." in result.output
    assert len(result.output.strip().splitlines()) == 2  # the reason, then what to do


# -- container and instance roles (a metadata server on 127.0.0.1) ---------------------------


@pytest.fixture
def metadata_server() -> Iterator[str]:
    """Answers the container credentials endpoint (/creds) and IMDSv2 (token, role name,
    role credentials) on 127.0.0.1."""
    expiry = (datetime.now(UTC) + timedelta(hours=6)).strftime("%Y-%m-%dT%H:%M:%SZ")

    def creds(key: str) -> bytes:
        return json.dumps(
            {
                "Code": "Success",
                "AccessKeyId": key,
                "SecretAccessKey": "s",
                "Token": "t",
                "Expiration": expiry,
            }
        ).encode()

    answers = {
        ("GET", "/creds"): creds("ASIACONTAINEREXAMPLE"),
        ("PUT", "/latest/api/token"): b"imds-token",
        ("GET", "/latest/meta-data/iam/security-credentials/"): b"node-role",
        ("GET", "/latest/meta-data/iam/security-credentials/node-role"): creds(
            "ASIAINSTANCEEXAMPLE1"
        ),
    }

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_: Any) -> None:
            return

        def _answer(self) -> None:
            body = answers.get((self.command, self.path))
            self.send_response(200 if body is not None else 404)
            self.send_header("Content-Length", str(len(body or b"")))
            self.end_headers()
            self.wfile.write(body or b"")

        do_GET = do_PUT = _answer

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.usefixtures("via_moto", "no_aws_credentials")
def test_container_credentials(metadata_server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_CONTAINER_CREDENTIALS_FULL_URI", f"{metadata_server}/creds")
    access = AwsAccess(REGION, max_attempts=0)
    keys = signed_key_ids(access)

    assert caller_arn(access)
    assert keys == ["ASIACONTAINEREXAMPLE"]


@pytest.mark.usefixtures("via_moto", "no_aws_credentials")
def test_instance_role_and_a_role_profile_sourced_from_it(
    metadata_server: str, monkeypatch: pytest.MonkeyPatch, aws_config: Callable[[str], Path]
) -> None:
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "false")
    monkeypatch.setenv("AWS_EC2_METADATA_SERVICE_ENDPOINT", metadata_server)
    access = AwsAccess(REGION, max_attempts=0)
    keys = signed_key_ids(access)
    assert caller_arn(access)
    assert keys == ["ASIAINSTANCEEXAMPLE1"]

    aws_config(f"[profile hp]\nrole_arn = {ROLE}\ncredential_source = Ec2InstanceMetadata\n")
    assert ":assumed-role/hp-debug/" in caller_arn(AwsAccess(REGION, profile="hp"))
