"""What a healthy node of an instance type should show: GPUs, Neuron devices, EFA, vCPUs.

DescribeInstanceTypes is the authority (GpuInfo, NeuronInfo, NetworkInfo.EfaInfo,
VCpuInfo); the small table below is the fallback when that read is denied or unrecorded.
Its EFA counts are a secondary source (see references § A).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel


class InstanceFacts(BaseModel):
    instance_type: str  # EC2 name, e.g. p5.48xlarge
    vcpus: int | None = None
    gpus: int = 0
    neuron_devices: int = 0
    efa_interfaces: int = 0
    instance_store: bool = False
    source: str = "DescribeInstanceTypes"

    @property
    def accelerator(self) -> str | None:
        if self.gpus:
            return "nvidia"
        if self.neuron_devices:
            return "neuron"
        return None


# type -> (vcpus, gpus, neuron devices, efa interfaces, instance store)
_FALLBACK: dict[str, tuple[int, int, int, int, bool]] = {
    "p4d.24xlarge": (96, 8, 0, 4, True),
    "p4de.24xlarge": (96, 8, 0, 4, True),
    "p5.48xlarge": (192, 8, 0, 32, True),
    "p5e.48xlarge": (192, 8, 0, 32, True),
    "p5en.48xlarge": (192, 8, 0, 16, True),
    "g5.48xlarge": (192, 8, 0, 1, True),
    "g5.12xlarge": (48, 4, 0, 0, True),
    "g5.8xlarge": (32, 1, 0, 1, True),
    "g5.xlarge": (4, 1, 0, 0, True),
    "g6.48xlarge": (192, 8, 0, 1, True),
    "g6e.48xlarge": (192, 8, 0, 4, True),
    "trn1.2xlarge": (8, 0, 1, 0, True),
    "trn1.32xlarge": (128, 0, 16, 8, True),
    "trn1n.32xlarge": (128, 0, 16, 16, True),
    "trn2.48xlarge": (192, 0, 16, 16, True),
    "inf2.xlarge": (4, 0, 1, 0, False),
    "inf2.8xlarge": (32, 0, 1, 0, False),
    "inf2.24xlarge": (96, 0, 6, 0, False),
    "inf2.48xlarge": (192, 0, 12, 0, False),
}


def ec2_type(hyperpod_type: str) -> str:
    """HyperPod instance types carry an ml. prefix; EC2 uses the bare type."""
    return hyperpod_type.removeprefix("ml.")


def from_describe(entry: dict[str, Any]) -> InstanceFacts:
    """Facts from one DescribeInstanceTypes entry (botocore output shape)."""
    gpus = sum(int(g.get("Count", 0)) for g in (entry.get("GpuInfo") or {}).get("Gpus", []))
    neuron = sum(
        int(d.get("Count", 0)) for d in (entry.get("NeuronInfo") or {}).get("NeuronDevices", [])
    )
    network = entry.get("NetworkInfo") or {}
    efa = (
        int((network.get("EfaInfo") or {}).get("MaximumEfaInterfaces", 0))
        if network.get("EfaSupported")
        else 0
    )
    vcpus = (entry.get("VCpuInfo") or {}).get("DefaultVCpus")
    return InstanceFacts(
        instance_type=str(entry.get("InstanceType", "")),
        vcpus=int(vcpus) if vcpus is not None else None,
        gpus=gpus,
        neuron_devices=neuron,
        efa_interfaces=efa,
        instance_store=bool(entry.get("InstanceStorageSupported", False)),
    )


def fallback(instance_type: str) -> InstanceFacts:
    name = ec2_type(instance_type)
    known = _FALLBACK.get(name)
    if known is None:
        return InstanceFacts(instance_type=name, source="unknown type")
    vcpus, gpus, neuron, efa, store = known
    return InstanceFacts(
        instance_type=name,
        vcpus=vcpus,
        gpus=gpus,
        neuron_devices=neuron,
        efa_interfaces=efa,
        instance_store=store,
        source="built-in table",
    )


def accelerator_family(instance_type: str) -> str | None:
    """nvidia / neuron by the type's family alone (used when no facts could be read)."""
    family = ec2_type(instance_type).split(".", 1)[0]
    if family.startswith(("trn", "inf")):
        return "neuron"
    if family.startswith(("p", "g")) and family[1:2].isdigit():
        return "nvidia"
    return None
