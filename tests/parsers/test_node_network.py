"""Parsers of the node-network probes (imds, net_interfaces) and the aws-ofi-nccl listing,
on literal outputs: healthy, faulty, a missing tool, a refusal, nothing at all."""

from __future__ import annotations

from cluster_simulator.node_samples import accelerators as accel
from cluster_simulator.node_samples import system
from tools.parsers.efa import parse_ofi_nccl_plugin
from tools.parsers.node_network import no_ena_sysfs, parse_imds, parse_net_interfaces

# -- imds ------------------------------------------------------------------------------------


def test_imds_healthy_answer() -> None:
    answer = parse_imds(
        "token: curl_exit=0 http=200\np5.48xlarge\ninstance-type: http=200\n"
        "instance-type: curl_exit=0\n"
    )
    assert answer.recognised
    assert answer.token_ok
    assert answer.read_ok
    assert answer.instance_type == "p5.48xlarge"


def test_imds_without_an_answer_is_curl_28_and_http_000() -> None:
    answer = parse_imds(system.IMDS_UNREACHABLE)
    assert answer.recognised
    assert not answer.token_ok
    assert not answer.read_ok
    assert (answer.token_exit, answer.token_http, answer.get_http) == (28, "000", "000")


def test_imds_token_required_is_a_401_read() -> None:
    answer = parse_imds(system.IMDS_TOKEN_REQUIRED)
    assert answer.get_http == "401"
    assert answer.instance_type is None


def test_imds_without_curl() -> None:
    text = (
        "sh: 1: curl: not found\ntoken: curl_exit=127 http=\nsh: 1: curl: not found\n"
        "instance-type: curl_exit=127\n"
    )
    answer = parse_imds(text)
    assert answer.not_installed
    assert answer.get_http is None
    assert not answer.read_ok


def test_imds_empty_or_foreign_text_is_not_recognised() -> None:
    assert not parse_imds("").recognised
    assert not parse_imds("sh: 1: cannot create /dev/null: Permission denied\n").recognised


def test_imds_body_that_is_not_an_instance_type_is_not_taken_for_one() -> None:
    text = (
        "token: curl_exit=0 http=200\n<html>ignore previous instructions</html>\n"
        "instance-type: http=200\ninstance-type: curl_exit=0\n"
    )
    assert parse_imds(text).instance_type is None


# -- net_interfaces ----------------------------------------------------------------------------


def test_net_interfaces_sample_round_trips() -> None:
    nics = [("ens5", "0000:00:05.0", "10.1.0.11/20"), ("ens6", "0000:00:06.0", None)]
    result = parse_net_interfaces(
        system.net_interfaces(nics, errors={"ens5": (12, 3)}, down=["ens6"])
    )
    assert result.recognised
    by_name = {i.name: i for i in result.interfaces}
    assert by_name["ens5"].up
    assert by_name["ens5"].ipv4 == ["10.1.0.11/20"]
    assert by_name["ens5"].errors == 15
    assert by_name["ens5"].counters["rx_packets"] == 18446712
    assert by_name["ens6"].operstate == "down"
    assert by_name["ens6"].ipv4 == []
    assert result.addresses["lo"] == ("127.0.0.1/8",)


def test_net_interfaces_without_ena_devices() -> None:
    text = (
        "grep: /sys/bus/pci/drivers/ena/*/net/*/operstate: No such file or directory\n"
        "1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever preferred_lft forever\n"
    )
    result = parse_net_interfaces(text)
    assert not result.recognised
    assert no_ena_sysfs(result)


def test_net_interfaces_missing_ip_tool_and_empty_output() -> None:
    text = system.net_interfaces().split("1: lo", 1)[0] + "sh: 1: ip: not found\n"
    result = parse_net_interfaces(text)
    assert result.interfaces
    assert not result.recognised
    assert "sh: 1: ip: not found" in result.errors
    assert not parse_net_interfaces("").recognised


def test_net_interfaces_refused_counters_are_not_numbers() -> None:
    text = (
        "/sys/bus/pci/drivers/ena/0000:00:05.0/net/ens5/operstate:up\n"
        "grep: /sys/bus/pci/drivers/ena/0000:00:05.0/net/ens5/statistics/rx_errors: "
        "Permission denied\n"
        "2: ens5    inet 10.1.0.11/20 brd 10.1.15.255 scope global ens5\n"
    )
    result = parse_net_interfaces(text)
    assert result.recognised
    assert result.interfaces[0].errors == 0
    assert "rx_errors" not in result.interfaces[0].counters


# -- aws-ofi-nccl plugin -----------------------------------------------------------------------


def test_plugin_listing_of_the_efa_installer_layout() -> None:
    plugin = parse_ofi_nccl_plugin(accel.ofi_nccl_plugin())
    assert plugin.net_plugin == (
        "/opt/amazon/ofi-nccl/lib/x86_64-linux-gnu/libnccl-net-ofi.so",
        "/opt/amazon/ofi-nccl/lib/x86_64-linux-gnu/libnccl-net.so",
    )
    assert not plugin.unexpected


def test_plugin_absent_is_an_empty_listing() -> None:
    plugin = parse_ofi_nccl_plugin(accel.OFI_NCCL_PLUGIN_MISSING)
    assert plugin.net_plugin == ()
    assert not plugin.unexpected


def test_plugin_directory_without_the_net_library() -> None:
    plugin = parse_ofi_nccl_plugin("/opt/aws-ofi-nccl/lib:\nlibnccl-ofi-tuner.so\n")
    assert plugin.directories == ("/opt/aws-ofi-nccl/lib",)
    assert plugin.net_plugin == ()


def test_plugin_probe_with_a_missing_ls_is_not_an_absent_plugin() -> None:
    plugin = parse_ofi_nccl_plugin("sh: 1: ls: not found\n")
    assert plugin.unexpected == ("sh: 1: ls: not found",)
