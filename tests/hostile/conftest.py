"""Every hostile-input test runs with `rm`, `reboot`, `shutdown` and `curl` shadowed on
PATH by fakes that only leave a marker file: a test fails if any of them ever ran."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

FAKE_COMMANDS = ("rm", "reboot", "shutdown", "curl", "halt")


@pytest.fixture(autouse=True)
def no_execution(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    base = tmp_path_factory.mktemp("fakebin")
    markers = base / "markers"
    markers.mkdir()
    bin_dir = base / "bin"
    bin_dir.mkdir()
    for name in FAKE_COMMANDS:
        fake = bin_dir / name
        fake.write_text(f'#!/bin/sh\necho "$@" > "{markers}/{name}.$$"\n', encoding="utf-8")
        fake.chmod(fake.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    yield markers
    ran = sorted(p.name for p in markers.iterdir())
    assert not ran, f"a command from the input was executed: {ran}"
