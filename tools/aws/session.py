"""One guarded boto3 session per run: lazy cached clients, bounded retries, typed errors.

The guard is registered on the session's event emitter before any client exists (clients
copy the emitter when they are created), so every operation of every client passes it
before its request is built. Recording hooks into the same clients.

Replay answers from the recording without botocore (`AwsAccess._send_recorded`): importing
the SDK and loading a service model per client was most of a small replayed triage's time.
Everything above botocore is shared with a live run (the time budget, paging, the typed
errors), and replay applies the same guard first, so a recording exercises the allow-list
and the session guard as a live run does. The test suite also validates every replayed
call's parameters against botocore's models (`validate_replayed_parameters`). A client
asked for by hand during a replay is still a guarded botocore client answered from the
recording.

Credentials come from botocore's own provider chain run on a separate session that may
only obtain credentials (tools/aws/credentials.py); the guarded session never builds a
client to obtain them, so the allow-list stays read-only.

Time: each call is sent at most `max_attempts + 1` times (botocore's standard retry mode,
short connect and read timeouts); an API that failed persistently (throttled, timed out,
unreachable, a server error) is not asked again for FAILURE_COOLDOWN seconds, the same
error is repeated instead; and a run may set a time budget (`set_time_budget`) after which
no AWS call is sent or retried, except the node-probe session calls, which have limits of
their own and must always be able to end a session.
"""

from __future__ import annotations

import contextlib
import copy
import datetime as dt
import json
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import quote, unquote

from tools.aws.allowlist import SESSION_OPERATIONS, iam_action, is_allowed
from tools.aws.errors import (
    ACCESS_DENIED_CODES,
    AccessDenied,
    AwsAccessError,
    CredentialsMissing,
    EndpointSettingError,
    EndpointUnreachable,
    MutatingOperationRefused,
    NotRecorded,
    OutOfTime,
    ResourceNotFound,
    Throttled,
    TimedOut,
    UnknownOperation,
)
from tools.aws.ssm_guard import StartedSessions, refusal
from tools.recorded.model import Paging

if TYPE_CHECKING:
    from tools.recorded.model import RecordedCluster
    from tools.recorded.recorder import Recorder
    from tools.recorded.replay import RecordingGaps, Responder

THROTTLING_CODES = frozenset(
    {
        "Throttling",
        "ThrottlingException",
        "ThrottledException",
        "RequestLimitExceeded",
        "TooManyRequestsException",
        "RequestThrottled",
        "RequestThrottledException",
        "SlowDown",
        "EC2ThrottledException",
        "ProvisionedThroughputExceededException",
        "BandwidthLimitExceeded",
        "PriorRequestNotComplete",
    }
)
NOT_FOUND_CODES = frozenset(
    {"ResourceNotFound", "ResourceNotFoundException", "ValidationException", "NoSuchEntity"}
)
CREDENTIAL_CODES = frozenset(
    {
        "ExpiredToken",
        "ExpiredTokenException",
        "InvalidClientTokenId",
        "UnrecognizedClientException",
        "SignatureDoesNotMatch",
        "AuthFailure",
        "InvalidAccessKeyId",
        "RequestExpired",
    }
)
_CONTEXT_PARAMS = "hyperpod_debug_params"
# Services with botocore after-call handlers that change nested values of an answer in place
# (botocore/handlers.py: IAM's policy documents, S3's object listings, CloudFormation's
# template body); replay hands them a deep copy of the recorded answer.
_NESTED_AFTER_CALL = frozenset({"iam", "s3", "cloudformation"})

# Retries after the first attempt (botocore's `retries.max_attempts`): three sends in all.
# Standard mode backs off rand(0, 1) x 1 s, then x 2 s on throttling: a persistently
# throttled call costs at most ~3 s of back-off, not the minutes of nine adaptive attempts.
DEFAULT_RETRIES = 2
CONNECT_TIMEOUT = 5  # seconds; an AWS endpoint that does not accept in 5 s is not there
READ_TIMEOUT = 15  # seconds; AWS reads answer in well under a second, logs in a few
# An API that failed persistently is not asked again for this long: the error is repeated.
FAILURE_COOLDOWN = 60.0
_CONTINUATION_KEYS = ("NextToken", "nextToken", "Marker", "NextMarker")


