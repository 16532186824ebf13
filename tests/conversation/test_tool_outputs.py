"""Typed tool outputs: each tool answers its spec's output model, the model reads that
model's JSON dump, and the dump matches the published schema (trimmed or not, redacted or
not). Each tool is described once, on its ToolSpec."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from pydantic import BaseModel

from agent.state import ConversationState
from agent.toolset import ToolResult, Toolset
from agent.toolset.budget import dumps, fit, fit_output
from agent.toolset.cluster import ClusterSession
from agent.toolset.outputs import (
    FindingsOutput,
    ProblemGroup,
    SectionMatch,
    ToolOutput,
    UseClusterOutput,
    not_shown,
)
from agent.toolset.schema import output_schema
from agent.toolset.spec import CHECK_PREFIX, check_tool_name
from tools.recorded.model import load_recorded
from tools.redaction import redact_strings
from tools.registry import all_checks
from tools.target import TriageTarget

ROOT = Path(__file__).resolve().parents[2]
CLUSTERS = ROOT / "evals" / "clusters"


def _toolset(name: str) -> Toolset:
    recording = load_recorded(CLUSTERS / f"{name}.json")
    target = TriageTarget(cluster=recording.cluster, region=recording.region)
    session = ClusterSession(target=target, recordings=[recording])
    return Toolset(session, ConversationState(cluster=target.cluster, region=target.region))


def _every_answer(toolset: Toolset) -> list[ToolResult]:
    """Each tool once (triage twice), as a conversation would call them."""
    answers = [toolset.call("triage", {})]
    report = toolset.state.latest
    assert report is not None
    node = next((r for f in report.problems() for r in f.resources if r.startswith("i-")), None)
    for name, arguments in (
        ("list_checks", {}),
        ("list_findings", {"status": ["FAIL", "WARN", "PASS", "INFO"], "limit": 100}),
        ("explain_signal", {"text": "NVRM: Xid (PCI:0000:a8:00): 79, GPU has fallen off the bus"}),
        ("read_reference", {"section": "A"}),
        (
            "suggest_command",
            {
                "command": f"aws sagemaker batch-reboot-cluster-nodes --cluster-name "
                f"{report.cluster.name} --node-ids {node or 'i-00000000000000001'} "
                f"--region {report.cluster.region}",
                "purpose": "Reboot the node.",
            },
        ),
        ("verify_suggestion", {}),
        ("draft_support_ticket", {}),
        ("triage", {}),
        ("compare_triage", {}),
    ):
        answers.append(toolset.call(name, arguments))
    for spec in toolset.specs():
        if spec.name.startswith(CHECK_PREFIX):
            answers.append(toolset.call(spec.name, {}))
    return answers


def _errors(schema: dict[str, Any], content: Any) -> list[str]:
    return [e.message for e in Draft202012Validator(schema).iter_errors(content)]


@pytest.mark.parametrize("name", ["demo-eks", "cluster-failed-lifecycle-script", "healthy-eks"])
def test_every_answer_is_its_output_model_dumped(name: str) -> None:
    toolset = _toolset(name)
    for result in _every_answer(toolset):
        spec = toolset.spec(result.name)
        assert spec is not None
        assert not result.is_error, (result.name, result.payload)
        assert isinstance(result.output, spec.output_model), result.name
        assert result.spec is spec
        assert result.payload == result.output.payload()
        assert result.text == dumps(result.output.model_dump(mode="json"))
        schema = spec.output_schema()
        assert _errors(schema, result.payload) == [], result.name
        assert _errors(schema, redact_strings(result.payload)) == [], result.name


def test_use_cluster_answer_matches_its_schema() -> None:
    # Opening a cluster needs a live account (tests/aws); its answer's shape is checked here.
    opened = UseClusterOutput(opened="c", region="us-west-2", orchestrator="eks", next="x")
    assert _errors(output_schema(UseClusterOutput), opened.payload()) == []
    assert list(opened.payload()) == ["opened", "region", "orchestrator", "next"]


def test_absent_keys_stay_absent_and_nulls_stay_null() -> None:
    plain = SectionMatch(section="G", title="GPU", score=1.0, why="w", next_checks=[])
    assert "guess" not in plain.model_dump(mode="json")
    guess = plain.model_copy(update={"guess": True})
    assert guess.model_dump(mode="json")["guess"] is True
    group = ProblemGroup(
        check="c",
        status="FAIL",
        priority="P0",
        section="A",
        count=1,
        lines=[],
        resources=[],
        resources_total=0,
    )
    assert "replace_first" not in group.model_dump(mode="json")
    page = FindingsOutput(total_matching=0, offset=0, findings=[], next_offset=None)
    assert page.payload() == {"total_matching": 0, "offset": 0, "findings": [], "next_offset": None}
    # An absent key is not said to be nullable in the schema: it is absent, or a number.
    counter = output_schema(FindingsOutput)["properties"]["findings_not_shown"]
    assert counter["type"] == "integer"
    assert _errors(output_schema(FindingsOutput), {**page.payload(), "findings_not_shown": None})


class _Long(ToolOutput):
    items: list[str]
    others: list[int]
    items_not_shown: int | None = not_shown("items")
    others_not_shown: int | None = not_shown("others")


def test_fit_output_trims_as_fit_trims_the_dump() -> None:
    long = _Long(items=[f"item {n} " * 5 for n in range(50)], others=list(range(300)))
    for limit in (200, 800, 1_500, 5_000):
        expected = fit(long.model_dump(mode="json"), limit, ("items", "others"))
        trimmed = fit_output(long, limit, ("items", "others"))
        assert trimmed.payload() == expected
        assert dumps(trimmed.payload()) == dumps(expected)
    assert fit_output(long, 100_000, ("items",)) is long  # it fits: nothing copied


def test_fit_output_needs_the_counter_declared() -> None:
    class Undeclared(BaseModel):
        items: list[str]

    with pytest.raises(TypeError, match="items_not_shown"):
        fit_output(Undeclared(items=["x" * 100] * 10), 100, ("items",))


def test_each_tool_is_described_once_on_its_spec() -> None:
    toolset = Toolset(ClusterSession(), ConversationState())
    specs = {spec.name: spec for spec in toolset.specs()}
    titles = {check_tool_name(c.id): c.title for c in all_checks()}
    for name, spec in specs.items():
        assert spec.title, name
        if name.startswith(CHECK_PREFIX):
            assert spec.title == titles[name]  # the registry's title
    readers = {name for name, spec in specs.items() if spec.reads_cluster}
    assert readers == {"triage", "use_cluster", "verify_suggestion", *titles}
    assert specs["triage"].title == "Triage the cluster (read-only)"


def _required_holes(schema: dict[str, Any], content: Any, where: str = "$") -> list[str]:
    """Keys a dump always writes that the schema (top level and every $defs model it
    reaches) does not list as required."""
    holes: list[str] = []
    defs = schema.get("$defs", {})

    def walk(node: Any, value: Any, path: str) -> None:
        if isinstance(node, dict) and "$ref" in node:
            node = defs[node["$ref"].rsplit("/", 1)[-1]]
        if not isinstance(node, dict):
            return
        for option in node.get("anyOf", []):
            walk(option, value, path)
        if isinstance(value, dict) and "properties" in node:
            required = set(node.get("required", []))
            holes.extend(f"{path}.{key}" for key in value if key not in required)
            for key, child in value.items():
                walk(node["properties"].get(key, {}), child, f"{path}.{key}")
        if isinstance(value, list) and isinstance(node.get("items"), dict):
            for item in value:
                walk(node["items"], item, f"{path}[]")

    walk(schema, content, where)
    return holes


def test_what_an_answer_always_holds_is_required_by_its_schema() -> None:
    """A client's generated types may rely on `required`: every key a dump writes whatever
    the values (nested models' defaulted fields included) is listed; only the keys left
    out while empty (`guess`, `replace_first`, the `*_not_shown` counters...) are not."""
    from agent.toolset import outputs

    optional_by_design = {
        name
        for model in vars(outputs).values()
        if isinstance(model, type) and issubclass(model, BaseModel)
        for name, field in model.model_fields.items()
        if field.exclude_if is not None
    }
    assert {"guess", "replace_first", "old_recording", "findings_not_shown"} <= optional_by_design
    toolset = _toolset("demo-eks")
    for result in _every_answer(toolset):
        spec = toolset.spec(result.name)
        assert spec is not None
        holes = _required_holes(spec.output_schema(), result.payload)
        holes = [h for h in holes if h.rsplit(".", 1)[-1] not in optional_by_design]
        assert holes == [], result.name


def test_a_ticket_naming_a_resource_owner_matches_its_schema() -> None:
    """The ticket writes an owner with only what is known (no null fields): its schema must
    not require the fields an owner leaves out (here `tool` and `note`)."""
    group = "sg-0a1b2c3d4e5f60001"
    toolset = _toolset("sg-outbound-self-missing")
    toolset.call("triage", {})
    toolset.call(
        "suggest_command",
        {
            "command": f"aws ec2 authorize-security-group-egress --group-id {group} "
            f"--region us-west-2 --ip-permissions "
            f"'IpProtocol=-1,UserIdGroupPairs=[{{GroupId={group}}}]'",
            "purpose": "Restore the rule.",
        },
    )
    result = toolset.call("draft_support_ticket", {})
    (owner,) = result.payload["ticket"]["resource_owners"]
    assert owner["stack"] == "hp-network"
    assert "tool" not in owner  # unknown, so absent rather than null
    spec = toolset.spec("draft_support_ticket")
    assert spec is not None
    assert _errors(spec.output_schema(), result.payload) == []
