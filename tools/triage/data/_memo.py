"""The memo every read goes through: each answer, or each AWS error, is kept for the run."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeVar

from tools.aws.errors import AwsAccessError
from tools.aws.session import AwsAccess
from tools.sources import SourceUnavailable
from tools.triage.target import TriageTarget

if TYPE_CHECKING:
    from tools.triage.data.nodes import NodeSources

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
        from tools.triage.data.nodes import NodeSources

        self.access = access
        self.sources = sources or NodeSources()
        self.target = target
        self.now = now or datetime.now(UTC)
        self._memo: dict[tuple[Any, ...], Any] = {}
        self._lock = threading.RLock()

    def _once(self, key: tuple[Any, ...], fetch: Callable[[], T]) -> T:
        with self._lock:
            if key in self._memo:
                value = self._memo[key]
                if isinstance(value, _REMEMBERED):
                    raise value
                result: T = value
                return result
        try:
            value = fetch()
        except _REMEMBERED as exc:
            with self._lock:
                self._memo[key] = exc
            raise
        with self._lock:
            self._memo[key] = value
        return value
