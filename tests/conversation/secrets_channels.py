"""Secrets planted in every text source, looked for on every output channel (issue 22).

Sources: cluster text (a recording's status message, cluster event, lifecycle log lines,
Kubernetes event and probe output), text the user pastes (`ask TEXT`, a `chat` message), a
ticket's error strings, and the model (its answer, a `suggest_command` call, tool inputs),
through the scripted provider. The provider's and AWS's credentials are set in the
environment and planted too, in shapes no pattern knows.

Channels: `ask` text output, `ask --format json`, the `ask --transcript` file, `chat`
output, the `chat` `/save` file, MCP tool results (text and structured content, as
`agent.mcp.tools.call_result` builds them), and the ticket bundle's files and archive
members (plain and `--mask`).

`measure` returns, per channel, how many secrets were planted in the sources that feed it
and how many of them were found in its output; tests/conversation/test_secrets_corpus.py
asserts none survive and scripts/bench_secrets.py prints the figures.
"""

from __future__ import annotations

import io
import json
import os
import tarfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from core.planted_secrets import PLANTED, Planted

# Credentials of the environment: shapes no redaction pattern knows, so only the
# by-value step can catch them.
ENVIRONMENT = {
    "ANTHROPIC_API_KEY": "Qz8envAnthr0picVal9",
    "AWS_SECRET_ACCESS_KEY": "Aw5EnvS3cretVal/Ue7",
    "AWS_SESSION_TOKEN": "Ses5EnvT0kenValW2x",
}
ENVIRONMENT_PLANTS = tuple(
    Planted(f"env-{name.lower()}", f"the value {value} came from the environment", value)
    for name, value in ENVIRONMENT.items()
)
# One line each; a PEM marker cut at the very end of a text holds no secret once other
# text follows it.
INSIDE = tuple(p for p in PLANTED if p.kind != "pem-marker-cut")
ALL = INSIDE + ENVIRONMENT_PLANTS
ONE_LINE = tuple(p for p in ALL if "\n" not in p.text)

# The issue-22 shapes of the gate's own cuts: a key-shaped secret right before a mutating
# command (the purpose window), a command in prose followed by `db_password:` and its value
# (the note), a JWT and a session token 600 characters before a command (the look-back).
_SECRET_KEY = "kP3mZ8vQ1xR7tY2uW9eA4sD6fG0hJ5lN3bV8cX1z"
_JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJnYXRlLXRlc3QifQ.R2F0ZVNpZ25hdHVyZTEyMzQ1Njc4OTA"
GATE_PLANTS = (
    Planted(
        "gate-key-before-command", f"The key {_SECRET_KEY} leaked; run sudo reboot", _SECRET_KEY
    ),
    Planted(
        "gate-note-after-command",
        "Then run sudo systemctl restart slurmdbd db_password: Sl0tDbPw88",
        "Sl0tDbPw88",
    ),
    Planted(
        "gate-look-back",
        f"Token {_JWT} was used. " + "The node keeps failing health checks. " * 14 + "Run:\n\n"
        "```bash\nsudo reboot\n```",
        _JWT[30:60],
    ),
)


@dataclass(frozen=True)
class Channel:
    """One output channel: the sources that fed it, the distinct secrets planted in them
    (by kind), and what it wrote."""

    name: str
    sources: tuple[str, ...]
    plants: tuple[Planted, ...]
    output: str

    @property
    def planted(self) -> tuple[Planted, ...]:
        return tuple({p.kind: p for p in self.plants}.values())

    @property
    def surviving(self) -> list[str]:
        return leaks(self.output, self.planted)


def leaks(output: str, planted: tuple[Planted, ...]) -> list[str]:
    """The kinds whose secret is in `output`: as written, with white space flattened, or
    JSON-escaped."""
    flat = " ".join(output.split())
    found = []
    for plant in planted:
        secret = plant.secret
        forms = {secret, " ".join(secret.split()), json.dumps(secret)[1:-1]}
        if any(form in output or form in flat for form in forms):
            found.append(plant.kind)
    return found


