"""Every error signature, gathered from one module per area.

Each area module holds a ``SIGNATURES`` tuple of plain data. The order here does not
affect ranking: scores decide it, and ties are broken by section order.
"""

from __future__ import annotations

from tools.explain.signature import Signature
from tools.explain.signatures.access import SIGNATURES as ACCESS
from tools.explain.signatures.cluster import SIGNATURES as CLUSTER
from tools.explain.signatures.gpu import SIGNATURES as GPU
from tools.explain.signatures.network import SIGNATURES as NETWORK
from tools.explain.signatures.node import SIGNATURES as NODE
from tools.explain.signatures.workloads import SIGNATURES as WORKLOADS

ALL_SIGNATURES: tuple[Signature, ...] = (
    *GPU,
    *NETWORK,
    *CLUSTER,
    *WORKLOADS,
    *NODE,
    *ACCESS,
)