StoppedBy = Literal["end", "cap", "pages"]


@dataclass(frozen=True)
class PagedResult:
    """`truncated` when the list is not whole; `stopped_by` says why the read ended: the API
    was exhausted ("end"), `cap` items were held ("cap") or the page budget ran out
    ("pages": a scan such as FilterLogEvents may return sparse or empty pages)."""

    items: list[dict[str, Any]]
    truncated: bool
    stopped_by: StoppedBy = "end"


@dataclass(frozen=True, slots=True)
class PageRead:
    """How one paged list is read: the answer's list key, the page size asked for, the cap
    of items held, the request's token and size keys, an optional budget of pages, and an
    optional `project` that reduces each item as its page arrives (see
    `AwsAccess.paginate`)."""

    result_key: str
    page_size: int
    cap: int
    token_key: str = "NextToken"
    size_key: str = "MaxResults"
    max_pages: int | None = None
    project: Callable[[dict[str, Any]], dict[str, Any]] | None = None


@dataclass(frozen=True, slots=True)
class ErrorAnswer:
    """An error answer of one call: its code, message and HTTP status, and how many
    requests the call sent."""

    code: str
    message: str
    status: int
    attempts: int


def _jsonable(value: Any) -> Any:
    """botocore output with datetimes as ISO strings, so live and replayed data agree."""
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items() if k != "ResponseMetadata"}
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=dt.UTC)
        return value.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return value


