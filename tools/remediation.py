"""When a node may be replaced: one table, signal → first action → when replacement is justified.

Every place that advises a node action reads this table: the checks take their advice words
from it (`advice`), the system prompt's destructive-order partial is rendered from it
(`prompts/_destructive_order.jinja2`), the agent's safety layer waives its
`replace-before-reboot` flag only for the signals whose rule allows a replacement before a
reboot (`replacement_first`), and the eval grader that judges replacement order consults it.
A finding names its row with the evidence key `remediation` (`EVIDENCE_KEY`), so the
conversation knows which rule a node's evidence falls under.

The escalation is investigate → reboot → replace: a replacement gives the node a new
instance and destroys its root and secondary volumes, so it comes first only on conclusive
evidence (a failed row remap, a hardware Xid back after a reboot, a Neuron error class that
AWS's Neuron guide pairs with replacing the instance, the driver's own
`action=TERMINATE_INSTANCE`, HyperPod's deep-health-check verdict `replacementRequired`).
A bare Xid 64 line is not conclusive: NVIDIA's catalogue names a GPU reset as its immediate
action, and the remapping-failure flag read after the reset is (NVIDIA's RMA policy keys
on that flag). HyperPod's own pending-replacement label is not by itself
such evidence for a manual replacement: with NodeRecovery Automatic HyperPod acts on it.
Non-hardware causes (image drift, ThreadsPerCore, a failed bootstrap) are fixed where they
come from; replacing a single node is their last step.

Sources, per row in `source`:
- NVIDIA Xid catalogue, https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html
  (79 → RESTART_BM; 48/63/64/94/95 memory errors; 64 "ECC page retirement or row remapper
  recording failure" → RESET_GPU; 13/31/43 application);
- NVIDIA NVML remapped rows,
  https://docs.nvidia.com/deploy/nvml-api/api/structnvmlRemappedRowsInfo__v2__t.html
  (bPending → a GPU reset applies it; bFailureOccurred → a remapping failure in the past),
  and NVIDIA GPU Memory Error Management, "RMA Policy"
  (https://docs.nvidia.com/deploy/a100-gpu-mem-error-mgmt/rma-policy-thresholds-for-row-remapping.html:
  the RMA criterion is the row-remapping failure flag, set when a bank's spare rows are used
  up, a remapped row fails again, or 512 remaps were made);
- AWS Neuron, *Neuron Runtime Troubleshooting*, "Hardware Errors" table
  (https://awsdocs-neuron.readthedocs-hosted.com/en/latest/neuron-runtime/nrt-troubleshoot.html):
  SRAM uncorrectable, HBM unrepairable uncorrectable, DMA aborts and hang on compute → replace
  the instance; HBM repairable uncorrectable → reload the driver or reboot; hang on
  collectives → "possibly caused by a hardware error on another worker": look for the other
  classes on the other workers, act there, then restart the workload;
- aws-neuron-sdk, the Neuron node problem detector's config
  (`src/k8/neuron-problem-detector/k8s-neuron-problem-detector-and-recovery-config.yml`:
  NEURON_HW_ERR=SRAM_UNCORRECTABLE_ERROR, NC_UNCORRECTABLE_ERROR, HBM_UNCORRECTABLE_ERROR,
  DMA_ERROR → condition NeuronHealth, reason NeuronHasError_<TYPE>; configurations in
  circulation add HANG_ON_COLLECTIVES the same way);
- SageMaker HyperPod, *Manually quarantine, replace, or reboot a node* and the
  BatchReplaceClusterNodes reference (volumes destroyed; the Slurm controller excluded;
  UpdateClusterSoftware first).

This module is a leaf: it imports nothing else of the project, so checks, prompts, the
agent and the evals can all read it (`tests/core/test_layers.py`).
"""

from __future__ import annotations

import re
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


# -- Neuron: NEURON_HW_ERR type and the driver's action= → one row -----------------------------

_NEURON_TYPES: dict[str, Signal] = {
    "SRAM_UNCORRECTABLE_ERROR": Signal.NEURON_SRAM_UE,
    "NC_UNCORRECTABLE_ERROR": Signal.NEURON_NC_UE,
    "HBM_UNCORRECTABLE_ERROR": Signal.NEURON_HBM_UE,
    "DMA_ERROR": Signal.NEURON_DMA_ABORT,
    "DMA_ABORT": Signal.NEURON_DMA_ABORT,
    "HANG_ON_COMPUTE": Signal.NEURON_HANG_ON_COMPUTE,
    "HANG_ON_COLLECTIVES": Signal.NEURON_HANG_ON_COLLECTIVES,
}
_TYPE_TOKEN = re.compile(r"[A-Z0-9_]+")
# "Not repairable" in any spelling a type may carry (NON_REPAIRABLE, NONREPAIRABLE,
# NOT_REPAIRABLE, UNREPAIRABLE, IRREPAIRABLE): it must be told apart before the bare
# "REPAIRABLE" test, which every one of them contains.
_NOT_REPAIRABLE = re.compile(r"(?:NON|NOT|UN|IR)_?REPAIRABLE")


