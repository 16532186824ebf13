"""Every error signature, gathered from one module per area.

Each area module holds a ``SIGNATURES`` tuple of plain data. The order here does not
affect ranking: scores decide it, and ties are broken by section order.
"""

from __future__ import annotations

from tools.explain.signature import Signature
from tools.explain.signatures import access, cluster, gpu, network, node, workloads

ALL_SIGNATURES: tuple[Signature, ...] = (
    *gpu.SIGNATURES,
    *network.SIGNATURES,
    *cluster.SIGNATURES,
    *workloads.SIGNATURES,
    *node.SIGNATURES,
    *access.SIGNATURES,
)
