"""One guarded boto3 session per run: lazy cached clients, bounded retries, typed errors.

The guard is registered on the session's event emitter before any client exists (clients
copy the emitter when they are created), so every operation of every client passes it
before its request is built. Recording hooks into the same clients.

Replay answers from the recording without botocore (tools/aws/replay.py): importing the
SDK and loading a service model per client was most of a small replayed triage's time.
Everything above the answer is shared with a live run (the time budget, paging, the typed
errors), and replay applies the same guard first (tools/aws/guard.py), so a recording
exercises the allow-list and the session guard as a live run does. A client asked for by
hand during a replay is still a guarded botocore client answered from the recording.

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

import copy
import json
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import quote

from tools.aws.allowlist import SESSION_OPERATIONS
from tools.aws.answers import ErrorAnswer, jsonable, typed_error
from tools.aws.errors import (
    AwsAccessError,
    CredentialsMissing,
    EndpointSettingError,
    EndpointUnreachable,
    MutatingOperationRefused,
    NotRecorded,
    OutOfTime,
    Throttled,
    TimedOut,
    UnknownOperation,
)
from tools.aws.guard import guard_call
from tools.aws.ssm_guard import StartedSessions
from tools.recorded.model import Paging

if TYPE_CHECKING:
    from tools.aws.replay import RecordedAnswers
    from tools.recorded.model import RecordedCluster
    from tools.recorded.recorder import Recorder
    from tools.recorded.replay import RecordingGaps, Responder

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
            from tools.aws.replay import RecordedAnswers
            from tools.recorded.model import RecordedCluster
            from tools.recorded.replay import ReplayStore

            store = ReplayStore(replay) if isinstance(replay, RecordedCluster) else replay
            # A replay answers from the recording without botocore (tools/aws/replay.py):
            # its session and clients are only built if something asks for a client.
            self._recorded: RecordedAnswers | None = RecordedAnswers(store, self._sessions)
            return
        import boto3
        import botocore.session
        from botocore.exceptions import ConfigParseError, ProfileNotFound

        from tools.aws import credentials

        self._recorded = None
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
        if self._recorded is not None:
            events.register_first("before-call", self._serve_recorded)
        self._boto_session = session

    def recording_gaps(self) -> RecordingGaps | None:
        """What a replay of a recorded cluster asked for and did not find (None: nothing
        missing, or not a replay of a recording)."""
        from tools.recorded.replay import ReplayStore

        store = self._recorded.store if self._recorded is not None else None
        return store.gaps() if isinstance(store, ReplayStore) else None

    def pace_replay(self, seconds: float) -> None:
        """Wait `seconds` before each replayed answer, as a network round trip would: it
        lets the overlap of a live triage be measured on a recording
        (`--simulate-latency`)."""
        if self._recorded is not None:
            self._recorded.latency = max(0.0, seconds)

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
        guard_call(model.service_model.service_name, model.name, params, self._sessions)
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

        assert self._recorded is not None
        params = context.get(_CONTEXT_PARAMS, {})
        call = self._recorded.recorded_page(model.service_model.service_name, model.name, params)
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
            # _send copies the whole answer into fresh containers (jsonable) before any
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
        if not truncated and self._recorded is not None:
            # The stored list is all replay has; if the live read was cut short (by its cap
            # or its page budget), say so rather than present the list as complete.
            stored = self._recorded.store.respond(service, operation, params)
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
        if self._recorded is not None:
            answered = self._recorded.answer(service, operation, params)
            if isinstance(answered, ErrorAnswer):
                raise self._answered_error(service, operation, params, answered)
            return answered
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
        result: dict[str, Any] = jsonable(raw)
        return result

    def _answered_error(
        self, service: str, operation: str, params: dict[str, Any], answer: ErrorAnswer
    ) -> AwsAccessError | CredentialsMissing:
        """The typed error of an error answer (live or recorded), recorded when recording."""
        if self._recorder is not None:
            self._recorder.record_error(
                service,
                operation,
                params,
                code=answer.code,
                message=answer.message,
                status=answer.status,
            )
        return typed_error(service, operation, answer)


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
