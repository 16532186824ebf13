"""The signal registry: each shared wording family written once, used, and tested here once."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tools.sections import section
from tools.signals import SIGNALS, SIGNALS_BY_ID, alternation, compile_alternation, wording

from ._consumers import consumer_patterns

ROOT = Path(__file__).resolve().parents[2]
# Every module that builds a table from registry wording.
CONSUMERS = (
    *sorted((ROOT / "tools" / "explain" / "signatures").glob("*.py")),
    ROOT / "tools" / "checks" / "_event_families.py",
    ROOT / "tools" / "checks" / "_lifecycle_families.py",
)

# What each family must match, and near misses it must not: the one place its wording is
# tested. Every table that takes the family inherits these.
EXAMPLES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "lifecycle.crlf": (
        (
            "/opt/ml/scripts/on_create.sh: line 2: $'\\r': command not found",
            "on_create.sh: line 9: set: pipefail\\r': command not found",
            "bash: ./on_create.sh: /bin/bash^M: bad interpreter: No such file or directory",
            "/bin/sh^M: bad interpreter",
        ),
        ("on_create.sh: line 2: apt-get: command not found", "/bin/bash: bad interpreter"),
    ),
    "aws.endpoint_unreachable": (
        (
            'Could not connect to the endpoint URL: "https://s3.us-west-2.amazonaws.com/b/k"',
            'Connect timeout on endpoint URL: "https://api.sagemaker.us-east-1.amazonaws.com/"',
        ),
        ("--cli-connect-timeout 60", "endpoint URL set to https://s3.amazonaws.com"),
    ),
    "aws.access_denied": (
        (
            "An error occurred (AccessDenied) when calling the GetObject operation",
            "botocore.exceptions.ClientError: AccessDeniedException",
        ),
        ("access was granted", "Access Denied"),  # the spaced form is explain's own
    ),
    "capacity.insufficient": (
        (
            "InsufficientInstanceCapacity: We currently do not have sufficient capacity",
            "capacity is not available for ml.p5.48xlarge",
            "Capacity not available in us-east-1a",
            "CapacityError: Unable to provision requested ML compute capacity. Please retry"
            " using a different ML instance type.",
            "Unable to provision requested ML compute capacity due to InsufficientInstanceCapacity",
        ),
        (
            "capacity reservation cr-0abc",
            "capacity is available",
            "InsufficientCapacityErrors=0",  # a counter name, not SageMaker's error code
        ),
    ),
    "capacity.training_plan": (
        ("the training plan tp-abc has no instances left",),
        ("training started", "plan the training"),
    ),
    "lifecycle.on_init_complete": (
        ("OnInitComplete failed after 600 seconds",),
        ("on init complete",),
    ),
    "hyperpod.deep_health_failed_label": (
        (
            "sagemaker.amazonaws.com/deep-health-check-status=Failed",
            'deep-health-check-status: "Failed"',
        ),
        ("deep-health-check-status=Passed",),
    ),
    "hyperpod.bootstrap_network": (
        (
            "The instance failed to bootstrap due to a network misconfiguration",
            "Network misconfiguration prevented the node from bootstrapping",
            "节点引导失败，网络配置错误",
        ),
        ("bootstrap failed", "network misconfiguration"),
    ),
    "gpu.count_mismatch": (
        ("expected 8 GPUs, found 7", "GPU count validation failed"),
        ("8 GPUs expected",),
    ),
    "nccl.collective_timeout": (
        (
            "[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9)",
            "NCCL communicator timed out after 1800 seconds",
        ),
        ("NCCL_TIMEOUT is unset", "the timeout was raised"),
    ),
    "nccl.error": (
        (
            "torch.distributed.DistBackendError: NCCL error: unhandled system error",
            "ip-10-1-2-3:123:456 [0] NCCL WARN NET/OFI Request error",
            "ncclInternalError: Internal check failed",
        ),
        ("ncclInvalidUsage", "NCCL INFO Using network AWS Libfabric"),
    ),
    "k8s.oomkilled": (
        ("Last State: Terminated  Reason: OOMKilled", "Exit Code:    137"),
        ("Exit Code: 1", "oom-kill"),
    ),
    "storage.lustre_client": (
        (
            "LustreError: 11-0: fsx-OST0000-osc-ffff8f2a: operation ost_connect to node"
            " 10.1.2.3@tcp failed: rc = -110",
            "Lustre: fsx-OST0002-osc-ffff8f2a: Connection to fsx-OST0002 (at 10.1.2.4@tcp)"
            " was lost; in progress operations using this service will wait for recovery to"
            " complete",
            "LustreError: 167-0: fsx-OST0001-osc-ffff8f2a: This client was evicted by"
            " fsx-OST0001; in progress operations using this service will fail.",
            "mount.lustre: mount fs-0a.fsx.us-east-1.amazonaws.com@tcp:/abcd at /fsx failed:"
            " Connection timed out",
            "failed to ping 10.1.2.3@tcp: Input/output error",
        ),
        (
            "Lustre: Mounted fsx-client",
            "mount.lustre: mount fs-0a@tcp:/abcd at /fsx",
            "Connection to the database was lost",
            "lctl ping 10.1.2.3@tcp",
        ),
    ),
}


def _referenced_ids(path: Path) -> list[str]:
    """The ids that ``path`` passes to ``wording(...)`` (literal ids only: see below)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "wording":
            # A literal id, so that this test can see which families a table uses.
            assert len(node.args) == 1, path.name
            assert isinstance(node.args[0], ast.Constant), path.name
            found.append(str(node.args[0].value))
    return found