class AwsAccess:
    """The only door to AWS. Build one per run."""

    def __init__(
        self,
        region: str,
        *,
        profile: str | None = None,
        replay: RecordedCluster | Responder | None = None,
        recorder: Recorder | None = None,
        endpoint_url: str | None = None,
        max_attempts: int = DEFAULT_RETRIES,
    ) -> None:
        """`max_attempts` counts retries after the first attempt, as botocore's
        `retries.max_attempts` does (0: one attempt only). A replay answers at once unless
        paced (`pace_replay`)."""
        self.region = region
        self.replaying = replay is not None
        self._replay_latency = 0.0
        self._recorder = recorder
        self._endpoint_url = endpoint_url
        self._clients: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._session_lock = threading.Lock()
        self._attempts = max_attempts + 1
        self._max_attempts = max_attempts
        self._local = threading.local()  # per-thread count of the sends of the current call
        self._failures: dict[tuple[str, str], tuple[float, AwsAccessError, int]] = {}
        self._deadline: float | None = None
        self._budget = 0.0
        self._boto_session: Any = None
        self._boto_config: Any = None
        # Only sessions opened here may be terminated here (see tools/aws/ssm_guard.py).
        self._sessions = StartedSessions()
        if replay is not None:
            from tools.recorded.model import RecordedCluster
            from tools.recorded.replay import ReplayStore

            self._replay_store: Responder | None = (
                ReplayStore(replay) if isinstance(replay, RecordedCluster) else replay
            )
            # A replay answers from the recording without botocore (see `_send_recorded`):
            # its session and clients are only built if something asks for a client.
            return
        import boto3
        import botocore.session
        from botocore.exceptions import ConfigParseError, ProfileNotFound

        from tools.aws import credentials

        self._replay_store = None
        core = botocore.session.Session()
        try:
            session = boto3.Session(botocore_session=core, region_name=region, profile_name=profile)
            check_endpoint_settings(endpoint_url, core)
            # Credentials: botocore's providers, on a session of their own (see
            # tools/aws/credentials.py); this session only receives what they obtain.
            resolver = credentials.credential_session(profile, self._config)
        except (ProfileNotFound, ConfigParseError) as exc:
            raise CredentialsMissing(f"{type(exc).__name__}: {exc}") from None
        credentials.install(core, resolver, region)
        self._guard_session(session)

    @property
    def _config(self) -> Any:
        """botocore's client settings: standard retries, short timeouts."""
        if self._boto_config is None:
            from botocore.config import Config

            self._boto_config = Config(
                retries={"mode": "standard", "max_attempts": self._max_attempts},
                connect_timeout=CONNECT_TIMEOUT,
                read_timeout=READ_TIMEOUT,
                user_agent_extra="hyperpod-debug",
            )
        return self._boto_config

    @property
    def _session(self) -> Any:
        """The guarded boto3 session. A replay builds it on first use only (a client asked
        for by hand, such as the SSM endpoint of the probe transport): static fake
        credentials and no profile, since replay never signs, must never look for real
        credentials, and must not fail on an AWS_PROFILE unknown here."""
        with self._session_lock:
            if self._boto_session is None:
                import boto3
                import botocore.session

                no_profile = botocore.session.Session(
                    session_vars={"profile": (None, None, None, None)}
                )
                self._guard_session(
                    boto3.Session(
                        botocore_session=no_profile,
                        region_name=self.region,
                        aws_access_key_id="replay",
                        aws_secret_access_key="replay",
                    )
                )
            return self._boto_session

    def _guard_session(self, session: Any) -> None:
        """Hook the guard (and replay) into `session` before any client exists: clients
        copy the session's event emitter when they are created."""
        events = session.events
        events.register_first("before-parameter-build", self._guard)
        events.register_first("before-send", self._before_send)
        if self._replay_store is not None:
            events.register_first("before-call", self._serve_recorded)
        self._boto_session = session

    def recording_gaps(self) -> RecordingGaps | None:
        """What a replay of a recorded cluster asked for and did not find (None: nothing
        missing, or not a replay of a recording)."""
        from tools.recorded.replay import ReplayStore

        store = self._replay_store
        return store.gaps() if isinstance(store, ReplayStore) else None

    def pace_replay(self, seconds: float) -> None:
        """Wait `seconds` before each replayed answer, as a network round trip would: it
        lets the overlap of a live triage be measured on a recording
        (`--simulate-latency`)."""
        self._replay_latency = max(0.0, seconds)

    def set_time_budget(self, seconds: float) -> None:
        """From now on, AWS calls may take `seconds` in all: after that none is sent or
        retried (OutOfTime), except the node-probe session calls."""
        self._budget = seconds
        self._deadline = time.monotonic() + seconds

    def _out_of_time(self, service: str, operation: str) -> bool:
        return (
            self._deadline is not None
            and time.monotonic() >= self._deadline
            and (service, operation) not in SESSION_OPERATIONS
        )

    def _time_is_up(self, service: str, operation: str, sent: int) -> OutOfTime:
        why = f"the run's {self._budget:g} s time budget for AWS calls ran out"
        if sent:
            why += f" while retrying ({sent} attempt{'s' if sent > 1 else ''} failed)"
        return OutOfTime(service, operation, why, attempts=sent or None)

    # -- hooks -----------------------------------------------------------------------------

    def _guard(self, model: Any, params: dict[str, Any], context: dict[str, Any], **_: Any) -> None:
        service = model.service_model.service_name
        if not is_allowed(service, model.name):
            raise MutatingOperationRefused(service, model.name)
        # Some allowed operations (an SSM session) are safe only with exact parameters.
        reason = refusal(service, model.name, params, self._sessions)
        if reason is not None:
            raise MutatingOperationRefused(service, model.name, reason)
        context[_CONTEXT_PARAMS] = dict(params)

    def _before_send(self, **_: Any) -> None:
        """Each attempt of a call: counted, and refused once the time budget ran out (the
        exception ends botocore's retry loop: it is not a retryable error)."""
        call = getattr(self._local, "call", None)
        sent = int(getattr(self._local, "sent", 0))
        if call is not None and self._out_of_time(*call):
            raise self._time_is_up(call[0], call[1], sent)
        self._local.sent = sent + 1

    def _serve_recorded(self, model: Any, context: dict[str, Any], **_: Any) -> Any:
        from botocore.awsrequest import AWSResponse

        from tools.recorded.replay import page_call

        assert self._replay_store is not None
        if self._replay_latency:
            time.sleep(self._replay_latency)
        params = context.get(_CONTEXT_PARAMS, {})
        call = page_call(
            self._replay_store.respond(model.service_model.service_name, model.name, params),
            params,
        )
        if call.error is not None:
            parsed = {"Error": {"Code": call.error.code, "Message": call.error.message}}
            return AWSResponse("replay://", call.error.http_status, {}, None), parsed
        stored = dict(call.response or {})
        if model.service_model.service_name in _NESTED_AFTER_CALL:
            # These services' after-call handlers rewrite nested values in place (IAM
            # decodes policy documents): they get a copy, so the recording stays as read.
            response = _encode_policy_documents(copy.deepcopy(stored), model.output_shape)
        else:
            # Nothing of botocore's changes a nested value of these answers (an after-call
            # handler at most replaces a top-level key, which the shallow copy absorbs), and
            # _send copies the whole answer into fresh containers (_jsonable) before any
            # check sees it: a deep copy of every page would only cost time.
            response = stored
        return AWSResponse("replay://", 200, {}, None), response

    # -- clients ---------------------------------------------------------------------------

    def client(self, service: str) -> Any:
        with self._lock:
            client = self._clients.get(service)
            if client is None:
                client = self._session.client(
                    service, config=self._config, endpoint_url=self._endpoint_url
                )
                self._clients[service] = client
            return client

    # -- calls -----------------------------------------------------------------------------

    def call(self, service: str, operation: str, **params: Any) -> dict[str, Any]:
        """One read of an unpaged answer. Raises an AwsAccessError subclass instead of a raw
        botocore error, and refuses to hand back the first page of a longer list."""
        response = self._invoke(service, operation, params)
        more = [key for key in _CONTINUATION_KEYS if response.get(key)]
        if more or response.get("IsTruncated") is True:
            # A partial list judged as whole would be silently wrong (a subnet missing from
            # a truncated route-table list would fall back to the main table): fail loudly.
            raise AwsAccessError(
                service,
                operation,
                f"the answer is paged ({', '.join(more) or 'IsTruncated'}); "
                "it must be read with paginate()",
            )
        if self._recorder is not None:
            self._recorder.record_response(service, operation, params, response)
        return response

    def paginate(self, service: str, operation: str, read: PageRead, **params: Any) -> PagedResult:
        """Read pages until the API is exhausted, `read.cap` items are held or
        `read.max_pages` pages were read (a budget for APIs such as FilterLogEvents that may
        return sparse pages).

        `read.project` reduces each item as its page arrives, before it is held or recorded:
        a Region-wide list (every network interface) keeps only the fields a check counts.
        It must be idempotent, since replay applies it again to the recorded items."""
        result_key, page_size, cap = read.result_key, read.page_size, read.cap
        token_key, size_key, max_pages = read.token_key, read.size_key, read.max_pages
        project = read.project
        items: list[dict[str, Any]] = []
        token: str | None = None
        truncated = False
        stopped_by: StoppedBy = "end"
        last: dict[str, Any] = {}
        pages = 0
        while True:
            request = dict(params)
            request[size_key] = page_size
            if token:
                request[token_key] = token
            last = self._invoke(service, operation, request)
            token = last.get(token_key)
            if token and token == request.get(token_key):
                # The server handed back the token it was given (moto's ListClusterNodes
                # does): it would serve the same page until `cap`. Fail loudly instead.
                raise AwsAccessError(
                    service,
                    operation,
                    f"pagination did not advance (the same {token_key} came back)",
                )
            page = last.get(result_key, [])
            items.extend([project(i) for i in page] if project else page)
            pages += 1
            if len(items) >= cap:
                truncated = len(items) > cap or bool(token)
                stopped_by = "cap" if truncated else "end"
                items = items[:cap]
                break
            if not token:
                break
            if max_pages is not None and pages >= max_pages:
                truncated, stopped_by = True, "pages"
                break
        if not truncated and self._replay_store is not None:
            # The stored list is all replay has; if the live read was cut short (by its cap
            # or its page budget), say so rather than present the list as complete.
            stored = self._replay_store.respond(service, operation, params)
            truncated = stored.paging is not None and stored.paging.truncated
            stopped_by = "cap" if truncated else "end"  # the recording keeps no reason
        if self._recorder is not None:
            whole = {k: v for k, v in last.items() if k != token_key}
            whole[result_key] = items
            self._recorder.record_response(
                service,
                operation,
                params,
                whole,
                paging=Paging(result_key=result_key, token_key=token_key, truncated=truncated),
            )
        return PagedResult(items=items, truncated=truncated, stopped_by=stopped_by)

    def _invoke(self, service: str, operation: str, params: dict[str, Any]) -> dict[str, Any]:
        key = (service, operation)
        if self._out_of_time(service, operation):
            raise self._time_is_up(service, operation, 0)
        # Replay answers each call as recorded (a live run's repeated errors were recorded
        # too): with checks running side by side, which call of an API came first is not
        # fixed, and a replay must not depend on it.
        earlier = None if self.replaying else self._failures.get(key)
        if earlier is not None and time.monotonic() - earlier[0] < FAILURE_COOLDOWN:
            # The same API failed persistently moments ago: repeat that, ask nothing.
            error, status = earlier[1], earlier[2]
            if self._recorder is not None and error.code:
                message = error.detail.removeprefix(f"{error.code}: ").removeprefix(error.code)
                self._recorder.record_error(
                    service, operation, params, code=error.code, message=message, status=status
                )
            raise error.repeated()
        self._local.call, self._local.sent = key, 0
        try:
            result = self._send(service, operation, params)
        except AwsAccessError as exc:
            status = exc.http_status
            persistent = isinstance(exc, Throttled | EndpointUnreachable) or status >= 500
            if persistent and key not in SESSION_OPERATIONS:
                with self._lock:
                    self._failures[key] = (time.monotonic(), exc, status)
            raise
        finally:
            self._local.call = None
        if (service, operation) == ("ssm", "StartSession"):
            # Only a session that was really opened (the call returned) may be ended later.
            session_id = result.get("SessionId")
            if isinstance(session_id, str) and session_id:
                self._sessions.add(session_id)
        return result

    def _send(self, service: str, operation: str, params: dict[str, Any]) -> dict[str, Any]:
        if self._replay_store is not None:
            return self._send_recorded(service, operation, params)
        from botocore import xform_name
        from botocore.exceptions import (
            BotoCoreError,
            ClientError,
            ConfigNotFound,
            ConfigParseError,
            ConnectTimeoutError,
            CredentialRetrievalError,
            EndpointConnectionError,
            InvalidConfigError,
            NoCredentialsError,
            PartialCredentialsError,
            ProfileNotFound,
            ReadTimeoutError,
            RefreshWithMFAUnsupportedError,
            SSOError,
            TokenRetrievalError,
        )

        # Everything that means "these credentials or this profile cannot be used": an
        # expired SSO login, a failing credential_process, a broken ~/.aws/config.
        credential_errors = (
            NoCredentialsError,
            PartialCredentialsError,
            CredentialRetrievalError,
            SSOError,
            TokenRetrievalError,
            RefreshWithMFAUnsupportedError,
            ConfigParseError,
            ConfigNotFound,
            InvalidConfigError,
            ProfileNotFound,
        )
        try:
            client = self.client(service)
            method = getattr(client, xform_name(operation), None)
            if method is None:
                # An operation newer than the installed botocore (ListClusterOperations on
                # an old SDK): skipped with a reason, never an AttributeError in a check.
                import botocore

                raise UnknownOperation(service, operation, f"botocore {botocore.__version__}")
            raw = method(**params)
        except (MutatingOperationRefused, NotRecorded, OutOfTime, UnknownOperation):
            raise
        except ClientError as exc:
            error = exc.response.get("Error", {})
            metadata = exc.response.get("ResponseMetadata", {})
            answer = ErrorAnswer(
                code=str(error.get("Code", "Unknown")),
                message=str(error.get("Message", "")),
                status=int(metadata.get("HTTPStatusCode", 400) or 400),
                attempts=int(metadata.get("RetryAttempts", 0) or 0) + 1,
            )
            raise self._answered_error(service, operation, params, answer) from None
        except credential_errors as exc:
            raise CredentialsMissing(f"{type(exc).__name__}: {exc}") from None
        except (ConnectTimeoutError, ReadTimeoutError) as exc:
            kind = "connect" if isinstance(exc, ConnectTimeoutError) else "read"
            limit = CONNECT_TIMEOUT if kind == "connect" else READ_TIMEOUT
            raise TimedOut(
                service,
                operation,
                f"{kind} timeout of {limit} s",
                attempts=int(getattr(self._local, "sent", 0)) or None,
            ) from None
        except EndpointConnectionError as exc:
            raise EndpointUnreachable(
                service, operation, str(exc), attempts=int(getattr(self._local, "sent", 0)) or None
            ) from None
        except BotoCoreError as exc:
            raise AwsAccessError(service, operation, f"{type(exc).__name__}: {exc}") from None
        result: dict[str, Any] = _jsonable(raw)
        return result

    def _answered_error(
        self, service: str, operation: str, params: dict[str, Any], answer: ErrorAnswer
    ) -> AwsAccessError | CredentialsMissing:
        """The typed error of an error answer (live or recorded), recorded when recording."""
        code, message, status = answer.code, answer.message, answer.status
        if self._recorder is not None:
            self._recorder.record_error(
                service, operation, params, code=code, message=message, status=status
            )
        if code in CREDENTIAL_CODES:
            # Expired or invalid credentials fail every call: stop, don't skip each check.
            return CredentialsMissing(f"{iam_action(service, operation)}: {code}: {message}")
        classified = _classify(service, operation, code, message, answer.attempts)
        classified.http_status = status
        return classified

    def _send_recorded(
        self, service: str, operation: str, params: dict[str, Any]
    ) -> dict[str, Any]:
        """One call answered from the replay store, without botocore: loading the SDK and
        one service model per client would cost a small replay most of its time.

        Replay keeps what a live call does before and after the network: the same guard
        (allow-list, then the session parameter guard) refuses the call first; the answer
        is the recorded one, paged as the API pages it; the one botocore after-call handler
        that changes an answer of an allow-listed read (IAM's policy documents) is applied
        as botocore applies it; a recorded error becomes the same typed error as a live
        one. What replay does not do is validate the parameters against botocore's model
        (a live call would); `validate_replayed_parameters` turns that on, and the test
        suite runs with it."""
        if not is_allowed(service, operation):
            raise MutatingOperationRefused(service, operation)
        reason = refusal(service, operation, params, self._sessions)
        if reason is not None:
            raise MutatingOperationRefused(service, operation, reason)
        if validate_replayed_parameters:
            _validate_parameters(service, operation, params)
        from tools.recorded.replay import page_call

        assert self._replay_store is not None
        if self._replay_latency:
            time.sleep(self._replay_latency)
        call = page_call(self._replay_store.respond(service, operation, params), params)
        if call.error is not None:
            # As the botocore client path answered a recorded error: one attempt, and no
            # HTTP metadata, so status 400 whatever was recorded. Replay never uses the
            # status (its errors are not cooled down); a recorder attached to a replay
            # (the simulator's) writes it, and the bundled recordings hold 400.
            answer = ErrorAnswer(call.error.code, call.error.message, 400, attempts=1)
            raise self._answered_error(service, operation, params, answer)
        # _jsonable builds fresh containers: no check can change the recording's answer.
        response: dict[str, Any] = _jsonable(call.response or {})
        if service == "iam":
            _decode_policy_documents(response, _IAM_POLICY_DOCUMENTS.get(operation, ()))
        return response


