"""The reference sections every finding and every explain match points into.

This is the single source of truth for section ids, titles and anchors. The headings in
``references/node-diagnostics-detail.md`` are written from this table (an integrity test
holds them together), so code can link to a section without parsing Markdown.
"""

from __future__ import annotations

from dataclasses import dataclass

REFERENCE_PATH = "references/node-diagnostics-detail.md"
CATALOG_PATH = "references/node-issue-catalog.md"


@dataclass(frozen=True)
class Section:
    id: str
    title: str

    @property
    def anchor(self) -> str:
        """Stable HTML anchor: ``G.1.a`` -> ``g-1-a``."""
        return self.id.lower().replace(".", "-")

    @property
    def reference(self) -> str:
        return f"{REFERENCE_PATH}#{self.anchor}"

    @property
    def pointer(self) -> str:
        """The text form used on finding lines."""
        return f"{REFERENCE_PATH} § {self.id}"

    @property
    def heading_level(self) -> int:
        return 2 + self.id.count(".")

    @property
    def heading(self) -> str:
        return f"{'#' * self.heading_level} {self.id} {self.title}"


_SECTION_LIST: tuple[Section, ...] = (
    Section("A", "EFA and security groups"),
    Section("A.1", "Security-group egress: the nodes' way to AWS"),
    Section("B", "VPC and routing"),
    Section("B.1", "Subnets and security groups in one VPC"),
    Section("B.2", "DNS support and DNS hostnames"),
    Section("B.3", "Private subnets, NAT and internet gateways"),
    Section("B.4", "VPC endpoints"),
    Section("B.5", "EKS and HyperPod alignment"),
    Section("B.6", "Free IP addresses in subnets"),
    Section("B.7", "Network interfaces per Region"),
    Section("B.8", "FSx for Lustre client connectivity"),
    Section("C", "Capacity and Availability Zones"),
    Section("D", "Lifecycle scripts"),
    Section("D.1", "Lifecycle S3 bucket access"),
    Section("D.2", "Lifecycle script errors"),
    Section("E", "Software versions and job environment"),
    Section("F", "Hardware faults and automatic node recovery"),
    Section("F.1", "Cluster status and NodeRecovery"),
    Section("F.2", "Node health labels and fault details"),
    Section("F.3", "Health Monitoring Agent"),
    Section("F.4", "Manual reboot and replacement"),
    Section("G", "GPU and accelerator health"),
    Section("G.1", "Silent GPU memory degradation"),
    Section("G.1.a", "Row remapping"),
    Section("G.1.b", "DCGM diagnostics"),
    Section("G.2", "Xid errors"),
    Section("G.3", "ECC errors"),
    Section("G.4", "Thermal and power throttling"),
    Section("G.5", "Trainium and Inferentia (Neuron)"),
    Section("H", "Slurm node management"),
    Section("H.1", "Slurm node states"),
    Section("H.2", "Jobs stuck in PENDING, COMPLETING or CONFIGURING"),
    Section("H.3", "Slurm node names and instance ids"),
    Section("I", "Resource exhaustion"),
    Section("I.1", "Disk space and inodes"),
    Section("I.2", "Memory and OOM kills"),
    Section("I.3", "Shared memory (/dev/shm)"),
    Section("I.4", "Clock synchronisation"),
    Section("J", "Instance configuration"),
    Section("K", "SSM access to nodes"),
    Section("L", "Log collection"),
    Section("M", "Container runtime"),
    Section("N", "Kernel and system"),
    Section("O", "CNI and pod networking"),
)

SECTIONS: dict[str, Section] = {s.id: s for s in _SECTION_LIST}
TOP_LEVEL_IDS: tuple[str, ...] = tuple(s.id for s in _SECTION_LIST if "." not in s.id)


def section(section_id: str) -> Section:
    """Look a section up; an unknown id is a programming error and fails loudly."""
    try:
        return SECTIONS[section_id]
    except KeyError:
        raise KeyError(f"unknown reference section {section_id!r}") from None
