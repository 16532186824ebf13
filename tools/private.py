"""Files that may hold a user's cluster details (transcripts, ticket bundles, the mask
mapping): written readable by their owner only, whatever the umask."""

from __future__ import annotations

import os
from pathlib import Path

PRIVATE_MODE = 0o600


def write_private(path: Path, text: str | bytes, *, overwrite: bool = True) -> None:
    """Write `text` (UTF-8; a lone surrogate becomes "?") to `path` with mode 0600.

    The mode is given to `os.open` and set again on the open file: an existing file keeps
    its old mode through O_CREAT, and a umask could only narrow it. With
    ``overwrite=False`` an existing file raises FileExistsError and is left unchanged."""
    data = text if isinstance(text, bytes) else text.encode("utf-8", errors="replace")
    flags = os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if overwrite else os.O_EXCL)
    descriptor = os.open(path, flags, PRIVATE_MODE)
    with os.fdopen(descriptor, "wb") as handle:
        if hasattr(os, "fchmod"):
            os.fchmod(handle.fileno(), PRIVATE_MODE)
        handle.write(data)


def write_private_files(directory: Path, files: dict[str, bytes]) -> list[Path]:
    """Write every file of `files` into `directory` (mode 0600), all or none: each goes to
    a temporary name first and is renamed into place once all are written; when anything
    fails, the temporary files and the ones already renamed are removed and the OSError
    raised, so a full disk leaves no partial bundle."""
    import contextlib
    import tempfile

    temporaries: dict[str, Path] = {}
    placed: list[Path] = []
    try:
        for name, data in files.items():
            descriptor, made = tempfile.mkstemp(prefix=".hpd-", suffix=".tmp", dir=directory)
            temporaries[name] = Path(made)
            with os.fdopen(descriptor, "wb") as handle:
                if hasattr(os, "fchmod"):
                    os.fchmod(handle.fileno(), PRIVATE_MODE)
                handle.write(data)
        for name, temporary in temporaries.items():
            os.replace(temporary, directory / name)
            placed.append(directory / name)
    except BaseException:
        for path in [*temporaries.values(), *placed]:
            with contextlib.suppress(OSError):
                path.unlink()
        raise
    return placed
