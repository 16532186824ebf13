"""Secrets never reach a recording or a report."""

from __future__ import annotations

from tools.checks._text import clip, quoted
from tools.redaction import REDACTED, redact, redact_text


def test_access_keys_and_secrets_in_free_text_are_redacted() -> None:
    line = (
        "export AWS_ACCESS_KEY_ID=AKIAABCDEFGHIJKLMNOP aws_secret_access_key=wJalrXUtnFEMI/K7MDENG "
        "token k8s-aws-v1.aHR0cHM6Ly9zdHMu password: hunter2"
    )
    cleaned = redact_text(line)
    for secret in ("AKIAABCDEFGHIJKLMNOP", "wJalrXUtnFEMI", "aHR0cHM6Ly9zdHMu", "hunter2"):
        assert secret not in cleaned
    assert cleaned.count(REDACTED) == 4


def test_quoted_log_text_in_findings_is_redacted_and_clipped() -> None:
    text = "curl failed with key ASIAABCDEFGHIJKLMNOP\r\n" + "x" * 500
    out = quoted(text)
    assert "ASIAABCDEFGHIJKLMNOP" not in out
    assert "\\r" in out
    assert len(clip(text)) <= 200


def test_structures_redact_by_key_but_keep_paging_tokens() -> None:
    data = {
        "Credentials": {"SecretAccessKey": "abc", "SessionToken": "def"},
        "NextToken": "page-2",
        "Arn": "arn:aws:iam::123456789012:role/x",
    }
    out = redact(data, mask_account=True)
    assert out["Credentials"] == REDACTED
    assert out["NextToken"] == "page-2"
    assert out["Arn"] == "arn:aws:iam::111122223333:role/x"


def test_ordinary_text_is_untouched() -> None:
    line = "Lifecycle scripts completed successfully on i-0123456789abcdef0"
    assert redact_text(line) == line
