"""The explicit list of check modules; importing one registers its checks.

Order here is the order checks run and appear in reports (cluster first, then network,
then provisioning, then nodes).
"""

from tools.checks import (  # noqa: F401
    capacity,
    cluster_status,
    eks_alignment,
    events,
    health_monitoring,
    lifecycle,
    nodes,
    security_groups,
    threads_per_core,
    vpc,
)
