"""The shape of a row of the remediation table: the signal ids, the first actions, when a
replacement is justified, and the row itself with its words."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

EVIDENCE_KEY = "remediation"
"""The evidence key a finding names its row with (the `Signal` value)."""


class Signal(StrEnum):
    """What the evidence shows, one id per row of the table."""

    GPU_UNCORRECTABLE_ECC = "gpu-uncorrectable-ecc"
    GPU_ROW_REMAP_PENDING = "gpu-row-remap-pending"
    GPU_ROW_REMAP_FAILURE = "gpu-row-remap-failure"
    XID_REMAP_NOT_RECORDED = "xid-64-remap-not-recorded"
    GPU_SPARE_ROWS_LOW = "gpu-spare-rows-low"
    GPU_PAGE_RETIREMENT_PENDING = "gpu-page-retirement-pending"
    GPU_MISSING = "xid-79-missing-gpu"
    HARDWARE_XID = "hardware-xid"
    HARDWARE_XID_REPEATED = "hardware-xid-repeated-after-reboot"
    APPLICATION_XID = "application-xid"
    DCGM_DIAG_FAILURE = "dcgm-diag-failure"
    ACCELERATOR_DEVICES_MISSING = "accelerator-devices-missing"
    NEURON_SRAM_UE = "neuron-sram-uncorrectable"
    NEURON_NC_UE = "neuron-nc-uncorrectable"
    NEURON_HBM_UE = "neuron-hbm-uncorrectable"
    NEURON_HBM_REPAIRABLE = "neuron-hbm-repairable"
    NEURON_DMA_ABORT = "neuron-dma-abort"
    NEURON_HANG_ON_COMPUTE = "neuron-hang-on-compute"
    NEURON_HANG_ON_COLLECTIVES = "neuron-hang-on-collectives"
    NEURON_UNKNOWN = "neuron-unknown-error"
    NEURON_ACTION_TERMINATE = "neuron-action-terminate"
    NEURON_ACTION_RESTART_WORKLOAD = "neuron-action-restart-workload"
    NEURON_ACTION_REBOOT = "neuron-action-reboot"
    LABEL_PENDING_REPLACEMENT = "k8s-pending-replacement"
    LABEL_PENDING_REBOOT = "k8s-pending-reboot"
    DEEP_HEALTH_CHECK_FAILED = "deep-health-check-failed"
    DHC_REPLACEMENT_REQUIRED = "deep-health-check-replacement-required"
    DHC_REBOOT_REQUIRED = "deep-health-check-reboot-required"
    NODE_FAILURE_STATUS = "node-failure-status"
    DRIVER_LOADED_DIFFERS = "driver-loaded-differs"
    IMAGE_DRIFT = "image-drift"
    THREADS_PER_CORE = "threads-per-core"
    FAILED_BOOTSTRAP = "failed-bootstrap"


class FirstAction(StrEnum):
    """The first step the evidence calls for (the escalation's first rung for that signal)."""

    INVESTIGATE = "investigate"
    RESTART_WORKLOAD = "restart the workload"
    REBOOT = "reboot"
    UPDATE_CLUSTER_SOFTWARE = "update the cluster software"
    FIX_CONFIGURATION = "fix the configuration"
    REPLACE = "replace"


class Replacement(StrEnum):
    """When replacing the node is justified by this evidence."""

    NEVER = "never"
    AFTER_REBOOT = "after a reboot did not help"
    AFTER_FIRST_ACTION = "only after the first action did not fix it"
    IMMEDIATELY = "immediately: the evidence is conclusive"


@dataclass(frozen=True, slots=True)
class Rule:
    """One row: the evidence, the first action, when a replacement is justified, and the
    words every reader shows (`first`, `then`), with the reference section and the source."""

    signal: Signal
    evidence: str  # what was seen, as the prompt names it
    first_action: FirstAction
    replacement: Replacement
    first: str  # the first action, in the words a finding appends
    then: str  # what follows it, ending on when to replace (or why never)
    section: str
    source: str

    @property
    def advice(self) -> str:
        """The advice clause a finding ends with."""
        return f"{self.first}; {self.then}"

    @property
    def drain_first(self) -> bool:
        """A reboot or a replacement takes the node away from its jobs: drain it first."""
        return self.first_action in (FirstAction.REBOOT, FirstAction.REPLACE) or (
            self.replacement is not Replacement.NEVER
        )
