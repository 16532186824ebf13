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

This package is a leaf: it imports nothing else of the project, so checks, prompts, the
agent and the evals can all read it (`tests/core/test_layers.py`).
"""

from __future__ import annotations

from tools.remediation.model import EVIDENCE_KEY, FirstAction, Replacement, Rule, Signal
from tools.remediation.neuron import (
    NEURON_TYPES,
    neuron_action_in,
    neuron_action_signal,
    neuron_report_signal,
    neuron_signal,
    neuron_type_signal,
)
from tools.remediation.prompt import HEADINGS, Group, PromptLine, PromptTable, prompt_table
from tools.remediation.rules import (
    RULES,
    SLURM_DRAIN,
    advice,
    known,
    replacement_first,
    rule,
    tagged,
)

__all__ = [
    "EVIDENCE_KEY",
    "HEADINGS",
    "NEURON_TYPES",
    "RULES",
    "SLURM_DRAIN",
    "FirstAction",
    "Group",
    "PromptLine",
    "PromptTable",
    "Replacement",
    "Rule",
    "Signal",
    "advice",
    "known",
    "neuron_action_in",
    "neuron_action_signal",
    "neuron_report_signal",
    "neuron_signal",
    "neuron_type_signal",
    "prompt_table",
    "replacement_first",
    "rule",
    "tagged",
]
