"""CloudWatch Logs reads: the cluster's log group, its streams, and matching events of
the last week (read newest window first)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from tools.aws.session import PageRead, StoppedBy
from tools.triage.data.logs_model import LogEvent, LogEventListing, LogStreamListing
from tools.triage.data.sagemaker import SageMakerReads

LOG_WINDOW = timedelta(days=7)
# FilterLogEvents answers oldest first, so a capped read over the whole week would keep its
# oldest lines: the week is read newest window first (see `recent_log_events`).
LOG_WINDOWS = (timedelta(hours=1), timedelta(days=1), LOG_WINDOW)
LOG_PAGE_BUDGET = 5  # FilterLogEvents pages per window (pages may be sparse, even empty)


class LogReads(SageMakerReads):
    @property
    def log_group_name(self) -> str:
        return f"/aws/sagemaker/Clusters/{self.cluster_name}/{self.cluster_id}"

    def log_group_exists(self) -> bool:
        def fetch() -> bool:
            groups = self.access.call(
                "logs", "DescribeLogGroups", logGroupNamePrefix=self.log_group_name
            ).get("logGroups", [])
            return any(g.get("logGroupName") == self.log_group_name for g in groups)

        return self._once(("log-group",), fetch)

    def log_stream_count(self, prefix: str, max_pages: int = 2) -> LogStreamListing:
        """The names of the first log streams under `prefix`, at most `max_pages` pages of
        50: enough to say how many there are, or "at least N" when `truncated`."""
        return self._once(
            ("log-stream-count", prefix, max_pages),
            lambda: LogStreamListing.from_paged(
                self.access.paginate(
                    "logs",
                    "DescribeLogStreams",
                    PageRead(
                        "logStreams",
                        page_size=50,
                        cap=50 * max_pages,
                        token_key="nextToken",
                        size_key="limit",
                        max_pages=max_pages,
                    ),
                    logGroupName=self.log_group_name,
                    logStreamNamePrefix=prefix,
                )
            ),
        )

    def recent_log_events(
        self,
        stream_prefix: str,
        filter_pattern: str,
        cap: int = 200,
        max_pages: int = LOG_PAGE_BUDGET,
    ) -> LogEventListing:
        """Matching events of the last week, newest window first.

        FilterLogEvents returns the oldest events of its time range first, so the week is
        read as the last hour, then the rest of the last day, then the rest of the week,
        each with the budget the newer windows left. `truncated` when a window was cut
        short or an older window was left unread; `stopped_by` "cap" when `cap` lines were
        held, "pages" when a window's page budget ran out first (the scan is incomplete,
        not full), else "end".
        """

        def fetch() -> LogEventListing:
            items: list[dict[str, Any]] = []
            truncated = False
            capped = paged = False
            end = int(self.now.timestamp() * 1000)
            for span in LOG_WINDOWS:
                budget = cap - len(items)
                if budget <= 0:
                    truncated = capped = True
                    break
                start = int((self.now - span).timestamp() * 1000)
                if start > end:
                    continue
                result = self.access.paginate(
                    "logs",
                    "FilterLogEvents",
                    PageRead(
                        "events",
                        page_size=min(budget, 100),
                        cap=budget,
                        token_key="nextToken",
                        size_key="limit",
                        max_pages=max_pages,
                    ),
                    logGroupName=self.log_group_name,
                    logStreamNamePrefix=stream_prefix,
                    filterPattern=filter_pattern,
                    startTime=start,
                    endTime=end,
                )
                items.extend(result.items)
                truncated = truncated or result.truncated
                capped = capped or result.stopped_by == "cap"
                paged = paged or result.stopped_by == "pages"
                end = start - 1  # endTime is inclusive: no event is read twice
            stopped_by: StoppedBy = "cap" if capped else "pages" if paged else "end"
            return LogEventListing(
                items=tuple(LogEvent.from_api(e) for e in items if isinstance(e, dict)),
                truncated=truncated,
                stopped_by=stopped_by,
            )

        return self._once(("recent-log-events", stream_prefix, filter_pattern, cap), fetch)
