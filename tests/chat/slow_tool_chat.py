"""`hyperpod-debug chat` whose first triage call takes a while: a launcher for the
pseudo-terminal tests of what happens while a tool runs (Ctrl-C, typed keys).

It wraps the real program; only `Toolset.call` is wrapped, to print a marker and wait
before the first triage runs. Run as `python slow_tool_chat.py SECONDS chat ARGS...`.
"""

from __future__ import annotations

import sys
import time
from typing import Any

from agent.cli import main
from agent.toolset import Toolset

STARTED = "[slow triage started]"


def _install(seconds: float) -> None:
    original = Toolset.call
    calls: list[str] = []

    def call(self: Toolset, name: str, arguments: Any) -> Any:
        calls.append(name)
        if name == "triage" and calls.count("triage") == 1:
            sys.stderr.write(STARTED + "\n")
            sys.stderr.flush()
            time.sleep(seconds)
        return original(self, name, arguments)

    Toolset.call = call  # type: ignore[method-assign]


if __name__ == "__main__":
    _install(float(sys.argv[1]))
    sys.argv = ["hyperpod-debug", *sys.argv[2:]]
    main()
