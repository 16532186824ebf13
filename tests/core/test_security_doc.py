"""docs/security.md states facts about the code: these tests hold each one true."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tools.aws.allowlist import IAM_PREFIX, READ_ONLY_OPERATIONS, iam_action, iam_policy_document

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "security.md"
ACTION = re.compile(r"`([a-z0-9-]+:[A-Za-z0-9]+)`")


def block(name: str) -> str:
    text = DOC.read_text()
    match = re.search(rf"<!-- {name}:start -->\n(.*?)<!-- {name}:end -->", text, re.DOTALL)
    assert match is not None, f"docs/security.md has no {name} block"
    return match.group(1)


def names(name: str) -> list[str]:
    return re.findall(r"`([^`]+)`", block(name))


def test_allowed_operations_are_exactly_the_allow_list() -> None:
    documented = set(ACTION.findall(block("allowed-operations")))
    allowed = {iam_action(service, operation) for service, operation in READ_ONLY_OPERATIONS}
    assert documented == allowed, (
        f"docs/security.md lists {sorted(documented - allowed)} that the allow-list lacks and "
        f"misses {sorted(allowed - documented)}"
    )


def test_every_action_the_iam_policy_grants_is_documented_as_allowed() -> None:
    documented = set(ACTION.findall(block("allowed-operations")))
    granted: set[str] = set()
    for statement in iam_policy_document()["Statement"]:  # type: ignore[attr-defined]
        granted.update(statement["Action"])
    assert granted <= documented
    assert "sts:GetCallerIdentity" not in granted  # "needs no grant"
    session = next(
        s
        for s in iam_policy_document()["Statement"]  # type: ignore[attr-defined]
        if s["Action"] == ["ssm:StartSession"]
    )
    assert "arn:aws:ssm:*::document/AWS-StartNonInteractiveCommand" in session["Resource"]
    assert session["Condition"] == {"BoolIfExists": {"ssm:SessionDocumentAccessCheck": "true"}}


def test_iam_policy_command_prints_the_generated_policy() -> None:
    from typer.testing import CliRunner

    from agent.cli import app

    result = CliRunner().invoke(app, ["iam-policy"])
    assert result.exit_code == 0
    assert json.loads(result.output) == iam_policy_document()


def _refused() -> list[tuple[str, str]]:
    client = {prefix: service for service, prefix in IAM_PREFIX.items()}
    out = []
    for action in ACTION.findall(block("refused-operations")):
        prefix, operation = action.split(":")
        out.append((client[prefix], operation))
    return out


def test_refused_operations_are_off_the_allow_list() -> None:
    refused = _refused()
    assert len(refused) >= 10
    assert not set(refused) & READ_ONLY_OPERATIONS


@pytest.mark.parametrize("operation", _refused(), ids=lambda o: f"{o[0]}:{o[1]}")
def test_refused_operations_are_refused_before_a_request_is_built(
    operation: tuple[str, str],
) -> None:
    from tools.aws.errors import MutatingOperationRefused
    from tools.aws.session import AwsAccess
    from tools.recorded.model import load_recorded

    recording = load_recorded(ROOT / "evals" / "clusters" / "demo-eks.json")
    access = AwsAccess(recording.region, replay=recording, max_attempts=1)
    sent: list[object] = []
    access._session.events.register("before-send", lambda request, **_: sent.append(request))
    service, name = operation
    with pytest.raises(MutatingOperationRefused):
        access.call(service, name)
    assert sent == []


def test_probe_list_is_the_catalogue() -> None:
    from tools.probes.catalog import CATALOGUE

    assert names("probes") == list(CATALOGUE)


def test_agent_tools_are_documented_and_none_writes() -> None:
    from agent.state import ConversationState
    from agent.toolset import Toolset
    from agent.toolset.cluster import ClusterSession

    toolset = Toolset(ClusterSession(), ConversationState())
    tools = [s.name for s in toolset.specs()]
    builtin = [t for t in tools if not t.startswith("check_")]
    assert set(names("agent-tools")) == set(builtin)
    write = re.compile(
        r"run|exec|reboot|replace|delete|update|create|put|modify|authorize|revoke|"
        r"terminate|start|stop|apply|send|write|patch|drain|cordon|label"
    )
    assert [t for t in tools if write.search(t)] == []
    # Only suggest_command takes a command, and it renders it.
    takes_command = [
        s.name for s in toolset.specs() if "command" in json.dumps(s.schema()["input_schema"])
    ]
    assert takes_command == ["suggest_command"]


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE"])
def test_kubernetes_access_is_get_only(method: str) -> None:
    from tools.kube.access import KubeRequestRefused, guard

    guard("GET", "/api/v1/nodes")
    with pytest.raises(KubeRequestRefused):
        guard(method, "/api/v1/nodes")
    with pytest.raises(KubeRequestRefused):
        guard("GET", "/api/v1/namespaces/default/secrets")


def test_redaction_classes_are_the_named_steps() -> None:
    from tools.redaction import STEPS

    rows = re.findall(r"^\| `([a-z0-9-]+)` \|", block("redaction-classes"), re.MULTILINE)
    steps = [step.name for step in STEPS]
    assert rows == steps, "document each redaction step of tools/redaction.py, in order"


def test_record_can_mask_accounts() -> None:
    from tools.redaction import AccountMasker

    masker = AccountMasker()
    assert masker.mask("arn:aws:iam::123456789012:role/x 210987654321") == (
        "arn:aws:iam::111122223333:role/x 444455556666"
    )
    text = DOC.read_text()
    assert "record --mask-account" in text
    from typer.testing import CliRunner

    from agent.cli import app

    assert "--mask-account" in CliRunner().invoke(app, ["record", "--help"]).output


def test_ticket_and_triage_never_load_a_model_provider(tmp_path: Path) -> None:
    """ "model provider: never" for triage, explain and ticket: their runs import no provider
    module (a fresh interpreter, so other tests' imports do not count)."""
    recording = ROOT / "evals" / "clusters" / "demo-eks.json"
    script = f"""
import sys
from typer.testing import CliRunner
from agent.cli import app
runs = [
    ["triage", "--recorded", {str(recording)!r}],
    ["explain", "NVRM: Xid 79 GPU has fallen off the bus"],
    ["ticket", "--recorded", {str(recording)!r}, "-o", {str(tmp_path / "t")!r}],
]
for args in runs:
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, (args, result.output)
loaded = sorted(m for m in sys.modules if m.startswith(("agent.providers", "anthropic")))
print(loaded)
"""
    done = subprocess.run(
        [sys.executable, "-c", script],
        check=False,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_readme_links_the_security_page() -> None:
    assert "(docs/security.md)" in (ROOT / "README.md").read_text()


def test_credential_operations_are_exactly_the_credential_allow_list() -> None:
    from tools.aws.allowlist import CREDENTIAL_OPERATIONS

    documented = set(ACTION.findall(block("credential-operations")))
    allowed = {iam_action(service, operation) for service, operation in CREDENTIAL_OPERATIONS}
    assert documented == allowed
    assert not CREDENTIAL_OPERATIONS & READ_ONLY_OPERATIONS  # the guarded session gains none


def test_ticket_can_mask_and_keeps_the_mapping_outside_the_archive() -> None:
    from typer.testing import CliRunner

    from agent.cli import app
    from agent.commands.ticket import MASK_MAPPING

    text = DOC.read_text()
    assert "ticket --mask" in text
    assert MASK_MAPPING in text
    assert "--mask" in CliRunner().invoke(app, ["ticket", "--help"]).output
