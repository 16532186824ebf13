"""The cluster a conversation looks at: opened once, shared by every tool call, read afresh
on re-triage.

Checks in one conversation share one `ClusterData`, so five check calls read the cluster
once. A re-triage (the user applied a change) drops it and opens the cluster again; with a
sequence of recordings (`--recorded before.json --recorded after.json`) it moves on to the
next one, which is how a recorded conversation sees the fixed cluster.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from tools.target import TriageTarget

if TYPE_CHECKING:
    from tools.ownership.model import IacOwner
    from tools.ownership.resolve import Owners
    from tools.recorded.model import RecordedCluster
    from tools.triage.data import ClusterData
    from tools.triage.node_sources import NodeOptions


class NoCluster(Exception):
    """No cluster is open yet: the model must ask the user which one."""


@dataclass
class ClusterSession:
    target: TriageTarget | None = None
    recordings: list[RecordedCluster] = field(default_factory=list)
    options: NodeOptions | None = None
    profile: str | None = None
    endpoint_url: str | None = None
    _position: int = 0
    _data: ClusterData | None = None
    _owners: Owners | None = None

    @property
    def recorded(self) -> bool:
        return bool(self.recordings)

    @property
    def position(self) -> int:
        """Index of the recording being replayed (0 without recordings)."""
        return self._position

    @property
    def recording(self) -> RecordedCluster | None:
        return self.recordings[self._position] if self.recordings else None

    def data(self) -> ClusterData:
        """The shared data, opened on first use (CredentialsError, ClusterNotFound and
        AwsAccessError propagate to the tool layer, which turns them into error results)."""
        if self.target is None:
            from agent.toolset.failures import NO_CLUSTER_ERROR

            raise NoCluster(NO_CLUSTER_ERROR)
        if self._data is None:
            from tools.triage.open_cluster import DataSource, open_cluster

            self._data = open_cluster(
                self.target,
                source=DataSource(
                    recorded=self.recording, profile=self.profile, endpoint_url=self.endpoint_url
                ),
                options=self.options,
            )
        return self._data

    def fresh_data(self) -> tuple[ClusterData, datetime]:
        """A read of the cluster apart from the shared one (which stays as the triage left
        it), and the time it is of: `verify` re-reads with it. Live, the cluster now; in a
        replay, the last recording given (the latest state known of the cluster), without
        moving the replay on."""
        if self.target is None:
            from agent.toolset.failures import NO_CLUSTER_ERROR

            raise NoCluster(NO_CLUSTER_ERROR)
        from tools.triage.open_cluster import DataSource, open_cluster, recording_time

        latest = self.recordings[-1] if self.recordings else None
        data = open_cluster(
            self.target,
            source=DataSource(
                recorded=latest, profile=self.profile, endpoint_url=self.endpoint_url
            ),
            options=self.options,
        )
        return data, recording_time(latest) if latest is not None else datetime.now(UTC)

    def owner_of(self, resource: str) -> IacOwner | None:
        """Who manages ``resource`` (tools.ownership), read lazily and once per resource
        from the data the conversation shares; None when no cluster is open or it cannot
        be opened (the tool that opens it says why), or for a resource not looked up."""
        from tools.aws.errors import AwsAccessError, CredentialsMissing
        from tools.ownership.resolve import Owners
        from tools.triage.data import ClusterNotFound

        if self.target is None:
            return None
        try:
            data = self.data()
        except (AwsAccessError, CredentialsMissing, ClusterNotFound, NoCluster):
            return None
        if self._owners is None or self._owners.data is not data:
            self._owners = Owners(data)
        return self._owners.of(resource)

    def refresh(self) -> bool:
        """Forget what was read, so the next read fetches afresh. Returns True when a newer
        recording was taken (a replay has nothing newer to read otherwise)."""
        self._data = None
        if self._position + 1 < len(self.recordings):
            self._position += 1
            return True
        return False

    def seek(self, position: int) -> None:
        """Replay from the recording at `position` (a resumed conversation continues where
        it was); out of range, the nearest one."""
        self._data = None
        self._position = max(0, min(position, len(self.recordings) - 1))

    def reload(self) -> None:
        """Forget what was read (the next read fetches afresh), staying on this recording."""
        self._data = None

    def use(self, target: TriageTarget) -> None:
        if self.target is not None:
            raise ValueError(
                f"cluster {self.target.cluster} ({self.target.region}) is already open in this "
                "conversation; start a new conversation for another cluster"
            )
        self.target = target
        self._data = None

    def forget(self) -> None:
        """Close a target that could not be opened (unknown name, wrong region, unusable
        credentials), so that another can be named; nothing was read from it."""
        self.target = None
        self._data = None