@contextmanager
def environment() -> Iterator[None]:
    saved = {name: os.environ.get(name) for name in ENVIRONMENT}
    os.environ.update(ENVIRONMENT)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def planted_recording(tmp: Path) -> Path:
    """A recording with every one-line plant in its cluster text (see
    tests/core/test_no_secret_survives.py for where)."""
    from core.test_no_secret_survives import _plant

    from cluster_simulator.build import record_scenario
    from tools.recorded.model import dump_recorded

    path = tmp / "planted.json"
    dump_recorded(record_scenario(_plant([p.text for p in INSIDE])), path)
    return path


def _answer() -> str:
    paragraphs = [p.text for p in ALL] + [p.text for p in GATE_PLANTS]
    inline = [f"Check `{p.text}` first, then `sudo reboot`." for p in ONE_LINE[:20]]
    fenced = "```bash\n" + "\n".join(p.text for p in ONE_LINE) + "\n```"
    return "\n\n".join([*paragraphs, *inline, fenced])


def script_turns() -> list[dict[str, Any]]:
    """The model: reads the cluster, calls tools with secrets in their input, proposes a
    command holding one, and answers with every plant."""
    pasted = "\n".join(p.text for p in ALL)
    return [
        {
            "text": "Triaging first.",
            "tool_calls": [
                {"name": "triage", "input": {}},
                {"name": "explain_signal", "input": {"text": pasted}},
                {"name": "read_reference", "input": {"section": "A", "password": "R3fPw9x"}},
            ],
        },
        {
            "tool_calls": [
                {
                    "name": "suggest_command",
                    "input": {
                        "command": "mysql -u root -pMy5qlR00t -e 'flush hosts' "
                        + ENVIRONMENT["AWS_SECRET_ACCESS_KEY"],
                        "purpose": " ".join(p.text for p in ONE_LINE[:12]),
                    },
                }
            ]
        },
        {"text": _answer()},
    ]


_SCRIPT_PLANTS = (
    *ALL,
    *GATE_PLANTS,
    Planted("tool-input-key", "", "R3fPw9x"),
    Planted("suggest-mysql", "", "My5qlR00t"),
)


def _run(args: list[str], stdin: str | None = None) -> str:
    from typer.testing import CliRunner

    from agent.cli import app

    result = CliRunner().invoke(app, args, input=stdin)
    if result.exit_code != 0:
        raise AssertionError(f"{args[0]} failed ({result.exit_code}): {result.output[-2000:]}")
    return result.output


def measure(tmp: Path) -> list[Channel]:
    with environment():
        return _measure(tmp)


def _measure(tmp: Path) -> list[Channel]:
    recording = planted_recording(tmp)
    cluster_plants = INSIDE
    pasted = "\n".join(p.text for p in ALL)
    script = tmp / "script.json"
    script.write_text(json.dumps({"turns": script_turns()}), encoding="utf-8")
    scripted = ["--provider", "scripted", "--script", str(script), "--recorded", str(recording)]
    conversation = (*cluster_plants, *_SCRIPT_PLANTS)
    fed = ("cluster text", "pasted text", "model text", "tool inputs", "environment")
    channels: list[Channel] = []

    ask_transcript = tmp / "ask.jsonl"
    text_out = _run(["ask", pasted, "--no-color", "--transcript", str(ask_transcript), *scripted])
    channels.append(Channel("ask text output", fed, conversation, text_out))
    channels.append(Channel("ask transcript", fed, conversation, ask_transcript.read_text()))
    json_out = _run(["ask", pasted, "--format", "json", *scripted])
    channels.append(Channel("ask --format json", fed, conversation, json_out))

    saved = tmp / "chat.jsonl"
    message = " ; ".join(p.text for p in ONE_LINE)
    chat_out = _run(
        ["chat", "--no-color", *scripted], stdin=f"{message}\n/suggestions\n/save {saved}\n/quit\n"
    )
    channels.append(Channel("chat output", fed, conversation, chat_out))
    channels.append(Channel("chat /save transcript", fed, conversation, saved.read_text()))

    mcp_fed = ("cluster text", "pasted text", "tool inputs", "environment")
    channels.append(Channel("MCP tool results", mcp_fed, (*cluster_plants, *ALL), _mcp(recording)))
    channels.extend(_tickets(recording, tmp))
    return channels


