"""tools/parsers/df.py over literal df -P / df -P -i outputs and the scenario samples."""

from __future__ import annotations

from cluster_simulator.node_samples import system
from tools.parsers.df import DEFAULT_PATHS, DfRow, parse_df, parse_row

USAGE = """\
Filesystem     1024-blocks      Used Available Capacity Mounted on
/dev/root        101430960  86215316  15199260      86% /
/dev/nvme1n1     515928320 474654056  41274264      93% /opt/sagemaker
/dev/md0       29296875000 292968750 29003906250     1% /opt/dlami/nvme
tmpfs           1048576000 891289600 157286400      85% /dev/shm
"""

NVME_ON_ROOT = """\
Filesystem     1024-blocks      Used Available Capacity Mounted on
/dev/root        101430960  42383984  59030592      42% /
/dev/nvme1n1     515928320   5159283 510769037       1% /opt/sagemaker
/dev/root        101430960  42383984  59030592      42% /
tmpfs           1048576000         0 1048576000      0% /dev/shm
"""

NVME_MISSING = """\
df: /opt/dlami/nvme: No such file or directory
Filesystem     1024-blocks      Used Available Capacity Mounted on
/dev/root        101430960  42383984  59030592      42% /
/dev/nvme1n1     515928320   5159283 510769037       1% /opt/sagemaker
tmpfs             32505856         0  32505856       0% /dev/shm
"""

INODES_DASH = """\
Filesystem         Inodes     IUsed     IFree IUse% Mounted on
/dev/root        12902400  11868160   1034240   92% /
/dev/nvme1n1     32768000     10211  32757789    1% /opt/sagemaker
fsx@tcp:/abcd           -         -         -     - /fsx
tmpfs           262144000         2 262143998    1% /dev/shm
"""


def test_usage_rows_line_up_with_requested_paths() -> None:
    report = parse_df(USAGE)
    assert [r.mounted_on for r in report.rows] == list(DEFAULT_PATHS)
    root = report.row_for("/")
    assert root == DfRow("/dev/root", 101430960, 86215316, 15199260, 86, "/")
    sagemaker = report.row_for("/opt/sagemaker")
    assert sagemaker is not None
    assert sagemaker.use_pct == 93
    assert report.is_mount_point("/opt/dlami/nvme") is True
    assert report.missing == ()
    assert report.errors == ()


def test_a_path_reported_under_its_parent_is_not_a_mount_point() -> None:
    report = parse_df(NVME_ON_ROOT)
    nvme = report.row_for("/opt/dlami/nvme")
    assert nvme is not None
    assert nvme.mounted_on == "/"
    assert report.is_mount_point("/opt/dlami/nvme") is False
    assert report.is_mount_point("/opt/sagemaker") is True
    assert [r.mounted_on for r in report.mounts()] == ["/", "/opt/sagemaker", "/dev/shm"]


def test_a_missing_path_is_recorded_and_the_rest_still_line_up() -> None:
    report = parse_df(NVME_MISSING)
    assert report.missing == ("/opt/dlami/nvme",)
    assert report.is_mount_point("/opt/dlami/nvme") is False
    shm = report.row_for("/dev/shm")
    assert shm is not None
    assert shm.size == 32505856
    assert shm.use_pct == 0


def test_quoted_missing_path_of_newer_coreutils() -> None:
    report = parse_df("df: '/opt/dlami/nvme': No such file or directory\n" + USAGE)
    assert report.missing == ("/opt/dlami/nvme",)


def test_other_errors_are_kept_and_stop_the_positional_mapping() -> None:
    text = "df: /opt/sagemaker: Permission denied\n" + NVME_ON_ROOT
    report = parse_df(text)
    assert report.errors == ("df: /opt/sagemaker: Permission denied",)
    # Without the mapping a path is found only by an exact mount point.
    assert report.row_for("/opt/dlami/nvme") is None
    assert report.is_mount_point("/opt/dlami/nvme") is None
    root = report.row_for("/")
    assert root is not None
    assert root.use_pct == 42


def test_inode_dashes_are_none_not_zero() -> None:
    report = parse_df(INODES_DASH, ("/", "/opt/sagemaker", "/fsx", "/dev/shm"))
    fsx = report.row_for("/fsx")
    assert fsx is not None
    assert (fsx.size, fsx.used, fsx.available, fsx.use_pct) == (None, None, None, None)
    root = report.row_for("/")
    assert root is not None
    assert root.use_pct == 92


def test_rows_with_spaces_and_impossible_percentages() -> None:
    row = parse_row("map auto_home     0     0     0   100% /System/Volumes/Data/home")
    assert row is not None
    assert row.filesystem == "map auto_home"
    assert row.use_pct == 100
    odd = parse_row("/dev/x 10 20 0 250% /mnt/x")
    assert odd is not None
    assert odd.use_pct is None
    assert parse_row("Filesystem 1024-blocks Used") is None


def test_empty_and_error_only_outputs() -> None:
    assert parse_df("").rows == ()
    report = parse_df("sh: 1: df: not found\n")
    assert report.rows == ()
    assert report.row_for("/") is None


def test_samples_round_trip() -> None:
    report = parse_df(system.df_usage(root_pct=95, opt_sagemaker_pct=91, shm_pct=85))
    rows = [report.row_for(path) for path in DEFAULT_PATHS]
    assert [row.use_pct if row else None for row in rows] == [95, 91, 1, 85]
    report = parse_df(system.df_usage(nvme_mounted=False))
    assert report.is_mount_point("/opt/dlami/nvme") is False
    report = parse_df(system.df_usage(nvme_exists=False))
    assert report.missing == ("/opt/dlami/nvme",)
    assert report.row_for("/dev/shm") is not None
    inodes = parse_df(system.df_inodes(root_pct=97))
    root = inodes.row_for("/")
    assert root is not None
    assert root.use_pct == 97
    assert root.size == 12_800_000
