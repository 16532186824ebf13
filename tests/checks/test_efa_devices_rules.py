"""§ A efa-devices: the node's EFA rule alone, on literal probe results, without words."""

from __future__ import annotations

from tools.checks.efa_devices import (
    DevicesMissing,
    EfaHealthy,
    EfaReads,
    EfaVerdict,
    ModuleNotLoaded,
    NoProvider,
    efa_verdicts,
)
from tools.parsers.efa import FiEntry, FiInfo, InfinibandDevices, Lsmod

LOADED = Lsmod(frozenset({"efa", "ib_core"}), parsed=True)
FOUR = InfinibandDevices(uverbs=("uverbs0", "uverbs1", "uverbs2", "uverbs3"))
PROVIDER = FiInfo(entries=(FiEntry("efa", domain="rdmap0-rdm"),))


def verdicts(
    modules: Lsmod | None = LOADED,
    devices: InfinibandDevices | None = FOUR,
    provider: FiInfo | None = PROVIDER,
) -> list[EfaVerdict]:
    return efa_verdicts(EfaReads("i-1", "ml.p4d.24xlarge", 4, modules, devices, provider))


def test_all_three_read_and_fine_is_healthy() -> None:
    assert verdicts() == [EfaHealthy(visible=4, expected=4, provider_devices=1)]


def test_each_fault_is_named_in_order_with_what_shows_it() -> None:
    none_listed, no_provider = InfinibandDevices(missing=True), FiInfo(error="fi_getinfo: -61")
    broken = verdicts(Lsmod(frozenset({"ib_core"}), parsed=True), none_listed, no_provider)
    assert broken == [
        ModuleNotLoaded(),
        DevicesMissing(none_listed, expected=4),
        NoProvider(no_provider),
    ]


def test_an_unread_probe_is_neither_a_fault_nor_healthy() -> None:
    assert verdicts(provider=None) == []
    assert verdicts(devices=None, provider=FiInfo()) == [NoProvider(FiInfo())]
