"""Input from a pipe or a file: one message a line, as the README's examples use it."""

from __future__ import annotations

import sys
from typing import TextIO


class PipedReader:
    interactive = False

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stdin

    def read_message(self) -> str | None:
        line = self.stream.readline()
        return line if line else None

    def confirm(self, question: str) -> str | None:
        line = self.stream.readline()
        return line if line else None
