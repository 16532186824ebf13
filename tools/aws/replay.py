"""Replay's answerer: each AWS call of a replayed run answered from the recording, without
botocore. Importing the SDK and loading one service model per client would cost a small
replay most of its time.

Replay keeps what a live call does before and after the network: the same guard
(tools/aws/guard.py: the allow-list, then the session parameter rule) refuses the call
first; the answer is the recorded one, paged as the API pages it; the one botocore
after-call handler that changes an answer of an allow-listed read (IAM's policy documents)
is applied as botocore applies it; a recorded error comes back as an `ErrorAnswer`, which
the access layer turns into the same typed error as a live one. What replay does not do is
validate the parameters against botocore's model (a live call would);
`validate_replayed_parameters` turns that on, and the test suite runs with it.

Everything above the answer (the time budget, paging, recording) stays in
tools/aws/session.py and is shared with a live run.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Container
from typing import Any
from urllib.parse import unquote

from tools.aws.answers import ErrorAnswer, jsonable
from tools.aws.errors import AwsAccessError
from tools.aws.guard import guard_call
from tools.recorded.model import RecordedCall
from tools.recorded.replay import Responder, page_call

# Replay validates each call's parameters against botocore's model when this is true (the
# test suite turns it on in tests/conftest.py): a check that would send a malformed request
# live fails its replays too. Off by default: loading the models is what replay avoids.
validate_replayed_parameters = False
_models_lock = threading.Lock()
_input_shapes: dict[tuple[str, str], Any] = {}

# Where the allow-listed IAM reads answer a policy document (botocore's `policyDocumentType`
# string members of their output shapes): botocore's after-call handler
# (botocore/handlers.py, json_decode_policies) URL-decodes and parses each one that is a
# string. tests/aws/test_replay_without_botocore.py holds this table to botocore's models.
IAM_POLICY_DOCUMENTS: dict[str, tuple[tuple[str, ...], ...]] = {
    "GetRolePolicy": (("PolicyDocument",),),
    "GetPolicyVersion": (("PolicyVersion", "Document"),),
}


class RecordedAnswers:
    """Answers calls from `store`, after the guard; `started` holds the SessionIds this run
    opened (the guard's TerminateSession rule). `latency` is waited before each answer, as
    a network round trip would be (`AwsAccess.pace_replay`)."""

    def __init__(self, store: Responder, started: Container[str]) -> None:
        self.store = store
        self.latency = 0.0
        self._started = started

    def answer(
        self, service: str, operation: str, params: dict[str, Any]
    ) -> dict[str, Any] | ErrorAnswer:
        """The recorded answer of one call, as the botocore client path would hand it over,
        or the recorded error. Raises MutatingOperationRefused (the guard), NotRecorded,
        or AwsAccessError (invalid parameters, when validated)."""
        guard_call(service, operation, params, self._started)
        if validate_replayed_parameters:
            _validate_parameters(service, operation, params)
        call = self.recorded_page(service, operation, params)
        if call.error is not None:
            # As the botocore client path answered a recorded error: one attempt, and no
            # HTTP metadata, so status 400 whatever was recorded. Replay never uses the
            # status (its errors are not cooled down); a recorder attached to a replay
            # (the simulator's) writes it, and the bundled recordings hold 400.
            return ErrorAnswer(call.error.code, call.error.message, 400, attempts=1)
        # jsonable builds fresh containers: no check can change the recording's answer.
        response: dict[str, Any] = jsonable(call.response or {})
        if service == "iam":
            _decode_policy_documents(response, IAM_POLICY_DOCUMENTS.get(operation, ()))
        return response

    def recorded_page(self, service: str, operation: str, params: dict[str, Any]) -> RecordedCall:
        """The stored call cut to the page `params` asks for, after the paced wait. The
        recording's own objects: whoever hands them on copies them first."""
        if self.latency:
            time.sleep(self.latency)
        return page_call(self.store.respond(service, operation, params), params)


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
