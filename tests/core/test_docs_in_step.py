"""Generated documents stay in step with the code they describe."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tools.aws.allowlist import iam_policy_document
from tools.recorded.model import json_schema

ROOT = Path(__file__).resolve().parents[2]


def test_recorded_cluster_schema_file_matches_the_model() -> None:
    stored = json.loads((ROOT / "docs" / "recorded-cluster.schema.json").read_text())
    assert stored == json_schema(), "regenerate docs/recorded-cluster.schema.json"


def test_iam_policy_doc_matches_the_allow_list() -> None:
    text = (ROOT / "docs" / "iam-policy.md").read_text()
    block = re.search(r"```json\n(.*?)```", text, re.DOTALL)
    assert block is not None
    assert json.loads(block.group(1)) == iam_policy_document()


def test_bundled_recordings_validate_against_the_schema() -> None:
    import jsonschema

    schema = json_schema()
    files = sorted((ROOT / "evals" / "clusters").glob("*.json"))
    assert files
    for path in files:
        jsonschema.validate(json.loads(path.read_text()), schema)