def _mcp(recording: Path) -> str:
    from agent.mcp.tools import call_result
    from agent.state import ConversationState
    from agent.toolset import Toolset
    from agent.toolset.cluster import ClusterSession
    from tools.recorded.model import load_recorded
    from tools.target import TriageTarget
    from tools.triage.node_sources import NodeOptions

    loaded = load_recorded(recording)
    target = TriageTarget(cluster=loaded.cluster, region=loaded.region)
    session = ClusterSession(target=target, recordings=[loaded], options=NodeOptions())
    toolset = Toolset(session, ConversationState(cluster=target.cluster, region=target.region))
    pasted = "\n".join(p.text for p in ALL)
    calls = [
        ("triage", {}),
        ("list_findings", {}),
        ("explain_signal", {"text": pasted}),
        ("draft_support_ticket", {}),
        # a client's model proposing commands that hold secrets: the result echoes them
        *(
            ("suggest_command", {"command": p.text, "purpose": f"Rotate it: {p.text}"})
            for p in ONE_LINE
            if "`" not in p.text
        ),
    ]
    out = []
    for name, arguments in calls:
        result = call_result(toolset.call(name, arguments), full_text=True)
        out.append(result.content[0].text)  # type: ignore[union-attr]
        out.append(json.dumps(result.structured_content, ensure_ascii=False))
    return "\n".join(out)


def _tickets(recording: Path, tmp: Path) -> list[Channel]:
    from agent.commands.ticket import write_bundle
    from agent.ticket import MAX_ERROR_STRINGS, build_ticket
    from tools.recorded.model import load_recorded
    from tools.target import TriageTarget
    from tools.triage.open_cluster import DataSource, open_cluster
    from tools.triage.runner import run_triage

    loaded = load_recorded(recording)
    target = TriageTarget(cluster=loaded.cluster, region=loaded.region)
    report = run_triage(open_cluster(target, source=DataSource(recorded=loaded)))
    now = datetime(2025, 1, 1, tzinfo=UTC)
    # A ticket keeps MAX_ERROR_STRINGS of them: one bundle per batch, so every plant is in one.
    batches = [ALL[i : i + MAX_ERROR_STRINGS] for i in range(0, len(ALL), MAX_ERROR_STRINGS)]
    channels = []
    for mask in (False, True):
        texts = []
        for number, batch in enumerate(batches):
            facts = build_ticket(report, now=now, error_strings=[p.text for p in batch])
            folder = tmp / f"ticket-{'masked-' if mask else ''}{number}"
            folder.mkdir()
            written = write_bundle(folder, report, facts, created=now, mask=mask, recording=loaded)
            texts += _bundle_texts(written)
        name = "ticket files (--mask)" if mask else "ticket files"
        fed = ("cluster text", "ticket error strings", "environment")
        channels.append(Channel(name, fed, (*INSIDE, *ALL), "\n".join(texts)))
    return channels


def _bundle_texts(paths: list[Path]) -> list[str]:
    """The bundle's files and its archive's members (the mask mapping stays local)."""
    texts = []
    for path in paths:
        if path.name.endswith(".tar.gz"):
            with tarfile.open(fileobj=io.BytesIO(path.read_bytes())) as archive:
                for member in archive.getmembers():
                    handle = archive.extractfile(member)
                    if handle is not None:
                        texts.append(handle.read().decode("utf-8"))
        elif path.name != "mask-mapping.json":  # the mapping stays local by design
            texts.append(path.read_text(encoding="utf-8"))
    return texts


def report(channels: list[Channel]) -> str:
    lines = []
    for channel in channels:
        surviving = channel.surviving
        line = (
            f"{channel.name}: planted {len(channel.planted)} / surviving {len(surviving)}"
            f" (sources: {', '.join(channel.sources)})"
        )
        if surviving:
            line += f"; surviving: {', '.join(surviving)}"
        lines.append(line)
    return "\n".join(lines)
