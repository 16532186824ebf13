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
    (re.compile(r"\bsk-ant-[A-Za-z0-9_-]{16,}"), REDACTED),  # Anthropic API keys
)
_ACCOUNT_IN_ARN = re.compile(r"(arn:aws[a-z-]*:[a-z0-9-]*:[a-z0-9-]*:)(\d{12})(:)")
_BARE_ACCOUNT = re.compile(r"\b\d{12}\b")


# Example account ids from the AWS documentation, handed out in order of first sight.
_FAKE_ACCOUNTS = ("111122223333", "444455556666", "777788889999")


class AccountMasker:
    """Maps every real account id to its own fake one, consistently across a recording,
    so a cross-account reference (an EKS cluster in another account) stays cross-account."""

    def __init__(self) -> None:
        self._fakes: dict[str, str] = {}

    def fake(self, account: str) -> str:
        if account in _FAKE_ACCOUNTS:
            return account
        if account not in self._fakes:
            index = len(self._fakes)
            self._fakes[account] = (
                _FAKE_ACCOUNTS[index] if index < len(_FAKE_ACCOUNTS) else f"{900000000000 + index}"
            )
        return self._fakes[account]

    def mask(self, text: str) -> str:
        text = _ACCOUNT_IN_ARN.sub(
            lambda m: f"{m.group(1)}{self.fake(m.group(2))}{m.group(3)}", text
        )
        return _BARE_ACCOUNT.sub(lambda m: self.fake(m.group(0)), text)


Masking = bool | AccountMasker


def _masker(mask_account: Masking) -> AccountMasker | None:
    if isinstance(mask_account, AccountMasker):
        return mask_account
    return AccountMasker() if mask_account else None


def redact_text(text: str, *, mask_account: Masking = False) -> str:
    """Replace secret-looking values in free text; optionally mask account ids."""
    for pattern, replacement in _SECRET_VALUES:
        text = pattern.sub(replacement, text)
    masker = _masker(mask_account)
    return masker.mask(text) if masker is not None else text


def redact(value: Any, *, mask_account: Masking = False) -> Any:
    """Remove credentials, tokens and secret values from a JSON-like structure.

    Pass one `AccountMasker` for a whole recording so each account keeps its own fake id.
    """
    masker = _masker(mask_account)
    mask: Masking = masker if masker is not None else False
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if key not in _KEEP_KEYS and _SECRET_KEYS.search(str(key)) and item not in (None, ""):
                out[key] = REDACTED
            else:
                out[key] = redact(item, mask_account=mask)
        return out
    if isinstance(value, list):
        return [redact(item, mask_account=mask) for item in value]
    if isinstance(value, str):
        return redact_text(value, mask_account=mask)
    return value
