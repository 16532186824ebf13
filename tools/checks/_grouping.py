"""When many alike problems become one finding: shared by the node-status checks of
HyperPod and Kubernetes, so that they group at the same size."""

from __future__ import annotations

# Above this many nodes of one group in one status, the nodes are reported as one finding
# (a rolling update of a 20,000-node cluster must not print 20,000 lines).
GROUP_ABOVE = 20
