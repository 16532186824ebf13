"""Keep secrets out of recordings and reports.

Recordings redact by key name and by value; reports quote cluster text (log lines, status
messages) through `redact_text`, so an access key pasted into a log never reaches a
finding, a JSON report or a model prompt.

Every step runs in time linear in the length of its input, whatever the input: cluster
text is hostile or simply huge (a 40 KB status message), and Python's `re` backtracks.
The rules that keep the patterns linear:

* a repeated class never starts at every position of a run it can scan: a pattern starts
  at a literal (`://`, `bearer`, a key word) or behind a look-behind that the repeated class
  cannot satisfy (`(?<![\\w-])--[\\w-]*`), so each character is scanned from O(1) starts;
* where a scan may fail after running far (a lazy `.*?` up to a flag), it is bounded
  (`[^\\n]{0,256}?`);
* what a regular expression cannot do in one pass (pairing PEM markers, "a key word nearby")
  is a small scanner or a check on the match;
* before any step, `may_hold_secret` searches the steps' triggers (literals, key words and
  one base64 run that starts only where a run starts) and a text holding none is returned
  as it is: a trigger is a part of the text every match of its step must contain.

`scripts/bench_redaction.py` measures each step on adversarial inputs built from the
`fragments` declared next to it; tests/core/test_redaction_linear.py checks correctness on
the same inputs.

What counts as a secret (and what does not) is documented at each step. Two judgement calls:

* a bare 40-character token of the AWS secret-key alphabet (`[A-Za-z0-9/+]`) is redacted when
  it mixes upper case, lower case and a digit or `/` `+` (a random key does with certainty
  ~0.999); a 40-character hexadecimal token (a git commit, a checksum) is kept unless a
  secret key word precedes it closely ("secret", "SecretAccessKey", "password" …);
* prose ("the password is X", "密码是 X") redacts X unless X is a word that describes the
  password instead of being it ("incorrect", "expired", "错误" …).
"""

from __future__ import annotations

import base64
import binascii
import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

REDACTED = "<redacted>"
MASKED_ACCOUNT = "111122223333"

_SECRET_KEYS = re.compile(
    r"(secret|password|passwd|passphrase|token|credential|session[_-]?key|private[_-]?key|"
    r"access[_-]?key|account[_-]?key|api[_-]?key|[_-](?:key|pat|pass|pwd|pw)$|auth(orization)?$|"
    r"authtok|storage[_-]?pass|cookie|certificate[_-]?authority|kubeconfig)",
    re.IGNORECASE,
)
# Keys whose name looks secret but whose value is needed to replay faithfully.
_KEEP_KEYS = frozenset({"NextToken", "nextToken", "TokenKey"})

# A name (variable, key, flag) names a secret when it ENDS in one of these words (optionally
# _id/_key/_value): "client_secret", "AWS_SESSION_TOKEN", "SecretAccessKey" — but not
# "secretsmanager", "tokenizer" or "token_expiry".
# "authtok" is sssd's ldap_default_authtok; "account key" an Azure storage key
# (`AccountKey=` in a connection string).
_WORD = (
    r"(?:token|password|passwd|passphrase|secret|api[_-]?key|access[_-]?key|private[_-]?key"
    r"|secretaccesskey|authtok|account[_-]?key)"
)
_KEY_END = rf"{_WORD}(?:[_-]?(?:id|key|value))?"
# ... or in a separated short word: GITLAB_PAT, OPENAI_KEY, DB_PASS, db-pwd, SLURM_DB_PW
# (KMS_KEY_ID, a key's id, is not a secret); or it holds "password" anywhere:
# MYSQL_ROOT_PASSWORD_PROD; or it is slurmdbd.conf's StoragePass (AccountingStoragePass in
# slurm.conf).
_NAME_END = (
    rf"(?:{_KEY_END}|[_-](?:key|pat|pass|pwd|pw)|pass(?:word|wd)[\w-]{{0,32}}|storage[_-]?pass)"
)
_SECRET_NAME = re.compile(rf"(?i)(?:{_NAME_END})$|pass(?:word|wd)")
_VALUE = r"""(?:'[^'\n]*'|"[^"\n]*"|[^\s"',;}]+)"""
_B64 = "A-Za-z0-9+/"


