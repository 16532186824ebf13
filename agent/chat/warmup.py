"""Import the model SDK in the background while the user types the first message.

`import anthropic` (and building its client) costs about a second and a half of CPU. The
chat prints its banner and first prompt without it, then starts this warm-up; the first
model call waits for it (the provider builds its client under a lock, so a call that
comes first simply waits, or builds the client itself if the warm-up has not begun). A
slash command never needs the SDK and never waits.

Threads and imports: CPython holds one lock per module being imported, so the two
threads can import at once. The main thread meanwhile only reads the prompt, which shares
no module being initialised with the SDK's import chain beyond the standard library's,
and for those the per-module locks serialise the two threads (the second waits for the
first to finish the module; the import machinery breaks a true cycle of two threads
instead of deadlocking). The thread is a daemon: a user who quits before it finishes is
not kept waiting, and it writes nothing. A failure is not reported here: the first model
call raises it again, in the main thread, as one line.
"""

from __future__ import annotations

import threading
from typing import Protocol, runtime_checkable


@runtime_checkable
class Preparable(Protocol):
    def prepare(self) -> None:
        """Do the slow set-up (imports, clients) now; never raise."""
        ...


def start(provider: object) -> threading.Thread | None:
    """Start `provider.prepare()` in a daemon thread, if it has one (the scripted provider
    has nothing to prepare)."""
    if not isinstance(provider, Preparable):
        return None
    thread = threading.Thread(target=provider.prepare, name="sdk-warm-up", daemon=True)
    thread.start()
    return thread