def neuron_type_signal(error_type: str | None) -> Signal:
    """The row of a NEURON_HW_ERR type (or a NeuronHasError_<TYPE> reason's TYPE). A type
    that says it is repairable is the repairable-HBM row, and an HBM type that says it is
    not repairable is the unrepairable-HBM row, whatever the exact spelling (the driver's
    kernel names for these two are not in the guide: unverified)."""
    token = (error_type or "").strip().upper().removeprefix("NEURONHASERROR_")
    token = token if _TYPE_TOKEN.fullmatch(token) else ""
    if _NOT_REPAIRABLE.search(token):
        return Signal.NEURON_HBM_UE if "HBM" in token else Signal.NEURON_UNKNOWN
    if "REPAIRABLE" in token:
        return Signal.NEURON_HBM_REPAIRABLE
    return _NEURON_TYPES.get(token, Signal.NEURON_UNKNOWN)


_ACTION = re.compile(r"\baction=(?P<action>[A-Za-z_]{1,40})")


def neuron_action_in(text: str | None) -> str | None:
    """The action the Neuron driver printed on a NEURON_HW_ERR line (`action=<WORD>`),
    upper case, or None. The node problem detector's condition message carries the same
    kernel line, so both readers take the action from here."""
    match = _ACTION.search(text or "")
    return match["action"].upper() if match else None


def neuron_action_signal(action: str | None) -> Signal | None:
    """The row the driver's own `action=` asks for, or None when there is none or it is not
    one this table knows."""
    word = (action or "").upper()
    if "TERMINATE" in word or "REPLACE" in word:
        return Signal.NEURON_ACTION_TERMINATE
    if "RESTART" in word or "WORKLOAD" in word:
        return Signal.NEURON_ACTION_RESTART_WORKLOAD
    if any(w in word for w in ("REBOOT", "RELOAD", "RESET")):
        return Signal.NEURON_ACTION_REBOOT
    return None


def neuron_signal(error_type: str | None, action: str | None = None) -> Signal:
    """One NEURON_HW_ERR report → its row. A type whose row never replaces the node (a hang
    on collectives: the Neuron guide puts the fault on another worker) keeps its row
    whatever `action=` says: the action is the driver's remedy for the job, and it cannot
    make this node the culprit (neither a replacement nor a reboot of it). Otherwise the
    driver's `action=` is the most specific statement about its own line, so a recognised
    action decides; the type row stands when it asks for the same thing (a TERMINATE on an
    SRAM error stays the SRAM row, whose words name the class). Without an action the
    type's row from the Neuron guide applies."""
    by_type = neuron_type_signal(error_type)
    if _BY_SIGNAL[by_type].replacement is Replacement.NEVER:
        return by_type
    by_action = neuron_action_signal(action)
    if by_action is None:
        return by_type
    if _BY_SIGNAL[by_type].first_action is _BY_SIGNAL[by_action].first_action:
        return by_type
    return by_action


def neuron_report_signal(error_type: str | None, line: str | None) -> Signal:
    """The row of one Neuron error report, wherever it was read: its type (a kernel
    line's NEURON_HW_ERR=, a NeuronHasError_<TYPE> condition reason) and the `action=` on
    the kernel line (the line itself, or the condition message that quotes it)."""
    return neuron_signal(error_type, neuron_action_in(line))


# -- the table as the system prompt shows it ----------------------------------------------------

HEADINGS: dict[Replacement, str] = {
    Replacement.IMMEDIATELY: "Replace first (the evidence is conclusive; isolate the node first)",
    Replacement.AFTER_REBOOT: "First step as named; replace only after a reboot did not help",
    Replacement.AFTER_FIRST_ACTION: "Fix the cause first; replacing a node is the last step",
    Replacement.NEVER: "Never replace on this evidence",
}


@dataclass(frozen=True, slots=True)
class PromptLine:
    """One line of the prompt's table: the evidence of every row of a group that shares the
    same section and words, joined (the prompt is sent on every request: no line twice)."""

    evidence: str
    section: str
    words: str


@dataclass(frozen=True, slots=True)
class Group:
    """The rows that share one replacement rule, under its heading."""

    replacement: Replacement
    heading: str
    rules: tuple[Rule, ...]

    @property
    def lines(self) -> tuple[PromptLine, ...]:
        """The rows as the prompt states them: conclusive rows by their first action alone
        (it is the replacement), the others by their whole advice."""
        merged: dict[tuple[str, str], list[str]] = {}
        for row in self.rules:
            words = row.first if self.replacement is Replacement.IMMEDIATELY else row.advice
            merged.setdefault((row.section, words), []).append(row.evidence)
        return tuple(
            PromptLine("; ".join(evidence), section, words)
            for (section, words), evidence in merged.items()
        )


@dataclass(frozen=True, slots=True)
class PromptTable:
    """What the destructive-order partial renders: the groups and the Slurm drain."""

    groups: tuple[Group, ...]
    slurm_drain: str


def prompt_table() -> PromptTable:
    """Every row, grouped by when replacement is justified (conclusive evidence first)."""
    groups = tuple(
        Group(kind, HEADINGS[kind], tuple(r for r in RULES if r.replacement is kind))
        for kind in (
            Replacement.IMMEDIATELY,
            Replacement.AFTER_REBOOT,
            Replacement.AFTER_FIRST_ACTION,
            Replacement.NEVER,
        )
    )
    return PromptTable(tuple(g for g in groups if g.rules), SLURM_DRAIN)
