"""Input from a terminal, through prompt_toolkit.

Why prompt_toolkit rather than `input()` with readline: it gives the same line editing,
history and bracketed paste on Linux, macOS (where Python's readline is often libedit) and
Windows; it parses a bracketed paste as one event, so a pasted ticket is one message
however many lines it has; and Ctrl-C and Ctrl-D reach us as exceptions we decide on.

Keys at the prompt:
- Enter sends; Alt-Enter (Esc then Enter), Ctrl-J, or a line ending in a backslash adds a
  line instead (to compose a message of several lines by hand).
- A paste is one message. A paste of several lines is shown as one placeholder
  (`[pasted text #1: 200 lines]`) and sent whole, so the screen stays readable and a long
  ticket does not have to be redrawn on every key.
- Up and Down recall earlier messages of this chat. History is kept in memory only:
  messages hold pasted logs and tickets, which may hold secrets, so none is written to disk.
- Ctrl-C clears the line; on an empty line it says how to leave, and a second Ctrl-C leaves.
  Presses in the first second after an answer count for that answer, not for leaving: a
  user who presses Ctrl-C several times to stop a turn stops the turn and stays.
- Ctrl-D on an empty line ends the chat.

While an answer is being written the terminal does not echo keys (`quiet_keys`), so
typing cannot break into the answer; what was typed waits for the next prompt, where it
appears and can be edited, and Ctrl-C still interrupts the turn.
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

PROMPT = "you> "
CONTINUATION = "...  "
# A paste of more lines than this is shown as a placeholder rather than inline.
PASTE_INLINE_LINES = 1
LEAVE_HINT = "(Ctrl-C again, Ctrl-D or /quit to leave)"
# Seconds after the prompt comes back from a turn during which Ctrl-C on an empty line only
# clears it: the presses that stopped the turn arrive a moment later, at the prompt.
SETTLE_SECONDS = 1.0
_PLACEHOLDER = re.compile(r"\[pasted text #(\d+): \d+ lines\]")


class Pastes:
    """Pasted texts kept aside while the placeholder stands in for them in the line.

    They are kept for the chat (in memory, as the history is): ↑ recalls a sent line with
    its placeholder, which must still stand for the paste rather than reach the model as
    `[pasted text #1: 3 lines]`. Numbers are never reused, so a placeholder names one paste."""

    def __init__(self) -> None:
        self._texts: dict[int, str] = {}
        self._count = 0

    def placeholder(self, text: str) -> str:
        self._count += 1
        self._texts[self._count] = text
        return f"[pasted text #{self._count}: {text.count(chr(10)) + 1} lines]"

    def expand(self, line: str) -> str:
        """The line with each placeholder replaced by its paste (one edited away is not)."""

        def whole(match: re.Match[str]) -> str:
            return self._texts.get(int(match.group(1)), match.group(0))

        return _PLACEHOLDER.sub(whole, line)


def _bindings(pastes: Pastes) -> KeyBindings:
    from prompt_toolkit.key_binding import KeyBindings
    from prompt_toolkit.keys import Keys

    bindings = KeyBindings()

    @bindings.add(Keys.BracketedPaste)
    def _paste(event: KeyPressEvent) -> None:
        # Some terminals paste \r\n or \r line endings.
        data = event.data.replace("\r\n", "\n").replace("\r", "\n")
        lines = data.rstrip("\n").count("\n") + 1
        if lines > PASTE_INLINE_LINES:
            event.current_buffer.insert_text(pastes.placeholder(data.rstrip("\n")))
        else:
            event.current_buffer.insert_text(data.rstrip("\n"))

    @bindings.add("escape", "enter")
    @bindings.add("c-j")
    def _newline(event: KeyPressEvent) -> None:
        event.current_buffer.insert_text("\n")

    @bindings.add("enter")
    def _enter(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        before = buffer.document.text_before_cursor
        if buffer.document.is_cursor_at_the_end and before.endswith("\\"):
            buffer.delete_before_cursor(1)
            buffer.insert_text("\n")
            return
        buffer.validate_and_handle()

    return bindings


class TerminalReader:
    """Reads messages at a `you>` prompt with line editing, history and paste."""

    interactive = True

    def __init__(
        self,
        *,
        colour: bool = True,
        output: TextIO | None = None,
        on_shown: Callable[[], None] | None = None,
    ) -> None:
        self.colour = colour
        self.output = output or sys.stdout
        self.pastes = Pastes()
        self.on_shown = on_shown
        """Called once, when the first prompt has been drawn (the SDK's warm-up starts then,
        so it does not compete with drawing the prompt for the interpreter)."""
        self._session: PromptSession[str] | None = None
        self._prompted = False

    def _after_first_draw(self) -> None:
        """A `pre_run` hook: the prompt is about to be drawn; run `on_shown` after it is."""
        callback, self.on_shown = self.on_shown, None
        if callback is None:
            return
        from prompt_toolkit.application import get_app

        app = get_app()

        def drawn(_app: object) -> None:
            app.after_render -= drawn
            callback()

        app.after_render += drawn

    def _prompt_session(self) -> PromptSession[str]:
        if self._session is None:
            from prompt_toolkit import PromptSession
            from prompt_toolkit.history import InMemoryHistory
            from prompt_toolkit.output.color_depth import ColorDepth
            from prompt_toolkit.styles import Style

            style = Style.from_dict({"prompt": "bold ansicyan", "continuation": "ansigray"})
            self._session = PromptSession(
                history=InMemoryHistory(),
                key_bindings=_bindings(self.pastes),
                multiline=True,  # Enter is bound above: it sends unless the line continues
                prompt_continuation=lambda _width, _line, _wrap: [
                    ("class:continuation", CONTINUATION)
                ],
                style=style if self.colour else None,
                color_depth=None if self.colour else ColorDepth.MONOCHROME,
                enable_suspend=True,
            )
        return self._session

    def read_message(self) -> str | None:
        """The next message; None once the user ends the chat (Ctrl-D, two Ctrl-C)."""
        session = self._prompt_session()
        if self._prompted:
            self.output.write("\n")  # a blank line between one turn and the next prompt
            self.output.flush()
        settle_until = time.monotonic() + SETTLE_SECONDS if self._prompted else 0.0
        self._prompted = True
        warned = False
        while True:
            try:
                line = session.prompt([("class:prompt", PROMPT)], pre_run=self._after_first_draw)
            except KeyboardInterrupt:
                # Ctrl-C clears the line; twice on an empty line leaves.
                typed = session.default_buffer.text
                if not typed.strip() and time.monotonic() < settle_until:
                    continue
                if not typed.strip() and warned:
                    self.output.write("\n")
                    return None
                if not typed.strip():
                    self.output.write(f"{LEAVE_HINT}\n")
                    warned = True
                self.output.flush()
                continue
            except EOFError:
                # Leave the shell's prompt on a line of its own.
                self.output.write("\n")
                self.output.flush()
                return None
            return self.pastes.expand(line)

    def confirm(self, question: str) -> str | None:
        """The answer to a question; None on Ctrl-D. Ctrl-C is not an answer: it raises
        KeyboardInterrupt, so the message that led to the question is cancelled rather
        than sent as it was (a paid turn the user just tried to stop)."""
        from prompt_toolkit import prompt

        try:
            return prompt(f"{question} ")
        except EOFError:
            return None


@contextmanager
def quiet_keys(stream: TextIO | None = None) -> Iterator[None]:
    """The terminal does not echo keys while the block runs (an answer is being written);
    Ctrl-C still interrupts (ISIG stays on), and typed keys wait for the next prompt.
    Does nothing where there is no terminal (or no termios: Windows)."""
    stream = stream or sys.stdin
    try:
        import termios

        descriptor = stream.fileno()
        saved = termios.tcgetattr(descriptor)
    except (ImportError, OSError, ValueError, AttributeError):
        yield
        return
    quiet = list(saved)
    quiet[3] = quiet[3] & ~termios.ECHO
    try:
        termios.tcsetattr(descriptor, termios.TCSANOW, quiet)
        yield
    finally:
        with suppress(OSError):
            termios.tcsetattr(descriptor, termios.TCSANOW, saved)
