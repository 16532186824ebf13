"""The data files of classifier cases: ``<kind> <rank> | <command>`` per line, ``#``
comments; the commands are read as strings and never run."""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).parent / "data"


def classifier_cases(name: str) -> list[tuple[str, int, str]]:
    """(kind, rank, command) of every case in ``data/<name>``."""
    cases: list[tuple[str, int, str]] = []
    for line in (DATA / name).read_text("utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        head, command = line.split("|", 1)
        kind, rank = head.split()
        cases.append((kind, int(rank), command.strip()))
    return cases
