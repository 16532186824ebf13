"""Neuron: a NEURON_HW_ERR type and the driver's action= routed to one row of the table,
as AWS's Neuron guide and the Neuron node problem detector's config pair them."""

from __future__ import annotations

import re

from tools.remediation.model import Replacement, Signal
from tools.remediation.rules import rule

# -- Neuron: NEURON_HW_ERR type and the driver's action= → one row -----------------------------

NEURON_TYPES: dict[str, Signal] = {
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
    return NEURON_TYPES.get(token, Signal.NEURON_UNKNOWN)


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
    if rule(by_type).replacement is Replacement.NEVER:
        return by_type
    by_action = neuron_action_signal(action)
    if by_action is None:
        return by_type
    if rule(by_type).first_action is rule(by_action).first_action:
        return by_type
    return by_action


def neuron_report_signal(error_type: str | None, line: str | None) -> Signal:
    """The row of one Neuron error report, wherever it was read: its type (a kernel
    line's NEURON_HW_ERR=, a NeuronHasError_<TYPE> condition reason) and the `action=` on
    the kernel line (the line itself, or the condition message that quotes it)."""
    return neuron_signal(error_type, neuron_action_in(line))
