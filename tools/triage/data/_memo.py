"""The memo every read goes through: each answer, or each AWS error, is kept for the run.

Checks run concurrently (tools/triage/runner.py), so the memo is single-flight: the first
thread to ask for a key fetches it while every other thread asking for the same key waits
for that answer, so a read is never made twice, however many checks need it at once.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Self, TypeVar

from tools.aws.errors import AwsAccessError
from tools.aws.session import AwsAccess
from tools.sources import SourceUnavailable
from tools.target import TriageTarget

if TYPE_CHECKING:
    from tools.triage.data.node_probes import NodeSources

T = TypeVar("T")
_REMEMBERED = (AwsAccessError, SourceUnavailable)


class Memo:
    """The shared base of the `ClusterData` reads: access, target, `now` and the memo."""

    def __init__(
        self,
        access: AwsAccess,
        target: TriageTarget,
        now: datetime | None = None,
        sources: NodeSources | None = None,
    ) -> None:
        from tools.triage.data.node_probes import NodeSources

        self.access = access
        self.sources = sources or NodeSources()
        self.target = target
        self.now = now or datetime.now(UTC)
        # The caller's account (sts:GetCallerIdentity), set by open_cluster's preflight.
        self.account = ""
        self._memo: dict[tuple[Any, ...], Any] = {}
        # Keys being fetched right now -> (the fetching thread, set when it is done).
        self._pending: dict[tuple[Any, ...], tuple[int, threading.Event]] = {}
        self._lock = threading.RLock()

    def for_node(self, node: str | None) -> Self:
        """The same run seen with another node in focus (None: every node).

        The view shares the memo, the access and the sources, so what one view fetched the
        other reuses; the few reads that depend on the focus key their memo entries by it.
        `node` must already be validated (an instance id).
        """
        if node == self.target.node:
            return self
        view = copy.copy(self)  # shallow: the memo dict and its lock are shared
        view.target = self.target.model_copy(update={"node": node})
        return view

    def optional(self, read: Callable[[], T]) -> T | None:
        """The answer of `read`, or None when AWS refused or failed it.

        For checks that only use a read as extra context: the check that owns the read
        reports its error, so the others go on without it instead of repeating it.
        """
        try:
            return read()
        except AwsAccessError:
            return None

    def _once(self, key: tuple[Any, ...], fetch: Callable[[], T]) -> T:
        me = threading.get_ident()
        while True:
            with self._lock:
                if key in self._memo:
                    value = self._memo[key]
                    if isinstance(value, _REMEMBERED):
                        raise value
                    result: T = value
                    return result
                pending = self._pending.get(key)
                if pending is None:
                    done = threading.Event()
                    self._pending[key] = (me, done)
                    break
                owner, done = pending
            if owner == me:
                # The read of `key` asked for itself: waiting would never end.
                raise RuntimeError(f"the read {key!r} depends on itself")
            # Another check is reading it: wait for its answer (or, when its read failed
            # with an error the memo does not keep, ask again).
            done.wait()
        try:
            value = fetch()
        except _REMEMBERED as exc:
            with self._lock:
                self._memo[key] = exc
            raise
        else:
            with self._lock:
                self._memo[key] = value
            return value
        finally:
            with self._lock:
                del self._pending[key]
            done.set()
