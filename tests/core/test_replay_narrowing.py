"""CloudWatch filter patterns over recorded events, narrower reads answered from broader
recorded ones, and the version stamp that tells an old recording."""

from __future__ import annotations

from typing import Any

import pytest

from tools.aws.errors import NotRecorded
from tools.recorded.filter_pattern import parse
from tools.recorded.model import Paging, RecordedCall, RecordedCluster, RecordedError
from tools.recorded.recorder import Recorder
from tools.recorded.replay import ReplayStore
from tools.version import predates, release, tool_version

GROUP = "/aws/sagemaker/Clusters/c/abc"
EVENTS = [
    {"logStreamName": "LifecycleConfig/workers/i-1", "timestamp": 100, "message": "start"},
    {"logStreamName": "LifecycleConfig/workers/i-1", "timestamp": 200, "message": "step failed"},
    {"logStreamName": "LifecycleConfig/workers/i-2", "timestamp": 300, "message": "KeyError: x"},
    {"logStreamName": "LifecycleConfig/workers/i-2", "timestamp": 400, "message": "exit code 1"},
]


def _matches(pattern: str, message: str) -> bool:
    parsed = parse(pattern)
    assert parsed is not None, pattern
    return parsed.matches(message)


@pytest.mark.parametrize(
    ("pattern", "message", "matched"),
    [
        ("", "anything", True),
        ("   ", "anything", True),
        ("ERROR", "[ERROR 400] BAD REQUEST", True),
        ("ERROR", "[error 400]", False),  # terms are case-sensitive
        ("ERROR Exception", "ERROR in Exception handler", True),
        ("ERROR Exception", "ERROR only", False),
        ("?ERROR ?Exception", "an Exception", True),
        ("?ERROR ?Exception", "a warning", False),
        ('"command not found"', "bash: foo: command not found", True),
        ('"command not found"', "command was not found", False),
        ('?"(403)" ?timeout', "HTTP (403) Forbidden", True),
        ("ERROR -Retry", "ERROR, giving up", True),
        ("ERROR -Retry", "ERROR: Retry 3", False),
        # An excluding term drops a line only as a whole word (kept when unsure).
        ("ERROR -Retry", "ERROR in Retryable", True),
        ('ERROR -"will retry"', "ERROR, will retry", False),
    ],
)
def test_unstructured_term_patterns(pattern: str, message: str, matched: bool) -> None:
    assert _matches(pattern, message) is matched


@pytest.mark.parametrize(
    "pattern",
    [
        '{ $.level = "error" }',  # JSON
        "[ip, user, status=5*]",  # space-delimited
        "%ERR(OR)?%",  # regular expression
        '?"unbalanced',
        '"a"b',
        "?a b",  # an OR term mixed with a required one: not defined by the guide
        "?a -b",
        '""',
    ],
)
def test_forms_not_implemented_are_refused(pattern: str) -> None:
    assert parse(pattern) is None


@pytest.mark.parametrize(
    ("narrow", "broad", "within"),
    [
        ("?a ?b", "", True),
        ("", "", True),
        ("", "?a", False),
        ("?a ?b", "?a ?b ?c", True),
        ("?a ?d", "?a ?b", False),
        ("a b", "?a ?z", True),
        ("a -x", "a", True),
        ("a", "a -x", False),
        ("a -x -y", "a -x", True),
        ('"timed out"', "?timed", False),  # sound, not complete: words are not split
        ("?timed", '?"timed out"', False),
    ],
)
def test_within(narrow: str, broad: str, within: bool) -> None:
    n, b = parse(narrow), parse(broad)
    assert n is not None
    assert b is not None
    assert n.within(b) is within


def _recording(*calls: RecordedCall, stamp: str | None = None) -> RecordedCluster:
    return RecordedCluster(
        recorded_at="2026-11-20T12:00:00Z",
        cluster="c",
        region="us-west-2",
        tool_version=stamp,
        aws=list(calls),
    )


def _events_call(truncated: bool = False, **params: Any) -> RecordedCall:
    return RecordedCall(
        service="logs",
        operation="FilterLogEvents",
        params={"logGroupName": GROUP, "logStreamNamePrefix": "LifecycleConfig/", **params},
        response={"events": EVENTS, "searchedLogStreams": []},
        paging=Paging(result_key="events", token_key="nextToken", truncated=truncated),
    )


def _ask(store: ReplayStore, **params: Any) -> list[str]:
    query = {"logGroupName": GROUP, "logStreamNamePrefix": "LifecycleConfig/", **params}
    call = store.respond("logs", "FilterLogEvents", {**query, "limit": 100})
    assert call.response is not None
    return [e["message"] for e in call.response["events"]]


def test_a_narrower_pattern_stream_and_window_are_answered_from_the_recorded_events() -> None:
    store = ReplayStore(_recording(_events_call(filterPattern="", startTime=0, endTime=1000)))
    assert _ask(store, filterPattern="?failed ?KeyError", startTime=0, endTime=1000) == [
        "step failed",
        "KeyError: x",
    ]
    narrower = {"filterPattern": "?failed ?KeyError ?exit", "startTime": 250, "endTime": 1000}
    assert _ask(store, **narrower) == ["KeyError: x", "exit code 1"]
    assert _ask(
        store,
        logStreamNamePrefix="LifecycleConfig/workers/i-1",
        filterPattern="failed",
        startTime=0,
        endTime=1000,
    ) == ["step failed"]


