"""Secrets corpus: "planted N / surviving M" per output channel (issue 22).

Plants every secret kind of tests/core/planted_secrets.py (and the environment's
credentials, and the safety gate's own cut shapes) into cluster text, pasted text, ticket
error strings and the model's text (scripted provider), then looks for them in `ask` (text,
JSON, transcript), `chat` (output, /save), MCP tool results and ticket bundles. See
tests/conversation/secrets_channels.py. Exits 1 when a secret survives.

    python scripts/bench_secrets.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    # As pytest sees them: tests/ holds the packages core and conversation.
    sys.path[:0] = [str(ROOT / "tests"), str(ROOT)]
    from conversation.secrets_channels import measure, report

    with tempfile.TemporaryDirectory() as folder:
        channels = measure(Path(folder))
    print(report(channels))
    return 1 if any(c.surviving for c in channels) else 0


if __name__ == "__main__":
    sys.exit(main())
