"""The explicit list of check modules; importing one registers its checks.

`CHECK_MODULES` is the order checks run and appear in reports (cluster first, then
network, then provisioning, then nodes). Add a new module here and nowhere else.
"""

import importlib

CHECK_MODULES: tuple[str, ...] = (
    "cluster_status",
    "node_status",
    "events",
    "cluster_operations",
    "security_groups",
    "security_group_egress",
    "vpc_membership",
    "vpc_dns",
    "private_subnets",
    "vpc_endpoints",
    "subnet_free_ips",
    "eni_quota",
    "eks_alignment",
    "hyperpod_namespace",
    "capacity",
    "lifecycle_bucket",
    "lifecycle_logs",
    "threads_per_core",
    "cloudwatch_logs",
    "health_monitoring",
    # Node level: Kubernetes, then on-node probes, then Slurm.
    "k8s_node_health",
    "k8s_node_mapping",
    "k8s_system_pods",
    "k8s_pod_failures",
    "node_reachability",
    "node_disk",
    "node_memory",
    "node_shm",
    "node_time_sync",
    "node_services",
    "node_kernel",
    "node_vcpus",
    "gpu_devices",
    "gpu_xid",
    "gpu_ecc",
    "gpu_row_remap",
    "gpu_page_retirement",
    "gpu_dcgm",
    "gpu_dcgm_logs",
    "deep_health_checks",
    "gpu_throttle",
    "neuron_devices",
    "neuron_errors",
    "efa_devices",
    "node_network",
    "node_versions",
    "slurm_nodes",
    "slurm_jobs",
    "slurm_mapping",
)

for _name in CHECK_MODULES:
    importlib.import_module(f"tools.checks.{_name}")
