"""Replay answers from the recording without botocore (issue 26, part 2), and answers
exactly what the botocore client path answers: the same guard first, the same pages, the
same after-call decoding of IAM policy documents, the same typed errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from tools.aws import replay as replay_module
from tools.aws.allowlist import READ_ONLY_OPERATIONS
from tools.aws.answers import ErrorAnswer, jsonable
from tools.aws.errors import (
    AccessDenied,
    AwsAccessError,
    CredentialsMissing,
    MutatingOperationRefused,
    NotRecorded,
)
from tools.aws.session import AwsAccess, PageRead
from tools.recorded.model import RecordedCluster, load_recorded

ROOT = Path(__file__).resolve().parents[2]
CLUSTERS = ROOT / "evals" / "clusters"
DEMO = CLUSTERS / "demo-eks.json"
REGION = "us-west-2"


def _recording(*calls: dict[str, Any]) -> RecordedCluster:
    return RecordedCluster.model_validate(
        {
            "cluster": "c",
            "region": REGION,
            "recorded_at": "2026-11-20T12:00:00Z",
            "aws": list(calls),
        }
    )


def _through_botocore(
    access: AwsAccess, service: str, operation: str, params: dict[str, Any]
) -> Any:
    """The same call through the guarded botocore client of the same access (the path every
    replay took before), as `_send` turns its answer, or its error, into data."""
    from botocore import xform_name
    from botocore.exceptions import ClientError

    try:
        return jsonable(getattr(access.client(service), xform_name(operation))(**params))
    except ClientError as exc:
        error = exc.response["Error"]
        answer = ErrorAnswer(str(error["Code"]), str(error.get("Message", "")), 400, attempts=1)
        raise access._answered_error(service, operation, params, answer) from None


def _outcome(answer: Any, *args: Any) -> Any:
    try:
        return answer(*args)
    except AwsAccessError as exc:
        return (type(exc), exc.reason)


def test_a_recorded_triage_loads_no_aws_sdk() -> None:
    code = (
        "import sys\n"
        f"sys.argv = ['hyperpod-debug', 'triage', '--recorded', {str(DEMO)!r}]\n"
        "from agent.cli import main\n"
        "try:\n"
        "    main()\n"
        "except SystemExit as exc:\n"
        "    assert exc.code in (None, 0), exc.code\n"
        "print('---', *sorted(m for m in sys.modules if m.split('.')[0] in "
        "('boto3', 'botocore', 's3transfer', 'urllib3', 'kubernetes')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert "Summary:" in done.stdout  # the triage ran in that interpreter
    assert done.stdout.rstrip().rsplit("---", 1)[1].split() == []


@pytest.mark.parametrize("name", ["demo-eks.json", "healthy-slurm.json"])
def test_every_recorded_call_replays_as_the_botocore_client_answers_it(name: str) -> None:
    """Each recorded call (the first page of a paged one) of a bundled recording, answered
    by the replay path and by a botocore client hooked to the same recording."""
    recording = load_recorded(CLUSTERS / name)
    access = AwsAccess(recording.region, replay=recording, max_attempts=0)
    compared = 0
    for call in recording.aws:
        service, operation, params = call.service, call.operation, dict(call.params)
        fast = _outcome(access._send, service, operation, params)
        slow = _outcome(_through_botocore, access, service, operation, params)
        assert fast == slow, (service, operation)
        compared += 1
    assert compared == len(recording.aws) > 10


def test_the_guard_refuses_before_the_recording_is_read() -> None:
    recording = _recording(
        {"service": "ec2", "operation": "RevokeSecurityGroupEgress", "params": {}, "response": {}}
    )
    access = AwsAccess(REGION, replay=recording)
    with pytest.raises(MutatingOperationRefused):
        access.call("ec2", "RevokeSecurityGroupEgress", GroupId="sg-1")
    with pytest.raises(MutatingOperationRefused, match="was not started by this run"):
        access.call("ssm", "TerminateSession", SessionId="someone-else-0123456789abcdef0")
    with pytest.raises(NotRecorded):
        access.call("ec2", "DescribeVpcs", VpcIds=["vpc-1"])


def test_recorded_errors_become_the_typed_errors_of_a_live_run() -> None:
    recording = _recording(
        {
            "service": "ec2",
            "operation": "DescribeVpcs",
            "params": {},
            "error": {"code": "UnauthorizedOperation", "message": "no", "http_status": 403},
        },
        {
            "service": "sts",
            "operation": "GetCallerIdentity",
            "params": {},
            "error": {"code": "ExpiredToken", "message": "expired"},
        },
    )
    access = AwsAccess(REGION, replay=recording)
    with pytest.raises(AccessDenied) as denied:
        access.call("ec2", "DescribeVpcs")
    assert (denied.value.code, denied.value.detail) == (
        "UnauthorizedOperation",
        "UnauthorizedOperation: no",
    )
    with pytest.raises(CredentialsMissing, match="sts:GetCallerIdentity: ExpiredToken: expired"):
        access.call("sts", "GetCallerIdentity")


def _policy_document_paths(shape: Any, path: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
    """Where botocore's `policyDocumentType` strings sit in an output shape."""
    found: set[tuple[str, ...]] = set()
    if shape.type_name == "structure":
        for name, member in shape.members.items():
            if member.type_name == "string" and member.name == "policyDocumentType":
                found.add((*path, name))
            elif member.type_name in ("structure", "list") and len(path) < 4:
                found |= _policy_document_paths(member, (*path, name))
    elif shape.type_name == "list":
        found |= {("[]", *p) for p in _policy_document_paths(shape.member, ())}
    return found


