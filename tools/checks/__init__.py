"""The explicit list of check modules; importing one registers its checks.

`CHECK_MODULES` is the order checks run and appear in reports (cluster first, then
network, then provisioning, then nodes). Add a new module here and nowhere else.
"""

import importlib

CHECK_MODULES: tuple[str, ...] = (
    "cluster_status",
    "nodes",
    "events",
    "security_groups",
    "vpc_membership",
    "vpc_dns",
    "private_subnets",
    "vpc_endpoints",
    "subnet_free_ips",
    "eks_alignment",
    "capacity",
    "lifecycle_bucket",
    "lifecycle_logs",
    "threads_per_core",
    "health_monitoring",
)

for _name in CHECK_MODULES:
    importlib.import_module(f"tools.checks.{_name}")
