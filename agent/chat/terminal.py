"""Input from a terminal."""

from __future__ import annotations


class TerminalReader:
    interactive = True

    def read_message(self) -> str | None:
        try:
            return input("you> ")
        except EOFError:
            return None

    def confirm(self, question: str) -> str | None:
        try:
            return input(f"{question} ")
        except EOFError:
            return None
