"""The rows of the remediation table, with their sources, and the lookups every reader
uses (`rule`, `advice`, `tagged`, `known`, `replacement_first`)."""

from __future__ import annotations

from tools.remediation.model import EVIDENCE_KEY, FirstAction, Replacement, Rule, Signal

_NVIDIA_XID = "NVIDIA Xid catalogue"
_NVML_REMAP = "NVIDIA NVML remapped rows"
_NEURON_GUIDE = "AWS Neuron Runtime Troubleshooting, Hardware Errors table"
_NEURON_NPD = "aws-neuron-sdk neuron-problem-detector config"
_HYPERPOD = "SageMaker HyperPod node resiliency and manual replacement"
_HYPERPOD_DHC = "SageMaker HyperPod deep health checks (result log and DeepHealthCheckResults)"
_PROJECT = "project rule (§ F.4 escalation)"

RULES: tuple[Rule, ...] = (
    # -- NVIDIA GPUs ------------------------------------------------------------------------------
    Rule(
        Signal.GPU_UNCORRECTABLE_ECC,
        "uncorrectable ECC errors since the driver loaded",
        FirstAction.REBOOT,
        Replacement.AFTER_REBOOT,
        "isolate the node, reboot it to reset the GPUs and re-check row remapping",
        "replace it if a remap failed, stays pending or the errors return",
        "G.3",
        _NVIDIA_XID,
    ),
    Rule(
        Signal.GPU_ROW_REMAP_PENDING,
        "a row remap pending (Xid 63)",
        FirstAction.REBOOT,
        Replacement.AFTER_REBOOT,
        "a GPU reset applies it: reboot the node and check again",
        "still pending after the reboot → replace",
        "G.1.a",
        _NVML_REMAP,
    ),
    Rule(
        Signal.GPU_ROW_REMAP_FAILURE,
        "a row remapping failure (Remapping Failure Occurred: Yes)",
        FirstAction.REPLACE,
        Replacement.IMMEDIATELY,
        "isolate the node and replace it",
        "a reboot cannot give the bank spare rows back",
        "G.1.a",
        f"{_NVML_REMAP}; NVIDIA GPU Memory Error Management, RMA Policy",
    ),
    Rule(
        Signal.XID_REMAP_NOT_RECORDED,
        "an Xid 64 (a remap or retirement not recorded)",
        FirstAction.REBOOT,
        Replacement.AFTER_REBOOT,
        "isolate the node, reboot it to reset the GPU (NVIDIA's action for Xid 64) and read "
        "Remapping Failure Occurred",
        "Yes → replace; replace it also if the Xid returns",
        "G.1.a",
        f"{_NVIDIA_XID}; {_NVML_REMAP}",
    ),
    Rule(
        Signal.GPU_SPARE_ROWS_LOW,
        "spare rows almost used up, nothing pending or failed",
        FirstAction.INVESTIGATE,
        Replacement.AFTER_FIRST_ACTION,
        "watch row remapping after each job",
        "plan a replacement for when a remap fails or stays pending after a reboot",
        "G.1.a",
        _NVML_REMAP,
    ),
    Rule(
        Signal.GPU_PAGE_RETIREMENT_PENDING,
        "a page retirement pending",
        FirstAction.REBOOT,
        Replacement.AFTER_REBOOT,
        "reboot the node so the driver reload applies it",
        "still pending after the reboot → replace",
        "G.1.a",
        "NVIDIA Dynamic Page Retirement",
    ),
    Rule(
        Signal.GPU_MISSING,
        "a GPU missing or fallen off the bus (Xid 79)",
        FirstAction.REBOOT,
        Replacement.AFTER_REBOOT,
        "isolate the node, reboot it and count the GPUs again",
        "replace it if a GPU is still missing or the Xid returns",
        "G.2",
        _NVIDIA_XID,
    ),
    Rule(
        Signal.HARDWARE_XID,
        "a hardware Xid in this boot",
        FirstAction.REBOOT,
        Replacement.AFTER_REBOOT,
        "isolate the node, reboot it and check again",
        "replace it if the Xid returns",
        "G.2",
        _NVIDIA_XID,
    ),
    Rule(
        Signal.HARDWARE_XID_REPEATED,
        "the same hardware Xid on the same GPU again after a reboot",
        FirstAction.REPLACE,
        Replacement.IMMEDIATELY,
        "replace the node, not another reboot",
        "the reboot was the test and it failed",
        "G.2",
        _NVIDIA_XID,
    ),
    Rule(
        Signal.APPLICATION_XID,
        "an application Xid (13, 31, 43)",
        FirstAction.RESTART_WORKLOAD,
        Replacement.NEVER,
        "check the job's code and restart the job",
        "not a node fault: no reboot or replacement on this evidence",
        "G.2",
        _NVIDIA_XID,
    ),
    Rule(
        Signal.DCGM_DIAG_FAILURE,
        "a DCGM diagnostic or health failure",
        FirstAction.REBOOT,
        Replacement.AFTER_REBOOT,
        "reboot, then run the same dcgmi diag level again on the idle node",
        "replace it if it fails again",
        "G.1.b",
        "NVIDIA DCGM diagnostics",
    ),
    Rule(
        Signal.ACCELERATOR_DEVICES_MISSING,
        "fewer GPUs, Neuron or EFA devices than the instance type has",
        FirstAction.REBOOT,
        Replacement.AFTER_REBOOT,
        "reboot the node and count again",
        "replace it if devices are still missing",
        "G",
        _HYPERPOD,
    ),
    # -- Neuron (Trainium, Inferentia) ------------------------------------------------------------
    Rule(
        Signal.NEURON_SRAM_UE,
        "NEURON_HW_ERR=SRAM_UNCORRECTABLE_ERROR",
        FirstAction.REPLACE,
        Replacement.IMMEDIATELY,
        "replace the node (AWS's Neuron guide: replace the instance)",
        "a reboot keeps the same hardware",
        "G.5",
        f"{_NEURON_GUIDE}; {_NEURON_NPD}",
    ),
    Rule(
        Signal.NEURON_NC_UE,
        "NEURON_HW_ERR=NC_UNCORRECTABLE_ERROR",
        FirstAction.REPLACE,
        Replacement.IMMEDIATELY,
        "replace the node (AWS's Neuron guide: replace the instance)",
        "a reboot keeps the same hardware",
        "G.5",
        f"{_NEURON_GUIDE}; {_NEURON_NPD}",
    ),
    Rule(
        Signal.NEURON_HBM_UE,
        "NEURON_HW_ERR=HBM_UNCORRECTABLE_ERROR (unrepairable)",
        FirstAction.REPLACE,
        Replacement.IMMEDIATELY,
        "replace the node (AWS's Neuron guide: replace the instance)",
        "a reboot keeps the same hardware",
        "G.5",
        f"{_NEURON_GUIDE}; {_NEURON_NPD}",
    ),
    Rule(
        Signal.NEURON_HBM_REPAIRABLE,
        "a repairable HBM uncorrectable error",
        FirstAction.REBOOT,
        Replacement.AFTER_REBOOT,
        "reload the Neuron driver or reboot the node (AWS's Neuron guide: this one is repairable)",
        "replace it only if the error returns after that",
        "G.5",
        _NEURON_GUIDE,
    ),
    Rule(
        Signal.NEURON_DMA_ABORT,
        "NEURON_HW_ERR=DMA_ERROR (a DMA abort)",
        FirstAction.REPLACE,
        Replacement.IMMEDIATELY,
        "replace the node (AWS's Neuron guide: replace the instance)",
        "a reboot keeps the same hardware",
        "G.5",
        f"{_NEURON_GUIDE}; {_NEURON_NPD}",
    ),
    Rule(
        Signal.NEURON_HANG_ON_COMPUTE,
        "a Neuron hang on compute",
        FirstAction.REPLACE,
        Replacement.IMMEDIATELY,
        # The caveat is part of the first action, not of `then`: the prompt states a
        # replace-first row by its first action alone, and it must not lose the check.
        "once no other worker reports a hardware error the hang follows from, replace the "
        "node (AWS's Neuron guide: replace the instance)",
        "a reboot keeps the same hardware",
        "G.5",
        _NEURON_GUIDE,
    ),
    Rule(
        Signal.NEURON_HANG_ON_COLLECTIVES,
        "a Neuron hang on collectives (HANG_ON_COLLECTIVES, NRT_EXEC_HW_ERR_COLLECTIVES)",
        FirstAction.RESTART_WORKLOAD,
        Replacement.NEVER,
        "look on the job's other workers for an SRAM, HBM, DMA or hang-on-compute error and "
        "act on that worker, then restart the workload",
        "AWS's Neuron guide attributes this hang to a hardware error on another worker: do "
        "not reboot or replace this node for it",
        "G.5",
        _NEURON_GUIDE,
    ),
    Rule(
        Signal.NEURON_UNKNOWN,
        "an unknown NEURON_HW_ERR type, no action=",
        FirstAction.INVESTIGATE,
        Replacement.AFTER_REBOOT,
        "name it from neuron-ls, neuron-monitor and the runtime log (NRT errors)",
        "reboot if the devices misbehave; replace only if the error returns",
        "G.5",
        _NEURON_GUIDE,
    ),
    Rule(
        Signal.NEURON_ACTION_TERMINATE,
        "NEURON_HW_ERR with action=TERMINATE_INSTANCE",
        FirstAction.REPLACE,
        Replacement.IMMEDIATELY,
        "the driver printed action=TERMINATE_INSTANCE: replace the node",
        "a reboot keeps the same hardware",
        "G.5",
        _NEURON_GUIDE,
    ),
    Rule(
        Signal.NEURON_ACTION_RESTART_WORKLOAD,
        "NEURON_HW_ERR with an action= that restarts the workload",
        FirstAction.RESTART_WORKLOAD,
        Replacement.NEVER,
        "the driver asks for the workload to be restarted: restart the job",
        "no reboot or replacement on this evidence; replace only if a hardware class follows",
        "G.5",
        _NEURON_GUIDE,
    ),
    Rule(
        Signal.NEURON_ACTION_REBOOT,
        "NEURON_HW_ERR with an action= that reloads, resets or reboots",
        FirstAction.REBOOT,
        Replacement.AFTER_REBOOT,
        "the driver asks for a driver reload or reboot: reboot the node",
        "replace it only if the error returns after that",
        "G.5",
        _NEURON_GUIDE,
    ),
    # -- HyperPod's own verdicts ------------------------------------------------------------------
    Rule(
        Signal.LABEL_PENDING_REPLACEMENT,
        "node-health-status UnschedulablePendingReplacement",
        FirstAction.INVESTIGATE,
        Replacement.AFTER_REBOOT,
        "with NodeRecovery Automatic let HyperPod act; read the fault details and the "
        "node's evidence (§ G)",
        "replace it yourself only on conclusive evidence or after a reboot did not help",
        "F.2",
        _HYPERPOD,
    ),
    Rule(
        Signal.LABEL_PENDING_REBOOT,
        "node-health-status UnschedulablePendingReboot",
        FirstAction.REBOOT,
        Replacement.AFTER_REBOOT,
        "HyperPod asks for a reboot: let it reboot the node or reboot it with the batch API",
        "replace it only if the fault returns after the reboot",
        "F.2",
        _HYPERPOD,
    ),
    Rule(
        Signal.DEEP_HEALTH_CHECK_FAILED,
        "deep-health-check-status Failed",
        FirstAction.INVESTIGATE,
        Replacement.AFTER_REBOOT,
        "read the GPU / accelerator evidence (§ G), then reboot",
        "replace it only if the check fails again after the reboot",
        "F.2",
        _HYPERPOD,
    ),
    Rule(
        Signal.DHC_REPLACEMENT_REQUIRED,
        "a deep health check result replacementRequired",
        FirstAction.REPLACE,
        Replacement.IMMEDIATELY,
        "HyperPod replaces it (NodeRecovery Automatic); with None, drain and replace it",
        "AWS's own stress and connectivity tests found the fault: a reboot does not repair it",
        "G.1.b",
        _HYPERPOD_DHC,
    ),
    Rule(
        Signal.DHC_REBOOT_REQUIRED,
        "a deep health check result rebootRequired",
        FirstAction.REBOOT,
        Replacement.AFTER_REBOOT,
        "HyperPod reboots it (NodeRecovery Automatic); with None, drain and reboot it, then "
        "re-test it with StartClusterHealthCheck",
        "replace it only if the re-test fails",
        "G.1.b",
        _HYPERPOD_DHC,
    ),
    Rule(
        Signal.NODE_FAILURE_STATUS,
        "a node in Failure with NodeRecovery None",
        FirstAction.REBOOT,
        Replacement.AFTER_REBOOT,
        "read its status message and reboot it yourself",
        "replace it only if the reboot does not bring it back",
        "F.4",
        _HYPERPOD,
    ),
    # -- not hardware -----------------------------------------------------------------------------
    Rule(
        Signal.DRIVER_LOADED_DIFFERS,
        "a loaded driver that differs from the installed one",
        FirstAction.REBOOT,
        Replacement.NEVER,
        "reboot the node so it loads the installed driver, then compare versions again",
        "not a hardware fault: no replacement for it",
        "E",
        _PROJECT,
    ),
    Rule(
        Signal.IMAGE_DRIFT,
        "version drift between nodes",
        FirstAction.UPDATE_CLUSTER_SOFTWARE,
        Replacement.AFTER_FIRST_ACTION,
        "a node whose loaded driver differs from its installed one needs a reboot first; "
        "otherwise align the whole cluster with UpdateClusterSoftware",
        "replace a single node only if it still differs after the update",
        "E",
        f"{_HYPERPOD}; {_PROJECT}",
    ),
    Rule(
        Signal.THREADS_PER_CORE,
        "a node with the wrong ThreadsPerCore (e.g. 96 of 192 vCPUs on p5)",
        FirstAction.FIX_CONFIGURATION,
        Replacement.AFTER_FIRST_ACTION,
        "set ThreadsPerCore on the instance group (in its IaC source first)",
        # § J: whether running nodes take the value in place is not documented, so a
        # reboot and a vCPU count come before any replacement.
        "reboot existing nodes and count their vCPUs; replace, a batch at a time, only "
        "those that keep the old count",
        "J",
        _PROJECT,
    ),
    Rule(
        Signal.FAILED_BOOTSTRAP,
        "a node that failed bootstrap or its lifecycle scripts",
        FirstAction.FIX_CONFIGURATION,
        Replacement.AFTER_REBOOT,
        "fix the cause in the lifecycle scripts, bucket or role, then reboot the node or "
        "retry the creation",
        "replace it only if it still fails with the cause fixed",
        "D",
        _PROJECT,
    ),
)

_BY_SIGNAL: dict[Signal, Rule] = {rule.signal: rule for rule in RULES}

SLURM_DRAIN = 'scontrol update nodename=<NODE_NAME> state=drain reason="<why>"'
"""The Slurm drain command every reboot or replacement on Slurm starts with."""


def rule(signal: Signal | str) -> Rule:
    """The row for `signal` (an id string is accepted); KeyError for an unknown id."""
    return _BY_SIGNAL[Signal(signal)]


def advice(signal: Signal) -> str:
    """The advice clause of `signal`'s row."""
    return _BY_SIGNAL[signal].advice


def tagged(signal: Signal) -> dict[str, str]:
    """The evidence entry that names `signal`'s row on a finding (splat it into the
    finding's evidence): the agent's safety layer reads it."""
    return {EVIDENCE_KEY: signal.value}


def known(value: object) -> Signal | None:
    """`value` as a Signal when it names one (a finding's evidence), else None."""
    try:
        return Signal(str(value))
    except ValueError:
        return None


def replacement_first(signal: Signal | str) -> bool:
    """True when this evidence justifies a replacement before any reboot."""
    found = known(signal)
    return found is not None and _BY_SIGNAL[found].replacement is Replacement.IMMEDIATELY