# Where the allow-listed IAM reads answer a policy document (botocore's `policyDocumentType`
# string members of their output shapes): botocore's after-call handler
# (botocore/handlers.py, json_decode_policies) URL-decodes and parses each one that is a
# string. tests/aws/test_replay_without_botocore.py holds this table to botocore's models.
_IAM_POLICY_DOCUMENTS: dict[str, tuple[tuple[str, ...], ...]] = {
    "GetRolePolicy": (("PolicyDocument",),),
    "GetPolicyVersion": (("PolicyVersion", "Document"),),
}

# Replay validates each call's parameters against botocore's model when this is true (the
# test suite turns it on in tests/conftest.py): a check that would send a malformed request
# live fails its replays too. Off by default: loading the models is what replay avoids.
validate_replayed_parameters = False
_models_lock = threading.Lock()
_input_shapes: dict[tuple[str, str], Any] = {}


def _validate_parameters(service: str, operation: str, params: dict[str, Any]) -> None:
    """botocore's own parameter validation of one call (ParamValidationError becomes an
    AwsAccessError, as it does live)."""
    from botocore.exceptions import ParamValidationError
    from botocore.validate import ParamValidator

    with _models_lock:
        shape = _input_shapes.get((service, operation))
        if shape is None:
            import botocore.session

            model = botocore.session.get_session().get_service_model(service)
            shape = model.operation_model(operation).input_shape
            _input_shapes[(service, operation)] = shape
    if shape is None:  # an operation without input, as botocore's serializer skips it
        return
    report = ParamValidator().validate(params, shape)
    if report.has_errors():
        error = ParamValidationError(report=report.generate_report())
        raise AwsAccessError(service, operation, f"{type(error).__name__}: {error}")


