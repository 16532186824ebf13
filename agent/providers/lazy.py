"""An SDK client built on first use, or beforehand in a background thread.

Importing the anthropic SDK and building its client costs about a second of CPU, which the
chat's banner and first prompt should not wait for (agent/chat/warmup.py runs `prepare` once
the prompt is drawn). A call that comes before the warm-up has finished waits for it under
the lock; one that comes before it began builds the client itself. A failure to build is
left for the first call to raise, in the caller's thread, where it can be shown as one line.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

Client = TypeVar("Client")


class LazyClient(Generic[Client]):
    def __init__(self, build: Callable[[], Client], built: Client | None = None) -> None:
        self._build = build
        self._built = built
        self._building = threading.Lock()

    @property
    def ready(self) -> bool:
        """Whether the client has been built (by a call or by the warm-up)."""
        return self._built is not None

    def get(self) -> Client:
        """The client, built now if no call or warm-up has built it yet."""
        with self._building:
            if self._built is None:
                self._built = self._build()
            return self._built

    def prepare(self) -> None:
        """Build the client now; never raises (the first call raises the failure again)."""
        try:
            self.get()
        except Exception:
            return
