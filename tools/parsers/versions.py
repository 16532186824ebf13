"""Software versions on a node: NVIDIA driver, NCCL, EFA installer and aws-ofi-nccl.

- driver: /proc/driver/nvidia/version ("NVRM version: NVIDIA UNIX x86_64 Kernel Module
  550.127.05 ..." or "... Open Kernel Module for x86_64  550.127.05  Release Build ...");
- CUDA: the ROW_REMAPPER report's header (`tools.parsers.nvidia_smi.parse_row_remap`);
- NCCL: the file names libnccl.so.X.Y.Z listed from the usual library directories;
- EFA: /opt/amazon/efa_installed_packages, written by the EFA installer as
  "# EFA installer version: 1.37.0", "# Debug packages installed: no",
  "# Packages installed:" and then the package file names (deb `name_version_arch`, rpm
  `name-version-release.arch`), aws-ofi-nccl among them as libnccl-ofi.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_DRIVER = re.compile(r"NVRM version:.*?Kernel Module(?:\s+for\s+\S+)?\s+(\d+\.\d+(?:\.\d+)*)")
_NCCL = re.compile(r"(?:^|/)libnccl\.so\.(\d+\.\d+\.\d+)\s*$")
_INSTALLER = re.compile(r"EFA installer version:\s*(\d+(?:\.\d+)+)", re.IGNORECASE)
_DEBUG = re.compile(r"Debug packages installed:\s*(yes|no)", re.IGNORECASE)
_SEMVER = re.compile(r"(\d+\.\d+(?:\.\d+)?)")
# Package names that carry the OFI NCCL plugin across installer releases and distros.
_OFI_NCCL_NAMES = ("libnccl-ofi", "aws-ofi-nccl")
# Package names of AWS's libfabric: "libfabric-aws" (rpm) and "libfabric1-aws" (deb) in
# current installers (already in 1.8.1: libfabric-aws-1.9.0amzn1.1, per
# github.com/aws/aws-parallelcluster-cookbook/pull/492); older installers shipped it as plain
# "libfabric" (rpm) and "libfabric1" (deb) with an "amzn" version, e.g.
# "libfabric1_1.8.0amzn1.0_amd64" from installer 1.5.1 (github.com/aws/libfabric/issues/3).
# The -aws names are looked for first.
_LIBFABRIC_NAMES = ("libfabric-aws", "libfabric1-aws", "libfabric", "libfabric1")


def parse_driver_version(text: str) -> str | None:
    match = _DRIVER.search(text)
    return match.group(1) if match else None


def parse_nccl_versions(text: str) -> tuple[str, ...]:
    """Every distinct full NCCL version found, sorted numerically."""
    found: set[str] = set()
    for raw in text.splitlines():
        match = _NCCL.search(raw.strip())
        if match:
            found.add(match.group(1))
    return tuple(sorted(found, key=lambda v: tuple(int(p) for p in v.split("."))))


@dataclass(frozen=True)
class EfaPackages:
    installer: str | None = None
    ofi_nccl: str | None = None
    libfabric: str | None = None
    debug_packages: bool | None = None
    packages: tuple[str, ...] = ()


def _package_version(package: str, name: str) -> str | None:
    """The version of `name` from a deb (name_1.2.3-1_amd64) or rpm (name-1.2.3-1.x86_64)
    package file name, or None when `package` is another package."""
    for separator in ("_", "-"):
        prefix = f"{name}{separator}"
        if package.startswith(prefix):
            rest = package[len(prefix) :]
            if rest[:1].isdigit():
                match = _SEMVER.match(rest)
                return match.group(1) if match else None
    return None


def parse_efa_packages(text: str) -> EfaPackages:
    installer_match = _INSTALLER.search(text)
    debug_match = _DEBUG.search(text)
    packages: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        packages.extend(token for token in line.split() if re.fullmatch(r"[\w.+~:-]+", token))
    ofi = next(
        (
            version
            for package in packages
            for name in _OFI_NCCL_NAMES
            if (version := _package_version(package, name)) is not None
        ),
        None,
    )
    libfabric = next(
        (
            version
            for name in _LIBFABRIC_NAMES
            for package in packages
            if (version := _package_version(package, name)) is not None
        ),
        None,
    )
    return EfaPackages(
        installer=installer_match.group(1) if installer_match else None,
        ofi_nccl=ofi,
        libfabric=libfabric,
        debug_packages=(debug_match.group(1).lower() == "yes") if debug_match else None,
        packages=tuple(packages),
    )


@dataclass(frozen=True)
class NodeVersions:
    """The versions compared across nodes (None: not read or not applicable)."""

    driver: str | None = None
    cuda: str | None = None
    nccl: str | None = None
    efa_installer: str | None = None
    ofi_nccl: str | None = None
    kernel: str | None = None

    def as_dict(self) -> dict[str, str | None]:
        return {
            "driver": self.driver,
            "cuda": self.cuda,
            "nccl": self.nccl,
            "efa_installer": self.efa_installer,
            "ofi_nccl": self.ofi_nccl,
            "kernel": self.kernel,
        }

    @property
    def known(self) -> bool:
        return any(v is not None for v in self.as_dict().values())


COMPONENT_LABELS = {
    "driver": "NVIDIA driver",
    "cuda": "CUDA",
    "nccl": "NCCL",
    "efa_installer": "EFA installer",
    "ofi_nccl": "aws-ofi-nccl",
    "kernel": "kernel",
}


_KERNEL_RELEASE = re.compile(r"^\d+\.\d+[\w.+~-]{0,80}$")


def parse_kernel_release(text: str) -> str | None:
    """`uname -r`: the first line when it reads as a kernel release ("5.15.0-1063-aws")."""
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return first if _KERNEL_RELEASE.match(first) else None
