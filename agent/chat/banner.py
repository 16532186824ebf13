"""The first lines of a chat: what it talks to, and on a terminal what to type first."""

from __future__ import annotations


def banner(*, provider: str, model: str, where: str | None, interactive: bool) -> str:
    """`where` is the cluster as "name (region)", or None before one is named. Piped input
    gets the one identifying line only (a script reads its output); a person at a terminal
    also gets where to start."""
    lines = [f"hyperpod-debug chat · {provider}:{model} · {where or 'no cluster yet'}"]
    if interactive:
        start = (
            "/triage checks the cluster"
            if where
            else "/cluster NAME REGION opens a cluster (or just ask)"
        )
        lines.append(
            f"Describe the problem or paste an error; {start}; /help lists the commands; "
            "/quit or Ctrl-D ends."
        )
    return "\n".join(lines)
