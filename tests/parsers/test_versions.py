"""Driver, NCCL and EFA package versions."""

# ruff: noqa: E501  (literal tool output keeps its real line lengths)

from __future__ import annotations

from tools.parsers.versions import (
    parse_driver_version,
    parse_efa_packages,
    parse_nccl_versions,
)

PROPRIETARY = (
    "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.183.01  Sun May 12 19:39:15 UTC 2024\n"
    "GCC version:  gcc version 11.4.0 (Ubuntu 11.4.0-1ubuntu1~22.04)\n"
)
OPEN = (
    "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.127.05  Release Build  "
    "(dvs-builder@U16-I3-B03-4-3)  Tue Oct  8 03:22:07 UTC 2024\n"
)
PACKAGES_DEB = """\
# EFA installer version: 1.37.0
# Debug packages installed: no
# Packages installed:
ibacm_54.0-1_amd64 libfabric-aws-bin_1.22.0amzn4.0_amd64 libfabric1-aws_1.22.0amzn4.0_amd64 libnccl-ofi_1.13.2-1_amd64 efa_2.13.0-1_amd64
"""
PACKAGES_RPM = """\
# EFA installer version: 1.34.0
# Debug packages installed: yes
# Packages installed:
libfabric-aws-1.22.0amzn1.0-1.amzn2.x86_64 aws-ofi-nccl-1.11.0-1.amzn2.x86_64 efa-2.10.0-1.amzn2.x86_64
"""


def test_driver_versions() -> None:
    assert parse_driver_version(PROPRIETARY) == "535.183.01"
    assert parse_driver_version(OPEN) == "550.127.05"
    assert parse_driver_version("cat: /proc/driver/nvidia/version: No such file") is None


def test_nccl_versions_from_file_names() -> None:
    text = "libnccl.so.2\nlibnccl.so.2.21.5\nlibnccl.so.2.18.3\nlibnccl.so.2.21.5\n"
    assert parse_nccl_versions(text) == ("2.18.3", "2.21.5")
    assert parse_nccl_versions("") == ()


def test_efa_packages_deb_and_rpm() -> None:
    deb = parse_efa_packages(PACKAGES_DEB)
    assert (deb.installer, deb.ofi_nccl, deb.libfabric, deb.debug_packages) == (
        "1.37.0",
        "1.13.2",
        "1.22.0",
        False,
    )
    rpm = parse_efa_packages(PACKAGES_RPM)
    assert (rpm.installer, rpm.ofi_nccl, rpm.libfabric, rpm.debug_packages) == (
        "1.34.0",
        "1.11.0",
        "1.22.0",
        True,
    )
    missing = parse_efa_packages(
        "cat: /opt/amazon/efa_installed_packages: No such file or directory"
    )
    assert missing.installer is None
    assert missing.ofi_nccl is None


def test_kernel_release() -> None:
    from hypothesis import given
    from hypothesis import strategies as st

    from tools.parsers.versions import parse_kernel_release

    assert parse_kernel_release("5.15.0-1063-aws\n") == "5.15.0-1063-aws"
    assert parse_kernel_release("6.1.119-129.201.amzn2023.x86_64\n") == (
        "6.1.119-129.201.amzn2023.x86_64"
    )
    assert parse_kernel_release("sh: 1: uname: not found\n") is None
    assert parse_kernel_release("") is None

    @given(st.text(max_size=300))
    def never_raises(text: str) -> None:
        release = parse_kernel_release(text)
        assert release is None or release in text

    never_raises()
