"""Keep secrets out of recordings and reports.

Recordings redact by key name and by value; reports quote cluster text (log lines, status
messages) through `redact_text`, so an access key pasted into a log never reaches a
finding, a JSON report or a model prompt.
"""

from __future__ import annotations

import re
from typing import Any

REDACTED = "<redacted>"
MASKED_ACCOUNT = "111122223333"

_SECRET_KEYS = re.compile(
    r"(secret|password|passwd|token|credential|session[_-]?key|private[_-]?key|"
    r"access[_-]?key|auth(orization)?$|certificate[_-]?authority|kubeconfig)",
    re.IGNORECASE,
)
# Keys whose name looks secret but whose value is needed to replay faithfully.
_KEEP_KEYS = frozenset({"NextToken", "nextToken", "TokenKey"})
# A key names a secret when it ENDS in one of these words (optionally _id/_key/_value):
# "client_secret", "AWS_SESSION_TOKEN", "SecretAccessKey" — but not "secretsmanager",
# "tokenizer" or "token_expiry".
_WORD = (
    r"(?:token|password|passwd|secret|api[_-]?key|access[_-]?key|private[_-]?key|secretaccesskey)"
)
_KEY_END = rf"{_WORD}(?:[_-]?(?:id|key|value))?"
_VALUE = r"""(?:'[^'\n]*'|"[^"\n]*"|[^\s"',;}]+)"""
# (pattern, replacement): key names stay visible so a reader knows what was removed.
_SECRET_VALUES: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----"),
        REDACTED,
    ),
    # "SecretAccessKey": "...", "Token" : "..." — plain or escaped JSON
    (
        re.compile(rf'(?i)((\\?)"[\w.-]*{_KEY_END}\2"\s*:\s*\2")(?:[^"\\]|\\[^"])*'),
        rf"\g<1>{REDACTED}",
    ),
    # AWS_SESSION_TOKEN=..., client_secret = '...' (env and config style, any key ending so)
    (re.compile(rf"(?i)(\b[\w.-]*{_KEY_END}\s*=\s*){_VALUE}"), rf"\g<1>{REDACTED}"),
    # db_password: ..., password: ... (YAML style): compound keys, or the bare words
    # password/passwd/secret; a bare "token:" is too often prose ("failed to get token: ...").
    (
        re.compile(rf"(?i)(\b(?:[\w.-]+[_-]{_KEY_END}|password|passwd|secret)\s*:\s+){_VALUE}"),
        rf"\g<1>{REDACTED}",
    ),
    # --password hunter2, --token=abc, docker login -p ..., aws configure set <secret key> v
    (re.compile(rf"(?i)(--[\w-]*{_KEY_END}[ =])\S+"), rf"\g<1>{REDACTED}"),
    (re.compile(r"(?i)(\bdocker\s+login\b[^\n]*?\s-p\s+)\S+"), rf"\g<1>{REDACTED}"),
    (
        re.compile(rf"(?i)(\baws\s+configure\s+set\s+\S*{_WORD}\S*\s+)\S+"),
        rf"\g<1>{REDACTED}",
    ),
    (re.compile(r"(?i)(\bauthorization\s*[:=]\s*(?:bearer|basic)\s+)\S+"), rf"\g<1>{REDACTED}"),
    # user:password@host in URLs
    (re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^/\s:@]+:)[^/\s@]+@"), rf"\g<1>{REDACTED}@"),
    (re.compile(r"\b(AKIA|ASIA)[A-Z0-9]{16}\b"), REDACTED),
    (re.compile(r"\bk8s-aws-v1\.[A-Za-z0-9_\-]+"), REDACTED),
    (re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+"), REDACTED),  # JWT
    (re.compile(r"\b(hf|gh[pousr]|glpat|xox[abprs])[_-][A-Za-z0-9_-]{16,}"), REDACTED),
)
_ACCOUNT_IN_ARN = re.compile(r"(arn:aws[a-z-]*:[a-z0-9-]*:[a-z0-9-]*:)(\d{12})(:)")
_BARE_ACCOUNT = re.compile(r"\b\d{12}\b")


def redact_text(text: str, *, mask_account: bool = False) -> str:
    """Replace secret-looking values in free text; optionally mask account ids."""
    for pattern, replacement in _SECRET_VALUES:
        text = pattern.sub(replacement, text)
    if mask_account:
        text = _ACCOUNT_IN_ARN.sub(rf"\g<1>{MASKED_ACCOUNT}\g<3>", text)
        text = _BARE_ACCOUNT.sub(MASKED_ACCOUNT, text)
    return text


def redact(value: Any, *, mask_account: bool = False) -> Any:
    """Remove credentials, tokens and secret values from a JSON-like structure."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if key not in _KEEP_KEYS and _SECRET_KEYS.search(str(key)) and item not in (None, ""):
                out[key] = REDACTED
            else:
                out[key] = redact(item, mask_account=mask_account)
        return out
    if isinstance(value, list):
        return [redact(item, mask_account=mask_account) for item in value]
    if isinstance(value, str):
        return redact_text(value, mask_account=mask_account)
    return value
