"""Former home of the § D checks, kept so existing imports keep working.

D.1 now lives in `tools.checks.lifecycle_bucket` (IAM evaluation in
`tools.checks._iam_policy`) and D.2 in `tools.checks.lifecycle_logs`; import from those.
This module registers nothing itself and is not in `CHECK_MODULES`.
"""

from tools.checks._iam_policy import policy_decision
from tools.checks.lifecycle_bucket import (
    CHECK_BUCKET,
    MANAGED_PREFIX,
    LifecycleSource,
    judge_bucket_access,
    lifecycle_bucket_access,
    lifecycle_sources,
    parse_s3_uri,
    roles_to_check,
)
from tools.checks.lifecycle_logs import (
    CHECK_LOGS,
    GENERIC,
    LOG_CAP,
    LOG_FAMILIES,
    LOG_FILTER,
    STREAM_PREFIX,
    LogFamily,
    classify_line,
    judge_lifecycle_logs,
    lifecycle_logs,
    stream_parts,
)

__all__ = [
    "CHECK_BUCKET",
    "CHECK_LOGS",
    "GENERIC",
    "LOG_CAP",
    "LOG_FAMILIES",
    "LOG_FILTER",
    "MANAGED_PREFIX",
    "STREAM_PREFIX",
    "LifecycleSource",
    "LogFamily",
    "classify_line",
    "judge_bucket_access",
    "judge_lifecycle_logs",
    "lifecycle_bucket_access",
    "lifecycle_logs",
    "lifecycle_sources",
    "parse_s3_uri",
    "policy_decision",
    "roles_to_check",
    "stream_parts",
]
