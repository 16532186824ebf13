"""Credentials for the guarded session, obtained by botocore's own providers on a separate
session that may only obtain credentials.

botocore's credential providers (a role profile's `role_arn` with `source_profile` or
`credential_source`, web identity, IAM Identity Center with or without an `sso_session`,
`aws login`) build their STS / SSO / SSO-OIDC / sign-in clients from the session whose
credentials they resolve. On the guarded session the read-only guard would refuse those
calls, so the guarded session resolves nothing itself:

* `credential_session()` builds a second botocore session for the same profile. It runs
  botocore's standard provider chain unchanged (environment, role profiles, web identity,
  SSO, `credential_process`, container and instance roles) and carries a guard of its
  own that lets through exactly `CREDENTIAL_OPERATIONS` and refuses everything else.
  Nothing but the provider below ever holds it: no tool, check or agent path can reach a
  client of it.
* `install()` replaces the guarded session's credential provider with one that hands out
  the credentials this session resolved, and its bearer-token provider with an empty one,
  so the guarded session never creates a client of its own to obtain anything. Refreshable
  credentials (an assumed role, SSO, a `credential_process` with an expiry) refresh
  through the same providers, hence through the credential session, for as long as a
  triage runs.

The read-only allow-list is not widened: sts:AssumeRole and the rest stay refused on the
guarded session, whoever asks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from botocore.credentials import Credentials

from tools.aws.allowlist import CREDENTIAL_OPERATIONS, iam_action
from tools.aws.errors import CredentialsThrottled, MutatingOperationRefused

T = TypeVar("T")

_THROTTLING = frozenset(
    {"Throttling", "ThrottlingException", "TooManyRequestsException", "RequestLimitExceeded"}
)


def credential_session(profile: str | None, config: Any) -> Any:
    """A botocore session for `profile` that may send only the credential operations."""
    import botocore.session

    session = botocore.session.Session(profile=profile)
    session.set_default_client_config(config)
    session.get_component("event_emitter").register_first(
        "before-parameter-build", _only_credential_operations
    )
    return session


def _only_credential_operations(model: Any, **_: Any) -> None:
    service = model.service_model.service_name
    if (service, model.name) not in CREDENTIAL_OPERATIONS:
        raise MutatingOperationRefused(
            service, model.name, "the credential session only obtains credentials"
        )


def install(guarded: Any, resolver: Any, region: str) -> None:
    """Make the guarded botocore session take its credentials from `resolver` (a
    credential_session) and never load a bearer token itself."""
    from botocore.credentials import CredentialResolver
    from botocore.tokens import TokenProviderChain

    guarded.register_component(
        "credential_provider", CredentialResolver([_ResolvedProvider(resolver, region)])
    )
    guarded.register_component("token_provider", TokenProviderChain(providers=[]))


def _translated(action: Callable[[], T]) -> T:
    """Run a credential load or refresh; what a provider lets escape becomes a botocore
    credential error (or CredentialsThrottled), never a raw ValueError or ClientError."""
    from botocore.exceptions import BotoCoreError, ClientError, CredentialRetrievalError

    try:
        return action()
    except BotoCoreError:
        raise
    except ClientError as exc:
        error = exc.response.get("Error", {})
        code = str(error.get("Code", "Unknown"))
        operation = str(getattr(exc, "operation_name", "") or "")
        service = next((s for s, o in CREDENTIAL_OPERATIONS if o == operation), "sts")
        name = iam_action(service, operation) if operation else "obtaining credentials"
        if code in _THROTTLING:
            raise CredentialsThrottled(name, code) from None
        message = str(error.get("Message", ""))
        raise CredentialRetrievalError(
            provider="profile", error_msg=f"{name}: {code}: {message}"
        ) from None
    except (ValueError, TypeError, KeyError, AttributeError, OSError, RuntimeError) as exc:
        # A credential_process that prints something other than a JSON object, or cannot
        # be started; a cached token file that is not what botocore expects.
        detail = _why(exc)
        raise CredentialRetrievalError(provider="profile", error_msg=detail) from None


def _why(exc: Exception) -> str:
    import json

    if isinstance(exc, json.JSONDecodeError):
        return f"the credential source did not print JSON ({exc.msg} at line {exc.lineno})"
    if isinstance(exc, OSError):
        return f"cannot run the credential source: {exc.strerror or type(exc).__name__}"
    if isinstance(exc, AttributeError | TypeError | KeyError):
        return f"the credential source printed JSON of an unexpected shape ({type(exc).__name__})"
    return f"{type(exc).__name__}: {str(exc)[:200]}"


class _ResolvedProvider:
    """A credential provider for the guarded session: botocore's default chain, run on the
    credential session (the STS client of an assumed role takes `region`)."""

    METHOD = "hyperpod-debug-credential-session"
    CANONICAL_NAME = None

    def __init__(self, resolver: Any, region: str) -> None:
        self._resolver = resolver
        self._region = region

    def load(self) -> Any:
        from botocore.credentials import create_credential_resolver

        chain = create_credential_resolver(self._resolver, region_name=self._region)
        credentials = _translated(chain.load_credentials)
        if credentials is None:
            return None
        return _ProviderCredentials(credentials)


class _ProviderCredentials(Credentials):  # type: ignore[misc]
    """The credentials a provider handed out, refreshed by that provider when due; any
    refresh failure comes out as a credential error (see `_translated`)."""

    def __init__(self, inner: Any) -> None:  # no super().__init__: nothing is stored here
        self._inner = inner
        self.method = inner.method

    def get_frozen_credentials(self) -> Any:
        return _translated(self._inner.get_frozen_credentials)

    @property
    def access_key(self) -> Any:
        return self.get_frozen_credentials().access_key

    @property
    def secret_key(self) -> Any:
        return self.get_frozen_credentials().secret_key

    @property
    def token(self) -> Any:
        return self.get_frozen_credentials().token

    @property
    def account_id(self) -> Any:
        return self.get_frozen_credentials().account_id

    def get_deferred_property(self, property_name: str) -> Callable[[], Any]:
        return lambda: getattr(self.get_frozen_credentials(), property_name, None)