REFERENCES = {path.name: _referenced_ids(path) for path in CONSUMERS}


def test_ids_are_unique_and_sections_exist() -> None:
    assert len(SIGNALS_BY_ID) == len(SIGNALS)
    for signal in SIGNALS:
        assert section(signal.section).id == signal.section, signal.id
        assert signal.wording, signal.id
        assert len(set(signal.wording)) == len(signal.wording), signal.id


def test_every_reference_resolves() -> None:
    for module, ids in REFERENCES.items():
        for signal_id in ids:
            assert signal_id in SIGNALS_BY_ID, f"{module} names unknown wording {signal_id!r}"


def test_every_family_is_used_by_a_table() -> None:
    used = {signal_id for ids in REFERENCES.values() for signal_id in ids}
    assert sorted(set(SIGNALS_BY_ID) - used) == []


def test_a_table_that_names_a_family_holds_all_of_its_wording() -> None:
    """The shared alternatives sit in the using table's pattern whole and in order."""
    sources = [
        source[0]
        for roles in consumer_patterns().values()
        for source in roles.values()
        if source is not None
    ]
    for signal in SIGNALS:
        shared = alternation(signal.wording)
        holders = [source for source in sources if shared in source]
        references = sum(ids.count(signal.id) for ids in REFERENCES.values())
        assert holders, signal.id
        assert len(holders) >= references, signal.id  # a tuple may feed several patterns


def test_every_family_has_examples() -> None:
    assert sorted(EXAMPLES) == sorted(SIGNALS_BY_ID)


@pytest.mark.parametrize("signal_id", sorted(EXAMPLES))
def test_family_wording(signal_id: str) -> None:
    matches, near_misses = EXAMPLES[signal_id]
    pattern = compile_alternation(*wording(signal_id))
    for text in matches:
        assert pattern.search(text), (signal_id, text)
    for text in near_misses:
        assert not pattern.search(text), (signal_id, text)


@pytest.mark.parametrize("signal_id", sorted(EXAMPLES))
def test_every_table_that_names_a_family_matches_its_examples(signal_id: str) -> None:
    shared = alternation(wording(signal_id))
    for key, roles in consumer_patterns().items():
        for role, source in roles.items():
            if source is None or shared not in source[0]:
                continue
            pattern = re.compile(source[0], source[1])
            for text in EXAMPLES[signal_id][0]:
                assert pattern.search(text), (key, role, text)


def test_one_regex_helper() -> None:
    """The tables join alternatives through tools.signals, not a helper of their own."""
    for path in (*CONSUMERS, ROOT / "tools" / "explain" / "signature.py"):
        tree = ast.parse(path.read_text("utf-8"))
        own = [
            node.name
            for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef) and node.name in ("_rx", "_join", "_flags")
        ]
        assert own == [], path.name
    assert alternation(("a|b", "c")) == "(?:a|b)|(?:c)"
