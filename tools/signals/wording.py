"""The registry of wording families shared by the text matchers, keyed by id.

A wording family is the set of regex alternatives that names one phenomenon (CRLF line
endings in a script, an AWS endpoint that cannot be reached, no capacity …), with the
reference section it points to. It is written here once, and every table that recognises
the phenomenon takes it from here by id:

* `explain`'s scored signatures (tools/explain/signatures), broad and weighted;
* the first-match families of cluster events (tools/checks/_event_families.py);
* the first-match families of lifecycle-script log lines
  (tools/checks/_lifecycle_families.py).

The tables keep their own matching rules (scores, context and exceptions for `explain`;
order, trace lines and vetoes for the checks) and add their own narrower or broader
alternatives next to the shared ones, explicitly. Only the shared wording lives here:
what just one table says stays in that table.

Plain tuples of strings: nothing is compiled here, so importing the registry costs
`explain`'s start-up nothing measurable, and a check module may import it without pulling
in the explain engine.
"""

from __future__ import annotations

from typing import NamedTuple


# A NamedTuple, like explain's Signature: built at every start-up.
class Signal(NamedTuple):
    """One wording family: the alternatives every table shares for one phenomenon."""

    id: str
    section: str  # the reference section the wording points to when nothing narrows it
    wording: tuple[str, ...]


SIGNALS: tuple[Signal, ...] = (
    Signal(
        "lifecycle.crlf",
        "D.2",
        (
            r"\$'\\r'",  # bash quoting the stray carriage return it could not run
            r"\\r': command not found",
            r"/bin/(?:ba)?sh\^M",  # a shebang that ends in a carriage return
        ),
    ),
    Signal(
        "aws.endpoint_unreachable",
        "B.4",
        # botocore's own wording when an AWS endpoint (S3 most often) cannot be reached.
        (r"Could not connect to the endpoint URL", r"Connect timeout on endpoint URL"),
    ),
    Signal(
        "aws.access_denied",
        "K",  # § D.1 when the denial concerns S3: the tables decide from the context
        (r"AccessDenied(?:Exception)?",),
    ),
    Signal(
        "capacity.insufficient",
        "C",
        (
            r"InsufficientInstanceCapacity",
            r"capacity (?:is )?not available",
            # SageMaker's own wording when it cannot place ML instances (cluster and
            # instance-group status messages): "CapacityError: Unable to provision
            # requested ML compute capacity. Please retry using a different ML instance type."
            r"Unable to provision requested ML compute capacity",
            r"(?<![A-Za-z0-9_])CapacityError(?![A-Za-z0-9_])",
        ),
    ),
    Signal("capacity.training_plan", "C", (r"training plan",)),
    Signal("lifecycle.on_init_complete", "D", (r"OnInitComplete",)),
    # Wording that `explain` reads as evidence for two sections: written once here, weighed
    # by one signature per section.
    Signal(
        "hyperpod.deep_health_failed_label",
        "F.2",
        (r"deep-health-check-status[\"'=:\s]{0,6}Failed",),
    ),
    Signal(
        "hyperpod.bootstrap_network",
        "A",
        (
            r"bootstrap\w*[^\n]{0,80}?network\s+(?:mis-?configur\w*|configuration\s+(?:error|issue|problem))",
            r"network\s+mis-?configur\w*[^\n]{0,80}?bootstrap\w*",
            r"(?:引导|bootstrap|启动)[^\n。]{0,30}?网络\s*(?:配置)?\s*(?:错误|有误|问题|不对)",
            r"网络\s*配置\s*(?:错误|有误|问题)[^\n。]{0,30}?(?:引导|bootstrap)",
        ),
    ),
    Signal(
        "gpu.count_mismatch",
        "G",
        (r"expected\s+\d+\s+GPUs?", r"GPU count (?:mismatch|validation)"),
    ),
    Signal(
        "nccl.collective_timeout",
        "A",
        (r"Watchdog caught collective operation timeout", r"NCCL[^\n]{0,40}\btime(?:d)?[ -]?out"),
    ),
    Signal(
        "nccl.error",
        "A",
        (r"ncclSystemError", r"ncclInternalError", r"unhandled system error", r"NCCL WARN"),
    ),
    Signal("k8s.oomkilled", "M", (r"OOMKilled", r"Exit Code:\s*137")),
    # A Lustre client that cannot reach (or lost) its FSx file system: the kernel's own
    # LustreError / Lustre lines (an import to an OST or MDT that failed or was lost, an
    # eviction), mount.lustre giving up, and `lctl ping` failing on a server NID. The
    # forms are those the FSx for Lustre user guide quotes ("Troubleshooting: file system
    # mount issues") and the Lustre client prints (rc = -110 is ETIMEDOUT).
    Signal(
        "storage.lustre_client",
        "B.8",
        (
            r"operation\s+(?:ost|mds|mgs|ldlm|obd)_\w+\s+to\s+node\s+\S+\s+failed",
            r"Connection to \S+ \(at \S+\) was lost",
            r"in progress operations using this service will (?:wait for recovery|fail)",
            r"(?:This client was|client\s+\S+\s+was|has been) evicted by \S+",
            r"mount\.lustre:[^\n]{0,200}?failed",
            r"failed to ping \S+@(?:tcp|efa)\d*",
            r"LNetError:",
        ),
    ),
)

SIGNALS_BY_ID: dict[str, Signal] = {signal.id: signal for signal in SIGNALS}


def wording(signal_id: str) -> tuple[str, ...]:
    """The shared alternatives of the wording family ``signal_id`` (KeyError if unknown:
    a table that names a missing family fails at import, not at match time)."""
    return SIGNALS_BY_ID[signal_id].wording