def test_the_policy_document_table_is_botocores() -> None:
    """Replay decodes IAM policy documents where botocore's after-call handler does: every
    allow-listed IAM read's `policyDocumentType` members, and none elsewhere."""
    import botocore.session

    model = botocore.session.get_session().get_service_model("iam")
    expected = {
        operation: paths
        for service, operation in READ_ONLY_OPERATIONS
        if service == "iam"
        and (paths := _policy_document_paths(model.operation_model(operation).output_shape))
    }
    table = {op: set(paths) for op, paths in replay_module.IAM_POLICY_DOCUMENTS.items()}
    assert table == expected
    assert all("[]" not in path for paths in table.values() for path in paths)


@pytest.mark.parametrize(
    ("recorded", "answered"),
    [
        ({"Version": "2012-10-17", "Statement": []}, {"Version": "2012-10-17", "Statement": []}),
        (quote(json.dumps({"Version": "2012-10-17"})), {"Version": "2012-10-17"}),
        ("not json at all", "not json at all"),
    ],
)
def test_policy_documents_replay_as_botocore_decodes_them(recorded: Any, answered: Any) -> None:
    response = {
        "RoleName": "r",
        "PolicyName": "p",
        "PolicyDocument": recorded,
        "ResponseMetadata": {},
    }
    params = {"RoleName": "r", "PolicyName": "p"}
    recording = _recording(
        {"service": "iam", "operation": "GetRolePolicy", "params": params, "response": response}
    )
    access = AwsAccess(REGION, replay=recording)
    fast = access.call("iam", "GetRolePolicy", **params)
    assert fast["PolicyDocument"] == answered
    assert fast == _through_botocore(access, "iam", "GetRolePolicy", params)


def test_replayed_parameters_are_validated_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    """The test suite validates replayed calls as botocore validates live ones; a CLI
    replay does not load the model to do so."""
    recording = _recording(
        {
            "service": "ec2",
            "operation": "DescribeVpcs",
            "params": {"VpcIds": "v"},
            "response": {},
        }
    )
    monkeypatch.setattr(replay_module, "validate_replayed_parameters", True)
    access = AwsAccess(REGION, replay=recording)
    with pytest.raises(AwsAccessError, match=r"(?s)ParamValidationError: .*VpcIds"):
        access.call("ec2", "DescribeVpcs", VpcIds="v")
    monkeypatch.setattr(replay_module, "validate_replayed_parameters", False)
    assert access.call("ec2", "DescribeVpcs", VpcIds="v") == {}


def test_paging_and_the_time_budget_stay_above_the_replay() -> None:
    items = [{"VpcId": f"vpc-{i}"} for i in range(7)]
    recording = _recording(
        {
            "service": "ec2",
            "operation": "DescribeVpcs",
            "params": {},
            "response": {"Vpcs": items},
            "paging": {"result_key": "Vpcs"},
        }
    )
    access = AwsAccess(REGION, replay=recording)
    paged = access.paginate("ec2", "DescribeVpcs", PageRead("Vpcs", page_size=5, cap=100))
    assert paged.items == items
    assert paged.truncated is False
    access.set_time_budget(0)
    with pytest.raises(AwsAccessError, match="time budget"):
        access.call("ec2", "DescribeVpcs")


def test_no_other_botocore_after_call_handler_applies_to_an_allowed_read() -> None:
    """Replay reproduces the one after-call handler of botocore that changes an answer of
    an allow-listed read (IAM's policy documents). A read added to the allow-list whose
    service has another one (CloudFormation's GetTemplate body, S3's listings) must get
    the same treatment in tools/aws/replay.py: this test names it."""
    import botocore.handlers
    import botocore.session

    session = botocore.session.get_session()
    service_ids = {
        service: session.get_service_model(service).service_id.hyphenize()
        for service in {s for s, _ in READ_ONLY_OPERATIONS}
    }
    applying = set()
    for entry in botocore.handlers.BUILTIN_HANDLERS:
        event, handler = entry[0], entry[1]
        parts = event.split(".")
        if parts[0] != "after-call" or len(parts) < 2:
            continue
        for service, operation in READ_ONLY_OPERATIONS:
            if parts[1] in (service_ids[service], "*") and parts[2:] in ([], ["*"], [operation]):
                applying.add((event, handler.__name__))
    assert applying == {("after-call.iam", "json_decode_policies")}