# -- steps -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Trigger:
    """What a text must hold for a step to change it: a match of `pattern` (case-sensitive),
    one of `words` in any case (lower-case ASCII words, matched as the steps' `(?i)` does), or
    a run of `run` or more characters of the base64 alphabet. Any one of them that is set.

    It is a necessary condition, never a guess: every match of the step's pattern contains a
    match of its trigger, under the same case rules."""

    pattern: str = ""
    words: tuple[str, ...] = ()
    run: int = 0

    @functools.cached_property
    def _compiled(self) -> re.Pattern[str]:
        parts = [self.pattern] if self.pattern else []
        if self.words:
            parts.append(f"(?i:{'|'.join(self.words)})")
        if self.run:
            parts.append(f"(?<![{_B64}])[{_B64}]{{{self.run}}}")
        return re.compile("|".join(f"(?:{part})" for part in parts))

    def found_in(self, text: str) -> bool:
        return self._compiled.search(text) is not None


@dataclass(frozen=True)
class Step:
    """One redaction pass. `fragments` are the pieces an adversarial input for this step is
    built from (its literals and the characters its repeated classes scan): the benchmark
    and the property tests repeat them to 40-400 KB. `trigger` is what a text must hold for
    the step to change it; `redact_text` looks for all steps' triggers first."""

    name: str
    apply: Callable[[str], str]
    fragments: tuple[str, ...]
    trigger: Trigger


def _sub(pattern: str, replacement: str | Callable[[re.Match[str]], str]) -> Callable[[str], str]:
    compiled = re.compile(pattern)

    def apply(text: str) -> str:
        return compiled.sub(replacement, text)

    return apply


# PEM private keys. Markers are found in one pass and paired in order; a block whose END is
# missing (a message clipped before redaction, truncated probe output) is removed to the end
# of the text, an END without its BEGIN (a log tail that starts inside the key) from the
# start of the text. Certificates (public) are kept.
_PEM_MARKER = re.compile(
    r"(?<!-)-{3,}\s?(BEGIN|END) (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?\s?-{3,}"
)
# A marker cut inside itself at the very end of a text: "…-----BEGIN RSA PRIV".
_PEM_CUT_BEGIN = re.compile(r"-{3,}\s?BEGIN(?: [A-Z0-9]{0,20}){0,4}\Z")


def strip_private_keys(text: str) -> str:
    if "PRIVATE" not in text and "BEGIN" not in text:
        return text
    kept: list[str] = []
    position = 0  # start of the text not yet copied
    opened: int | None = None
    for marker in _PEM_MARKER.finditer(text):
        if marker.group(1) == "BEGIN":
            if opened is None:
                kept.append(text[position : marker.start()])
                opened = marker.start()
            continue
        if opened is None:  # END without BEGIN: everything before it may be key body
            kept = []
        kept.append(REDACTED)
        position = marker.end()
        opened = None
    if opened is not None:
        return "".join(kept) + REDACTED
    rest = text[position:]
    tail = rest[-120:]  # bounded: a search over a long run of dashes would be quadratic
    cut = _PEM_CUT_BEGIN.search(tail) if "BEGIN" in tail else None
    if cut is not None:
        rest = rest[: len(rest) - len(tail) + cut.start()] + REDACTED
    return "".join(kept) + rest


def _pem_body_line(match: re.Match[str]) -> str:
    """A line of 60-76 base64 characters, as in a PEM or OpenSSH key body: redacted unless
    it is hexadecimal (a digest) or has no digit (a word run)."""
    line = match.group(0)
    return REDACTED if _mixed(line) else line


def _mixed(token: str) -> bool:
    """Upper case, lower case, and a digit or / or +: random, not words or hex."""
    has_upper = has_lower = has_other = False
    for char in token:
        if char.isupper():
            has_upper = True
        elif char.islower():
            has_lower = True
        elif char.isdigit() or char in "/+":
            has_other = True
    return has_upper and has_lower and has_other


_SECRET_CONTEXT = re.compile(
    r"(?i)(?:secret|password|passwd|token|credential|private|api[_-]?key|access[_-]?key)"
)


def _bare_secret_key(match: re.Match[str]) -> str:
    """A 40-character token of the secret-key alphabet: redacted when random-looking; a
    40-character hex token (git commit, checksum) only after a secret key word within the
    40 characters before it."""
    token = match.group(0)
    if _mixed(token):
        return REDACTED
    before = match.string[max(match.start() - 40, 0) : match.start()]
    return REDACTED if _SECRET_CONTEXT.search(before) else token