def _decode_policy_documents(answer: dict[str, Any], paths: tuple[tuple[str, ...], ...]) -> None:
    """As botocore's decode_quoted_jsondoc: a policy document that is a string is replaced
    by the JSON it URL-decodes to, when it parses; a recorded (already decoded) one stays."""
    for path in paths:
        holder: Any = answer
        for key in path[:-1]:
            holder = holder.get(key) if isinstance(holder, dict) else None
        if not isinstance(holder, dict) or not isinstance(holder.get(path[-1]), str):
            continue
        with contextlib.suppress(ValueError, TypeError):
            holder[path[-1]] = json.loads(unquote(holder[path[-1]]))


def _encode_policy_documents(parsed: Any, shape: Any) -> Any:
    """Put IAM policy documents back into their wire form (URL-encoded JSON) for replay.

    botocore's after-call handler decodes every `policyDocumentType` string into a dict and
    fails on a value that is already one; recordings hold the decoded dicts.
    """
    if shape is None or not isinstance(parsed, dict | list):
        return parsed
    if shape.type_name == "structure" and isinstance(parsed, dict):
        for name, member in shape.members.items():
            if name not in parsed:
                continue
            if member.type_name == "string" and member.name == "policyDocumentType":
                if isinstance(parsed[name], dict):
                    parsed[name] = quote(json.dumps(parsed[name]))
            else:
                parsed[name] = _encode_policy_documents(parsed[name], member)
    elif shape.type_name == "list" and isinstance(parsed, list):
        return [_encode_policy_documents(item, shape.member) for item in parsed]
    return parsed