def test_a_broader_read_than_the_recorded_one_is_not_recorded() -> None:
    recorded = _events_call(filterPattern="?failed", startTime=0, endTime=1000)
    store = ReplayStore(_recording(recorded))
    for params in (
        {"filterPattern": "?failed ?KeyError", "startTime": 0, "endTime": 1000},  # more terms
        {"filterPattern": "?failed", "startTime": 0, "endTime": 2000},  # a longer window
        {"filterPattern": "?failed", "startTime": 0, "endTime": 1000, "logStreamNamePrefix": ""},
        {"filterPattern": "?failed", "startTime": 0, "endTime": 1000, "interleaved": True},
    ):
        with pytest.raises(NotRecorded):
            _ask(store, **params)


def test_a_cut_short_recorded_list_answers_cut_short() -> None:
    """The recorded read stopped at its cap: the narrower answer may lack events, and says
    so (the check then reports an incomplete scan, not a complete one)."""
    store = ReplayStore(
        _recording(_events_call(truncated=True, filterPattern="", startTime=0, endTime=1000))
    )
    call = store.respond(
        "logs",
        "FilterLogEvents",
        {
            "logGroupName": GROUP,
            "logStreamNamePrefix": "LifecycleConfig/",
            "filterPattern": "failed",
            "startTime": 0,
            "endTime": 1000,
        },
    )
    assert call.paging is not None
    assert call.paging.truncated


def test_a_log_group_error_carries_over_and_a_throttle_does_not() -> None:
    def failed(code: str) -> RecordedCall:
        return RecordedCall(
            service="logs",
            operation="FilterLogEvents",
            params={"logGroupName": GROUP, "logStreamNamePrefix": "", "filterPattern": ""},
            error=RecordedError(code=code, http_status=400),
        )

    asked = {"logGroupName": GROUP, "logStreamNamePrefix": "x/", "filterPattern": "failed"}
    missing = ReplayStore(_recording(failed("ResourceNotFoundException")))
    error = missing.respond("logs", "FilterLogEvents", asked).error
    assert error is not None
    assert error.code == "ResourceNotFoundException"
    with pytest.raises(NotRecorded):
        ReplayStore(_recording(failed("ThrottlingException"))).respond(
            "logs", "FilterLogEvents", asked
        )


def test_log_streams_under_a_longer_prefix() -> None:
    streams = [{"logStreamName": f"LifecycleConfig/workers/i-{n}"} for n in (1, 2, 12)]
    recorded = RecordedCall(
        service="logs",
        operation="DescribeLogStreams",
        params={"logGroupName": GROUP, "logStreamNamePrefix": "LifecycleConfig/"},
        response={"logStreams": streams},
        paging=Paging(result_key="logStreams", token_key="nextToken"),
    )
    store = ReplayStore(_recording(recorded))
    call = store.respond(
        "logs",
        "DescribeLogStreams",
        {"logGroupName": GROUP, "logStreamNamePrefix": "LifecycleConfig/workers/i-1", "limit": 50},
    )
    assert call.response is not None
    assert [s["logStreamName"] for s in call.response["logStreams"]] == [
        "LifecycleConfig/workers/i-1",
        "LifecycleConfig/workers/i-12",
    ]


def test_misses_are_remembered_for_the_report_but_not_the_optional_account_read() -> None:
    store = ReplayStore(_recording())
    assert store.gaps() is None
    with pytest.raises(NotRecorded):
        store.respond("sts", "GetCallerIdentity", {})
    assert store.gaps() is None  # a recording may leave it out
    with pytest.raises(NotRecorded) as raised:
        store.respond("ec2", "DescribeSubnets", {"SubnetIds": ["subnet-1"]})
    gaps = store.gaps()
    assert gaps is not None
    assert gaps.predates
    assert gaps.recorded_with is None
    assert gaps.calls == ("ec2:DescribeSubnets",)
    assert gaps.reasons == frozenset({raised.value.reason})
    assert gaps.rerecord == "hyperpod-debug record --cluster c --region us-west-2 -o FILE"


def test_the_re_record_command_quotes_what_the_file_says() -> None:
    recording = _recording().model_copy(update={"cluster": "c; rm -rf ~"})
    assert ReplayStore(recording).rerecord() == (
        "hyperpod-debug record --cluster 'c; rm -rf ~' --region us-west-2 -o FILE"
    )


def test_recordings_are_stamped_with_the_version_that_made_them() -> None:
    recording = Recorder().build(cluster="c", region="us-west-2")
    assert recording.tool_version == tool_version()
    assert tool_version() != "unknown"


@pytest.mark.parametrize(
    ("recorded", "current", "older"),
    [
        (None, "0.1.0", True),
        ("0.1.0", "0.1.0", False),
        ("0.1", "0.1.0", False),
        ("0.0.9", "0.1.0", True),
        ("0.9.0", "0.10.0", True),
        ("0.2.0", "0.1.0", False),
        ("0.1.0", "unknown", False),
        ("nonsense", "0.1.0", False),
    ],
)
def test_predates(recorded: str | None, current: str, older: bool) -> None:
    assert predates(recorded, current) is older


def test_release() -> None:
    assert release("0.2.0rc1") == (0, 2)
    assert release("v1.10") == (1, 10)
    assert release("dev") is None