def _basic_credentials(match: re.Match[str]) -> str:
    """`Basic dXNlcjpwYXNz` without its header: redacted when it decodes to user:password."""
    token = match.group(2)
    try:
        decoded = base64.b64decode(token, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return match.group(0)
    if ":" in decoded and decoded.isprintable():
        return match.group(1) + REDACTED
    return match.group(0)


def _bearer(match: re.Match[str]) -> str:
    """`Bearer X` without its header: X is redacted when it reads as a credential (16 or
    more characters, or 8 or more with a digit or symbol); "Bearer authentication" stays."""
    token = match.group(2)
    if len(token) >= 16 or any(not c.isalpha() for c in token):
        return match.group(1) + REDACTED
    return match.group(0)


def _base64_pem(match: re.Match[str]) -> str:
    """A base64-encoded PEM block (a Kubernetes secret's data): redacted if it is a private
    key; a CA certificate stays."""
    token = match.group(0)
    head = token[: len(token) // 4 * 4][:96]
    try:
        decoded = base64.b64decode(head)
    except (binascii.Error, ValueError):
        return token
    return REDACTED if b"PRIVATE KEY" in decoded else token


def _user_password(match: re.Match[str]) -> str:
    """`curl -u user:password` (not `docker run -u 1000:1000`, a uid and gid)."""
    user, secret = match.group(2), match.group(3)
    if user.isdigit() and secret.isdigit():
        return match.group(0)
    return match.group(1) + REDACTED


# Words that describe a password in prose instead of being one: "the password is incorrect".
_PROSE_WORDS = frozenset(
    " ".join(
        (
            "not incorrect invalid wrong expired required missing empty set unset too being",
            "null none correct valid the a an ok okay blank needed changed reset stored saved",
            "provided given present absent mandatory optional rejected accepted still now",
            "about no in at already configured known unknown weak strong short long deprecated",
            "disabled enabled supplied used usually also only same different rotated revoked",
            "generated hidden masked redacted managed encrypted hashed specified defined",
            "correctly",
        )
    ).split(" ")
)
_PROSE_WORDS_ZH = ("错误", "无效", "不正确", "不对", "过期", "已过期", "空", "必填", "多少", "什么")


def _prose(match: re.Match[str]) -> str:
    value = match.group(2)
    word = value.lower().rstrip(".,;:!?")
    if word in _PROSE_WORDS or value.startswith("<") or value.startswith(_PROSE_WORDS_ZH):
        return match.group(0)
    return match.group(1) + REDACTED


_BOOTSTRAP_CONTEXT = re.compile(r"(?i)token|kubeadm|bootstrap")


def _bootstrap_token(match: re.Match[str]) -> str:
    """A Kubernetes bootstrap token, `[a-z0-9]{6}.[a-z0-9]{16}` (kubeadm join --token,
    `kubeadm token create`; https://kubernetes.io/docs/reference/access-authn-authz/bootstrap-tokens/):
    redacted when its secret half mixes letters and digits (a random one does with
    probability ~0.99) or a token word is within 40 characters before it. A DNS name
    such as `worker.abcdefghijklmnop` (no digit, no token word) stays."""
    secret = match.group(1)
    if any(c.isdigit() for c in secret) and any(c.isalpha() for c in secret):
        return REDACTED
    before = match.string[max(match.start() - 40, 0) : match.start()]
    return REDACTED if _BOOTSTRAP_CONTEXT.search(before) else match.group(0)


_HTPASSWD_SPACE = re.compile(r"(\s+)")


def _htpasswd(match: re.Match[str]) -> str:
    """`htpasswd -b[c] FILE USER PASSWORD` and `htpasswd -nb USER PASSWORD`: with -b the
    password is an argument (https://httpd.apache.org/docs/current/programs/htpasswd.html),
    the second operand with -n (no file), the third otherwise."""
    pieces = _HTPASSWD_SPACE.split(match.group(0))
    flags = ""
    operands: list[int] = []  # indexes of operands in `pieces` (words are at even indexes)
    for index in range(2, len(pieces), 2):
        word = pieces[index]
        if not operands and word.startswith("-") and len(word) > 1:
            flags += word[1:]
            continue
        if word[:1] in ("|", ";", "&", ">", "<", ")"):
            break
        operands.append(index)
    position = 1 if "n" in flags else 2
    if "b" not in flags or len(operands) <= position:
        return match.group(0)
    word = pieces[operands[position]]
    # A backtick closing the word is Markdown around the command (an inline code span), not
    # part of the password: it stays, so the span still closes.
    pieces[operands[position]] = REDACTED + word[len(word.rstrip("`")) :]
    return "".join(pieces)


# -- triggers --------------------------------------------------------------------------------
#
# Each step's trigger is a part every match of its pattern must contain: a literal of the
# pattern (without the look-arounds and classes around it), a key word, or its long run of
# base64. `redact_text` looks for all of them at once (`may_hold_secret`) and leaves a text
# with none untouched, which is almost every string of a recording: names, states,
# timestamps, addresses.

# The steps that redact a value by the name before it (json-key, tag-value, assignment,
# yaml-key, flag, aws-configure, prose …) all need one of these words: every alternative of
# `_WORD`, `_KEY_END` and `_NAME_END`, "auth" of a docker config and "pwd" hold one.
# "pw" holds "pwd" and the short word of SLURM_DB_PW; "cookie" is for the json-key step.
_SECRET_WORD = Trigger(words=("auth", "token", "pass", "secret", "key", "pat", "pw", "cookie"))
# STS session tokens by their well-known base64 openings ("origin", "aws").
_STS_OPENINGS = "IQoJb3JpZ2lu|IQoDYXdz|IQoGZXIvYXdz|AgoJb3JpZ2lu|FwoGZXIvYXdz|FQoGZXIvYXdz|AQoDYXdz"
_ZH_WORDS = "密码|口令|密钥|私钥|秘钥|令牌"

_STEPS: tuple[Step, ...] = (
    Step(
        "pem-block",
        strip_private_keys,
        (
            "-----BEGIN RSA PRIVATE KEY-----",
            "-----END RSA PRIVATE KEY-----",
            "-",
            "\n",
            "MIIEow",
            "BEGIN ",
            "A ",
            "PRIVATE KEY",
        ),
        Trigger(r"PRIVATE|BEGIN"),
    ),
    Step(
        "pem-body-line",
        _sub(rf"(?m)^[ \t]*[{_B64}]{{60,76}}={{0,2}}[ \t]*$", _pem_body_line),
        ("MIIEowIBAAKCAQEA", "a", "A", "1", "\n", " ", "="),
        Trigger(run=60),
    ),
    Step(
        "base64-pem",
        _sub(rf"(?<![{_B64}])LS0tLS1CRUdJTi[{_B64}]{{20,}}={{0,2}}", _base64_pem),
        ("LS0tLS1CRUdJTi", "a", "+", "="),
        Trigger("LS0tLS1CRUdJTi"),
    ),
    Step(
        "openssh-body",
        _sub(rf"(?<![{_B64}])b3BlbnNzaC1rZXktdjE[{_B64}]*={{0,2}}", REDACTED),
        ("b3BlbnNzaC1rZXktdjE", "a", "="),
        Trigger("b3BlbnNzaC1rZXktdjE"),
    ),
    # "SecretAccessKey": "...", "Token" : "...", a docker config "auth": "..." — plain or
    # escaped JSON. Starts only at a quote, and the name class cannot cross one.
    Step(
        "json-key",
        _sub(
            rf'(?i)((\\?)"(?:auth|[\w.-]*(?:{_NAME_END}|cookie))\2"\s*:\s*\2")(?:[^"\\]|\\[^"])*',
            rf"\g<1>{REDACTED}",
        ),
        ('"', '\\"', "token", "a.", ":", " ", "password", "_key", "auth"),
        _SECRET_WORD,
    ),
    # A tag whose key looks secret: Key=db_password,Value=... and {"Key": "token", "Value": "..."}
    Step(
        "tag-value",
        _sub(
            rf"(?i)(\bkey\s*=\s*['\"]?[\w.:/-]{{0,64}}?{_WORD}[\w.:/-]{{0,64}}?['\"]?\s*,\s*"
            rf"value\s*=\s*){_VALUE}",
            rf"\g<1>{REDACTED}",
        ),
        ("Key=", "password", ",", "Value=", "a", " "),
        _SECRET_WORD,
    ),
    Step(
        "json-tag-value",
        _sub(
            rf'(?i)("(?:key|name)"\s*:\s*"[^"\n]{{0,64}}?{_WORD}[^"\n]{{0,64}}"\s*,\s*"value"\s*:\s*")'
            r'[^"\n]*',
            rf"\g<1>{REDACTED}",
        ),
        ('"Key"', ":", '"', "token", ",", '"Value"', "a", " "),
        _SECRET_WORD,
    ),
    # AWS_SESSION_TOKEN=..., client_secret = '...', GITLAB_PAT=... (env and config style).
    # The pattern starts at the key word (the rest of the name stays in the text): the old
    # `\b[\w.-]*token\s*=` started at every word boundary of a run and rescanned it to the
    # end, quadratic on "a.a.a.…".
    Step(
        "assignment",
        _sub(rf"(?i)({_NAME_END}\s*=\s*){_VALUE}", rf"\g<1>{REDACTED}"),
        ("token", "_key", "password", "=", " ", "'", '"', "a.", "-"),
        _SECRET_WORD,
    ),
    # db_password: ..., password: ... (YAML style): compound keys, or the bare words
    # password/passwd/secret; a bare "token:" is too often prose ("failed to get token: ...").
    Step(
        "yaml-key",
        _sub(
            rf"(?i)((?:(?<=[\w.-])[_-](?:{_KEY_END}|key|pat|pass|pwd|pw)"
            r"|\b(?:password|passwd|passphrase|secret))\s*:\s+)"
            rf"{_VALUE}",
            rf"\g<1>{REDACTED}",
        ),
        ("a.", "_password", "-", ":", " ", "secret", "'"),
        _SECRET_WORD,
    ),
    # --password hunter2, --token=abc, --db-pass X, --api-key X
    Step(
        "flag",
        _sub(
            r"(?i)(?<![\w-])(--(?:[\w-]*[_-])?(?:token|secret|pass(?:word|wd|phrase)?|pwd"
            r"|api[_-]?key|access[_-]?key|private[_-]?key|secretaccesskey|key|pat)"
            r"(?:[_-]?(?:id|key|value))?[ =])\S+",
            rf"\g<1>{REDACTED}",
        ),
        ("--", "-", "a", "pass", "token", " ", "="),
        _SECRET_WORD,
    ),
    # mysql -phunter2 (the password glued to -p; `-p` alone prompts), docker login -p X,
    # sshpass -p X. The scan to the flag is bounded: an unbounded lazy scan from every
    # "mysql" to the end of a line is quadratic.
    Step(
        "password-option",
        _sub(
            r"((?i:\bmysql(?:dump|admin|sh|import|check|slap)?\b)[^\n]{0,256}?\s-p)"
            r"""([^\s'"]\S*|'[^'\n]*'|"[^"\n]*")""",
            rf"\g<1>{REDACTED}",
        ),
        ("mysql", " ", "-p", "-P", "a", "'"),
        Trigger(words=("mysql",)),
    ),
    Step(
        "docker-login",
        _sub(r"(?i)(\bdocker\s+login\b[^\n]{0,256}?\s-p\s+)\S+", rf"\g<1>{REDACTED}"),
        ("docker login", " ", "-p", "a"),
        Trigger(words=("docker",)),
    ),
    Step(
        "sshpass",
        _sub(r"(\bsshpass\s+-p\s*)\S+", rf"\g<1>{REDACTED}"),
        ("sshpass", " ", "-p", "a"),
        Trigger("sshpass"),
    ),
    # curl -u user:password, --user=user:password (a uid:gid pair stays)
    Step(
        "user-option",
        _sub(
            r"""(?<!\S)((?:-u|--user)(?:\s+|=)?['"]?([^\s:'"]+):)([^\s'"@]+)""",
            _user_password,
        ),
        ("-u", " ", "a", ":", "-ua", "'"),
        Trigger("-u"),
    ),
    Step(
        "aws-configure",
        _sub(rf"(?i)(\baws\s+configure\s+set\s+\S*{_WORD}\S*\s+)\S+", rf"\g<1>{REDACTED}"),
        ("aws configure set", " ", "token", "a"),
        _SECRET_WORD,
    ),
    Step(
        "authorization",
        _sub(
            r"(?i)(\b(?:proxy-)?authorization\s*[:=]\s*(?:bearer|basic|token)\s+)\S+",
            rf"\g<1>{REDACTED}",
        ),
        ("Authorization", ":", " ", "Bearer", "a"),
        Trigger(words=("authorization",)),
    ),
    Step(
        "bearer",
        _sub(r"(?i)((?<![\w-])bearer\s+)([A-Za-z0-9._~+/=-]{8,})", _bearer),
        ("Bearer", " ", "a", ".", "-"),
        Trigger(words=("bearer",)),
    ),
    Step(
        "basic",
        _sub(rf"(?i)((?<![\w-])basic\s+)([{_B64}]{{8,}}={{0,2}})(?![{_B64}=])", _basic_credentials),
        ("Basic", " ", "a", "=", "+"),
        Trigger(words=("basic",)),
    ),
    # user:password@host in URLs: starts at "://", and neither the user nor the password
    # class can run across the next "://".
    Step(
        "url-credentials",
        _sub(r"(://[^/\s:@]+:)[^/\s@]+@", rf"\g<1>{REDACTED}@"),
        ("://", "a", ":", "@", ".", "/"),
        Trigger(r"://[^/\s:@]"),
    ),
    Step(
        "access-key-id",
        _sub(r"\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b", REDACTED),
        ("AKIA", "A", "1"),
        Trigger("AKIA|ASIA|ABIA|ACCA"),
    ),
    # STS session tokens by their well-known base64 openings ("origin", "aws").
    Step(
        "session-token",
        _sub(rf"(?<![{_B64}])(?:{_STS_OPENINGS})[{_B64}=]{{8,}}", REDACTED),
        ("IQoJb3JpZ2lu", "FwoGZXIvYXdz", "a", "="),
        Trigger(_STS_OPENINGS),
    ),
    Step(
        "eks-token",
        _sub(r"\bk8s-aws-v1\.[A-Za-z0-9_\-]+", REDACTED),
        ("k8s-aws-v1.", "a", "-"),
        Trigger(r"k8s-aws-v1\."),
    ),
    Step(
        "jwt",
        _sub(r"(?<![\w-])eyJ[\w-]{8,}\.[\w-]{8,}\.[\w-]+", REDACTED),
        ("eyJ", "a", "-", "."),
        Trigger("eyJ"),
    ),
    Step(
        "prefixed-token",
        _sub(
            r"(?<![\w-])(?:(?:hf|gh[pousr]|glpat|xox[abprs]|npm|github_pat)[_-][\w-]{16,}"
            r"|sk-(?:ant-|proj-)?[\w-]{20,}|AIza[\w-]{35}|[sr]k_live_[A-Za-z0-9]{16,})",
            REDACTED,
        ),
        ("hf_", "sk-", "a", "-", "_"),
        Trigger(
            r"hf[_-]|gh[pousr][_-]|glpat[_-]|xox[abprs][_-]|npm[_-]|github_pat[_-]|sk-|AIza"
            r"|sk_live_|rk_live_"
        ),
    ),
    Step(
        "secret-access-key",
        _sub(rf"(?<![{_B64}=])[{_B64}]{{40}}(?![{_B64}=])", _bare_secret_key),
        ("a", "A", "1", "/", "+", "="),
        Trigger(run=40),
    ),
    # Kubernetes bootstrap tokens (`kubeadm join --token abcdef.0123456789abcdef`): the
    # 6-character id and the 16-character secret. The id is fixed-length, so each start
    # scans at most 7 characters before failing.
    Step(
        "bootstrap-token",
        _sub(r"(?<![\w.-])[a-z0-9]{6}\.([a-z0-9]{16})(?![\w-]|\.[\w-])", _bootstrap_token),
        ("abcdef.", "a", "0", ".", "abcdef.0123456789abcdefg"),
        Trigger(r"\.[a-z0-9]{16}"),
    ),
    Step(
        "htpasswd",
        # One command: the scan stops at a separator, so the next command's htpasswd
        # starts a match of its own.
        _sub(r"(?<![\w.-])htpasswd\b[^\n;|&]{0,256}", _htpasswd),
        ("htpasswd", " ", "-b", "a", "-nb"),
        Trigger("htpasswd"),
    ),
    # echo 'user:password' | chpasswd (printf too). The user cannot hold ":" and the
    # password no space, so a start at "echo" scans one word pair.
    Step(
        "chpasswd",
        _sub(
            r"""(\b(?:echo|printf)\s+(?:-[ne]+\s+)?['"]?[^\s:'"]+:)([^\s'"|\\]+)"""
            r"""(?=(?:\\n)?['"]?\s*\|\s*(?:sudo\s+)?chpasswd\b)""",
            rf"\g<1>{REDACTED}",
        ),
        ("echo ", "'", "a", ":", "|", " ", "chpasswd"),
        Trigger(words=("chpasswd",)),
    ),
    # The same pair quoted with blanks in the password (echo "root:two words" | chpasswd),
    # or given on a here-string (chpasswd <<< 'root:pw'): the password runs to the quote.
    Step(
        "chpasswd-quoted",
        _sub(
            r"""(\b(?:echo|printf)\s+(?:-[ne]+\s+)?(['"])[^\s:'"]{1,64}:)([^'"\n]{1,256})"""
            r"""(?=\2\s*\|\s*(?:sudo\s+)?chpasswd\b)"""
            r"""|(\bchpasswd\s*<<<\s*['"]?[^\s:'"]{1,64}:)([^'"\n]{1,256})""",
            lambda m: (m.group(1) or m.group(4)) + REDACTED,
        ),
        ("echo ", '"', "a", ":", "b c", '"', " | ", "chpasswd", " <<< "),
        Trigger(words=("chpasswd",)),
    ),
    # curl's cookies (--cookie / -b NAME=VALUE...): a session cookie is a credential. The
    # scan from curl to the flag is bounded, as any lazy scan here must be.
    Step(
        "curl-cookie",
        _sub(
            r"""(\bcurl\b[^\n|;]{0,200}?\s(?:--cookie|-b)[ \t=]+)"""
            r"""(?:'[^'\n]*'|"[^"\n]*"|[^\s'"]+)""",
            rf"\g<1>{REDACTED}",
        ),
        ("curl ", "-s ", "--cookie ", "-b ", "'a=b'"),
        Trigger(words=("curl",)),
    ),
    # Slack incoming webhooks: the path after /services/ is the credential
    # (https://api.slack.com/messaging/webhooks).
    Step(
        "slack-webhook",
        _sub(
            r"(?i)(hooks\.slack\.com/(?:services|workflows|triggers)/)[\w/+-]+",
            rf"\g<1>{REDACTED}",
        ),
        ("hooks.slack.com/services/", "T", "/", "a"),
        Trigger(words=("slack",)),
    ),
    # Cookie: / Set-Cookie: header values, to the end of the line or a closing quote (a
    # header inside `curl -H '...'`).
    Step(
        "cookie-header",
        _sub(
            r"""(?i)((?<![\w-])(?:set-)?cookie[ \t]*:[ \t]*)[^\s'"][^\n'"]*""", rf"\g<1>{REDACTED}"
        ),
        ("Cookie", ":", " ", "a=b;", "Set-"),
        Trigger(words=("cookie",)),
    ),
    # The password is X / 密码是 X (X unless it describes the password: "incorrect", "错误")
    Step(
        "prose",
        _sub(
            r"(?i)(\b(?:password|passwd|passphrase|pwd)\s+(?:is set to|was set to|is|was)\s+"
            r"""['"]?)([^\s'"]+)""",
            _prose,
        ),
        ("password", " ", "is", "a", "'"),
        _SECRET_WORD,
    ),
    Step(
        "prose-zh",
        _sub(
            rf"((?:{_ZH_WORDS})\s*(?:是|为|：|:|=)\s*['\"“「]?)"
            r"""([^\s，。,;；、）)'"”」]+)""",
            _prose,
        ),
        ("密码", "是", " ", "a", "：", "，"),
        Trigger(_ZH_WORDS),
    ),
)
STEPS = _STEPS
# All steps' triggers, joined: what a text must hold for any step to change it. Every
# alternative of the joined pattern opens with a literal character (no class, no
# look-behind), so the search skips ahead to those characters instead of trying each
# alternative at each position: ~3x faster.
_TRIGGERS = tuple(step.trigger for step in _STEPS)
# Joined without a group around each: the union all the same (a trigger pattern holds no
# group of its own and no global flag), and a flat alternation is what the search optimises.
_TRIGGER_PATTERN = re.compile("|".join(t.pattern for t in _TRIGGERS if t.pattern))
_TRIGGER_WORDS = tuple(dict.fromkeys(w for t in _TRIGGERS for w in t.words))
# In ASCII text, a word is found in any case exactly when it is found in the lowered text,
# and a search for literals is several times faster than the same search under (?i).
_TRIGGER_WORDS_LOWER = re.compile("|".join(_TRIGGER_WORDS))
_TRIGGER_WORDS_ANY_CASE = re.compile(f"(?i:{'|'.join(_TRIGGER_WORDS)})")
# A run as long as the shortest run a step needs: any longer run holds one too.
_TRIGGER_RUN_LENGTH = min(t.run for t in _TRIGGERS if t.run)
_TRIGGER_RUN = re.compile(f"(?<![{_B64}])[{_B64}]{{{_TRIGGER_RUN_LENGTH}}}")
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
        if len(text) < 12:  # both patterns need an account id's 12 digits
            return text
        text = _ACCOUNT_IN_ARN.sub(
            lambda m: f"{m.group(1)}{self.fake(m.group(2))}{m.group(3)}", text
        )
        return _BARE_ACCOUNT.sub(lambda m: self.fake(m.group(0)), text)


Masking = bool | AccountMasker


def _masker(mask_account: Masking) -> AccountMasker | None:
    if isinstance(mask_account, AccountMasker):
        return mask_account
    return AccountMasker() if mask_account else None


def may_hold_secret(text: str) -> bool:
    """Whether any redaction step can change `text`: False only when no step's trigger is
    in it, and then `redact_text` returns it as it is."""
    if _TRIGGER_PATTERN.search(text) is not None:
        return True
    if len(text) >= _TRIGGER_RUN_LENGTH and _TRIGGER_RUN.search(text) is not None:
        return True
    if text.isascii():
        return _TRIGGER_WORDS_LOWER.search(text.lower()) is not None
    return _TRIGGER_WORDS_ANY_CASE.search(text) is not None


def redact_text(text: str, *, mask_account: Masking = False) -> str:
    """Replace secret-looking values in free text; optionally mask account ids."""
    return _redact_text(text, _masker(mask_account))


# Short strings seen to hold no trigger. A recording repeats a few values ("True",
# "Running", one timestamp) millions of times, and a set lookup costs a tenth of the search.
# Only what redaction leaves as it is goes in, short, and the set is emptied when full: its
# memory stays bounded whatever the input.
_CLEAN: set[str] = set()
_CLEAN_LENGTH = 64
_CLEAN_SIZE = 1 << 16


def _redact_text(text: str, masker: AccountMasker | None) -> str:
    # The triggers first, not every step's pattern: a recording of a large cluster holds
    # millions of short strings ("Running", "kube-system", timestamps), almost none with a
    # trigger, and on them the steps cost ~30 times the search (2 µs a string, not 50).
    short = len(text) <= _CLEAN_LENGTH
    if not (short and text in _CLEAN):
        if may_hold_secret(text):
            for step in _STEPS:
                text = step.apply(text)
        elif short:
            if len(_CLEAN) >= _CLEAN_SIZE:
                _CLEAN.clear()
            _CLEAN.add(text)
    return masker.mask(text) if masker is not None else text


def _secret_pair(value: dict[str, Any]) -> str | None:
    """The value field of a name/value pair that names a secret: an AWS tag
    {"Key": "db_password", "Value": ...} or a container env {"name": "HF_TOKEN", "value": ...}."""
    for name_field, value_field in (("Key", "Value"), ("key", "value"), ("name", "value")):
        if value_field in value:  # first: most dicts (metadata) have a name but no value
            name = value.get(name_field)
            if isinstance(name, str) and _SECRET_NAME.search(name):
                return value_field
    return None


@functools.lru_cache(maxsize=4096)
def _secret_key(key: str) -> bool:
    """A key that names a secret. Cached: a recording repeats a few hundred key names
    millions of times; the bound keeps hostile input with endless distinct keys small."""
    return key not in _KEEP_KEYS and _SECRET_KEYS.search(key) is not None


def redact(value: Any, *, mask_account: Masking = False) -> Any:
    """Remove credentials, tokens and secret values from a JSON-like structure.

    Pass one `AccountMasker` for a whole recording so each account keeps its own fake id.
    """
    return _redact(value, _masker(mask_account))


def _redact(value: Any, masker: AccountMasker | None) -> Any:
    if isinstance(value, str):
        return _redact_text(value, masker)
    if isinstance(value, dict):
        secret_field = _secret_pair(value)
        out: dict[str, Any] = {}
        for key, item in value.items():
            if (key == secret_field or _secret_key(str(key))) and item not in (None, ""):
                out[key] = REDACTED
            else:
                out[key] = _redact(item, masker)
        return out
    if isinstance(value, list):
        return [_redact(item, masker) for item in value]
    return value


# -- output boundaries -------------------------------------------------------------------------
#
# What leaves the program (a terminal, a transcript, `ask` JSON, an MCP result, a ticket)
# passes `redact_output`: the patterns above, and the provider's and AWS's own credentials
# from the environment by value, whatever their shape (a key the patterns would not know).
# By value first: a pattern may replace part of a credential, and the rest would then no
# longer match it.

SECRET_VARIABLES = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_BEARER_TOKEN_BEDROCK",
)
_MIN_ENVIRONMENT_SECRET = 8  # shorter values would hide ordinary words


def environment_secrets() -> list[str]:
    """The values of `SECRET_VARIABLES` set in the environment (8 characters or more)."""
    import os

    return [
        value
        for name in SECRET_VARIABLES
        if len(value := os.environ.get(name, "")) >= _MIN_ENVIRONMENT_SECRET
    ]


def hide_environment_secrets(text: str, secrets: list[str] | None = None) -> str:
    """`text` with every credential of the environment replaced by the placeholder."""
    for secret in environment_secrets() if secrets is None else secrets:
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text


def redact_output(text: str) -> str:
    """Text on its way out of the program: the environment's credentials by value, then
    every pattern of `redact_text`. Apply it to a whole text before anything clips, splits
    or rearranges it; it is idempotent, so a second boundary costs time, not meaning."""
    return redact_text(hide_environment_secrets(text))


def redact_strings(value: Any) -> Any:
    """`redact_output` applied to every string value of a JSON-like structure; keys,
    numbers and the shape are kept (a schema still validates)."""
    secrets = environment_secrets()
    return _redact_strings(value, secrets)


def _redact_strings(value: Any, secrets: list[str]) -> Any:
    """By pattern and by value in every string; and by name: a string under a secret-named
    key (``"password": ...``) or right after a secret-named flag in a list (``["--password",
    ...]``, an argv) is replaced whole. Only strings change, so a schema still validates."""
    if isinstance(value, str):
        return redact_text(hide_environment_secrets(value, secrets))
    if isinstance(value, dict):
        return {
            key: REDACTED
            if isinstance(item, str) and item and _secret_key(str(key))
            else _redact_strings(item, secrets)
            for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        out = [_redact_strings(item, secrets) for item in value]
        for index in range(1, len(out)):
            flag = value[index - 1]
            if (
                isinstance(flag, str)
                and flag.startswith("-")
                and isinstance(out[index], str)
                and _secret_key(flag.lstrip("-"))
            ):
                out[index] = REDACTED
        return out
    return value
