"""Typed results of node probes."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator

from tools.visible import clip_long_lines

# Statuses of a probe that its timeout cut off: 137 (128 + SIGKILL) under the framing's
# `timeout -s KILL`; 124 is what GNU timeout returns after a TERM the probe survived long
# enough to exit on (older framings, hand-made recordings). Either way the output is partial.
TIMEOUT_EXIT_CODES = frozenset({124, 137})

# The longest line of a probe's output that parsers see; a longer one is cut here, with an
# ellipsis, before any parser reads it (issue 26: one 50 MB line took a triage 49 s).
# Real probe lines are far shorter: the longest in the bundled recordings is 643 characters
# (a package list); a formatted kernel message is at most 1-2 KiB (CONSOLE_LOG_MAX 1024,
# later PRINTK_MESSAGE_MAX 2048, in the kernel's kernel/printk/internal.h).
MAX_PROBE_LINE = 16_384


class ProbeOutput(BaseModel):
    """The raw stdout of one catalogued probe on one node (stderr folded in)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    stdout: str = ""
    exit_code: int | None = Field(
        default=0, description="The probe's exit status; None when it never finished."
    )
    truncated: bool = Field(
        default=False, description="The session ended (timeout, drop) before the probe did."
    )

    @field_validator("stdout")
    @classmethod
    def _lines_bounded(cls, value: str) -> str:
        return clip_long_lines(value, MAX_PROBE_LINE)

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.truncated

    @property
    def timed_out(self) -> bool:
        """The probe's timeout killed it (or something else did with SIGKILL): whatever it
        printed is a prefix of its answer, never the whole of it."""
        return self.exit_code in TIMEOUT_EXIT_CODES

    @property
    def finished(self) -> bool:
        """The probe ran to its own end (with any status): its output is complete."""
        return self.exit_code is not None and not self.truncated and not self.timed_out


class NodeProbes(BaseModel):
    """Every probe output of one node, or why the node could not be reached."""

    model_config = ConfigDict(frozen=True)

    instance_id: str
    group: str = ""
    instance_type: str = ""
    outputs: dict[str, ProbeOutput] = Field(default_factory=dict)
    unreachable: str | None = Field(
        default=None, description="Why no session could be opened (TargetNotConnected, ...)."
    )
    elapsed_s: float = 0.0

    def output(self, name: str) -> ProbeOutput | None:
        return self.outputs.get(name)
