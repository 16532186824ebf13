"""The tool definitions the model sees are a contract: any change to a name, a description
or an input schema shows up as a diff of the snapshot.

After an intended change: ``UPDATE_SNAPSHOTS=1 .venv/bin/pytest
tests/conversation/test_tool_schemas.py`` and review the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from agent.state import ConversationState
from agent.toolset import Toolset
from agent.toolset.budget import estimate_tokens
from agent.toolset.cluster import ClusterSession

SNAPSHOT = Path(__file__).resolve().parent / "snapshots" / "tool_schemas.json"


def test_tool_schemas_match_the_snapshot() -> None:
    schemas = Toolset(ClusterSession(), ConversationState()).schemas()
    rendered = json.dumps(schemas, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
    if os.environ.get("UPDATE_SNAPSHOTS") == "1":
        SNAPSHOT.write_text(rendered, encoding="utf-8")
    assert SNAPSHOT.read_text(encoding="utf-8") == rendered, (
        "tool schemas changed: rerun with UPDATE_SNAPSHOTS=1 and review the diff"
    )


def test_tool_definitions_stay_affordable() -> None:
    schemas = Toolset(ClusterSession(), ConversationState()).schemas()
    # Sent (cached) on every request: keep them well under 10k tokens (characters / 4).
    assert estimate_tokens(json.dumps(schemas)) < 10_000
