"""Taking shared wording from the registry changed no table's matching.

`consumer_patterns.json` records every pattern of `explain`'s signatures, the cluster-event
families and the lifecycle-log families as they were before the registry (tools.signals)
existed. A pattern whose text is unchanged matches as before by construction; one whose
text changed (alternatives split, reordered or taken from the registry) must agree with
the recorded one on every text of a wide corpus: the explain eval cases, the bundled
recorded clusters, the string literals of the tables' own tests and a list of near misses
written for the rewritten patterns.

Agree means the same match spans, since `explain` quotes what matched and the lifecycle
check rubs out zero counts by span. The first-match families of the checks only ask
whether a line matches (`pattern.search(text)` as a truth value, in events.py and
classify_line), so for them agree means matching the same texts: that is what lets the
lifecycle access-denied family take `AccessDenied(?:Exception)?` from the registry where
it said `AccessDenied`.

A deliberate wording change updates the JSON file in the same commit.
"""

from __future__ import annotations

import ast
import json
import re
from functools import cache
from pathlib import Path

import pytest

from ._consumers import Source, consumer_patterns

ROOT = Path(__file__).resolve().parents[2]
RECORDED = json.loads((Path(__file__).with_name("consumer_patterns.json")).read_text("utf-8"))

# Texts aimed at the places where a rewritten pattern could have drifted: the edges of the
# alternatives that were split, reordered or now come from the registry.
NEAR_MISSES = (
    "/opt/ml/on_create.sh: line 3: $'\\r': command not found",
    "on_create.sh: line 3: \\r: command not found",
    "line 7: \r: command not found",
    "\\r': command not found",
    "/bin/bash^M: bad interpreter: No such file or directory",
    "bash: ./setup.sh: /bin/sh^M: bad interpreter",
    "the file has CRLF line endings",
    "^M at the end of each line",
    'Could not connect to the endpoint URL: "https://s3.us-west-2.amazonaws.com/b"',
    'Connect timeout on endpoint URL: "https://sts.amazonaws.com"',
    'Read timeout on endpoint URL: "https://bucket.s3.amazonaws.com/k"',
    "ReadTimeoutError: Read timeout on endpoint URL s3.amazonaws.com",
    "ConnectTimeoutError ... s3.amazonaws.com",
    "download from s3://bucket timed out",
    "An error occurred (AccessDenied) when calling the GetObject operation: Access Denied",
    "AccessDeniedException: User is not authorized to perform sagemaker:DescribeCluster",
    "fatal error: An error occurred (403) when calling the HeadObject operation: Forbidden",
    "HTTP 403 Forbidden from s3://sagemaker-x",
    "InsufficientInstanceCapacity: We currently do not have sufficient capacity",
    "Insufficient capacity for ml.p5.48xlarge",
    "insufficient ml.p5.48xlarge capacity",
    "capacity is not available in us-east-1a",
    "capacity not available",
    "capacity is unavailable right now",
    "capacity unavailable",
    "InsufficientCapacityError",
    "we do not have enough capacity in that availability zone (AZ)",
    "the reservation is expired; the training plan ended",
    "OnInitComplete failed for the lifecycle (LCS) on_create provisioning_parameters",
    "setup script failed, bootstrap stopped",
    "EFA health check failed on node i-0abc",
    "connectivity checks did not reach EFA",
    "Network misconfiguration: subnet, security group, ENI, DNS, NAT, route table, VPC endpoint",
    "hardware fault: UnschedulablePendingReplacement, replacing, rebooted, Xid 79, GPU ECC",
    "KeyError: 'worker_group'",
    "provisioning_parameters.json not found",
    "error: cannot read provisioning_parameters",
    "instance_group worker not found",
    "KeyError handled, using defaults",
    "except KeyError: pass",
    "on_create.sh exited with code 1",
    "exit status 2",
    "returned a non-zero exit code",
    "lifecycle script failed, will retry",
    "0 errors, 0 failed, failures: 0, no failing tests",
    "errors=0.5 failed: 3",
    "NCCL WARN ncclRemoteError: remote process exited, ncclSystemError, ncclInternalError",
    "ncclRemoteError alone",
    "NCCL error: unhandled system error (run with NCCL_DEBUG=INFO)",
    "+ bash on_create.sh",
    "[2024-01-01 10:00:00] ++ echo hi",
    "2024-01-01T10:00:00Z + set -x",
)


def _literals(path: Path) -> list[str]:
    tree = ast.parse(path.read_text("utf-8"))
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) > 3
    ]


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


@cache
def _corpus() -> tuple[str, ...]:
    texts: list[str] = list(NEAR_MISSES)
    for name in ("cases.jsonl", "blind.jsonl"):
        for line in (ROOT / "evals" / "explain" / name).read_text("utf-8").splitlines():
            if line.strip():
                texts.append(json.loads(line)["text"])
    for recording in sorted((ROOT / "evals" / "clusters").glob("*.json")):
        texts += _strings(json.loads(recording.read_text("utf-8")))
    tests = [
        *sorted((ROOT / "tests" / "explain").glob("test_*.py")),
        *sorted((ROOT / "tests" / "checks").glob("test_events_*.py")),
        *sorted((ROOT / "tests" / "checks").glob("test_lifecycle_logs*.py")),
    ]
    for path in tests:
        texts += _literals(path)
    return tuple(dict.fromkeys(texts))


def _spans(source: Source, text: str) -> list[tuple[int, int]]:
    return [m.span() for m in re.compile(source[0], source[1]).finditer(text)]


def _matches(source: Source, text: str) -> bool:
    return re.compile(source[0], source[1]).search(text) is not None


def _only_asked_whether_it_matches(key: str, role: str) -> bool:
    """The first-match families' own patterns and vetoes (not _zero_count's spans)."""
    table, _, name = key.partition(":")
    return table in ("events", "lifecycle") and not name.startswith("_")


CURRENT = consumer_patterns()


def test_the_same_patterns_exist() -> None:
    assert sorted(CURRENT) == sorted(RECORDED)
    for key, roles in CURRENT.items():
        assert sorted(roles) == sorted(RECORDED[key]), key


def test_the_corpus_reaches_every_rewritten_pattern() -> None:
    """A rewritten pattern that the corpus never matches would prove nothing."""
    for key, roles in CURRENT.items():
        for role, source in roles.items():
            recorded = RECORDED[key][role]
            if source is None or recorded is None or list(source) == recorded:
                continue
            if key == "events:unmapped":  # "(?!)" matches nothing, before and after
                continue
            assert any(_spans(source, text) for text in _corpus()), (key, role)


@pytest.mark.parametrize("key", sorted(RECORDED))
def test_every_pattern_matches_what_it_matched(key: str) -> None:
    for role, recorded in RECORDED[key].items():
        source = CURRENT[key][role]
        if recorded is None or source is None:
            assert source is None, (key, role)
            assert recorded is None, (key, role)
            continue
        if list(source) == recorded:
            continue
        old: Source = (recorded[0], recorded[1])
        assert source[1] == old[1], (key, role, "flags")
        if _only_asked_whether_it_matches(key, role):
            for text in _corpus():
                assert _matches(source, text) == _matches(old, text), (key, role, text[:200])
        else:
            for text in _corpus():
                assert _spans(source, text) == _spans(old, text), (key, role, text[:200])
