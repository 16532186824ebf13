"""neuron-ls --json-output."""

from __future__ import annotations

from tools.parsers.neuron import parse_neuron_ls

TRN1_2XL = """\
[
    {
        "neuron_device": 0,
        "bdf": "0000:00:1e.0",
        "cpu_affinity": "0-7",
        "numa_node": "-1",
        "connected_to": null,
        "nc_count": 2,
        "memory_size": 34359738368,
        "neuroncore_ids": [
            0,
            1
        ],
        "neuron_processes": []
    }
]
"""


def test_single_device_with_null_links() -> None:
    listing = parse_neuron_ls(TRN1_2XL)
    assert listing.parsed
    assert listing.count == 1
    device = listing.devices[0]
    assert (device.index, device.bdf, device.core_count, device.memory_bytes) == (
        0,
        "0000:00:1e.0",
        2,
        34359738368,
    )
    assert device.connected_to == ()


def test_wrapped_list_and_empty_list() -> None:
    wrapped = parse_neuron_ls('{"neuron_devices": [{"neuron_device": 0, "nc_count": 4}]}')
    assert wrapped.count == 1
    empty = parse_neuron_ls("[]\n")
    assert empty.parsed
    assert empty.count == 0


def test_not_installed_or_usage_error_is_not_a_zero() -> None:
    missing = parse_neuron_ls("bash: line 1: neuron-ls: command not found\n")
    assert not missing.parsed
    assert missing.error == "bash: line 1: neuron-ls: command not found"
    usage = parse_neuron_ls("error: unexpected argument '--json-output' found\n")
    assert not usage.parsed