def _classify(
    service: str, operation: str, code: str, message: str, attempts: int = 1
) -> AwsAccessError:
    detail = f"{code}: {message}" if message else code
    if code in ACCESS_DENIED_CODES:
        return AccessDenied(service, operation, detail, code=code)
    if code in THROTTLING_CODES:
        return Throttled(service, operation, detail, attempts=attempts, code=code)
    if code in NOT_FOUND_CODES or code.endswith("NotFound") or code.endswith(".NotFound"):
        return ResourceNotFound(service, operation, detail, code=code)
    return AwsAccessError(service, operation, detail, attempts=attempts, code=code)


def check_endpoint_settings(endpoint_url: str | None, session: Any) -> None:
    """Refuse an endpoint URL botocore could not use, naming where it was set: the explicit
    `endpoint_url`, AWS_ENDPOINT_URL / AWS_ENDPOINT_URL_<SERVICE> (unless
    AWS_IGNORE_CONFIGURED_ENDPOINT_URLS / ignore_configured_endpoint_urls is true) or the
    profile's endpoint_url. Raises EndpointSettingError (a bad argument)."""
    from botocore.utils import ensure_boolean

    settings: list[tuple[str, str]] = []
    if endpoint_url is not None:
        settings.append(("the endpoint URL", endpoint_url))
    if not ensure_boolean(session.get_config_variable("ignore_configured_endpoint_urls")):
        settings.extend(
            (name, value)
            for name, value in sorted(os.environ.items())
            if (name == "AWS_ENDPOINT_URL" or name.startswith("AWS_ENDPOINT_URL_")) and value
        )
        configured = session.get_scoped_config().get("endpoint_url")
        if isinstance(configured, str) and configured:
            settings.append(("endpoint_url in the AWS profile", configured))
    for where, value in settings:
        if not _usable_endpoint(value):
            shown = value if len(value) <= 120 else value[:120] + "…"
            raise EndpointSettingError(
                f"{where} is not a valid endpoint URL: {shown!r} "
                "(expected http:// or https:// and a host name, e.g. https://localhost:4566)"
            )


def _usable_endpoint(value: str) -> bool:
    from urllib.parse import urlsplit

    from botocore.utils import is_valid_endpoint_url, is_valid_ipv6_endpoint_url

    try:
        parts = urlsplit(value)
        _ = parts.port  # raises ValueError on a port out of range or not a number
        if parts.scheme not in ("http", "https"):
            return False
        return bool(is_valid_endpoint_url(value) or is_valid_ipv6_endpoint_url(value))
    except ValueError:
        return False
