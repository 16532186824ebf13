"""One conversation's tools (their specs, agent/toolset/spec.py) and handlers, and the one
place a call's errors are caught."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from agent.safety.targets import controller_names
from agent.state import ConversationState
from agent.toolset import results, summaries
from agent.toolset.budget import DEFAULT_RESULT_CHARS, clip_line, fit_output
from agent.toolset.cluster import ClusterSession
from agent.toolset.failures import Failure, FailureKind, ToolError, describe_failure
from agent.toolset.inputs import (
    ExplainInput,
    ListFindingsInput,
    NoInput,
    ReadReferenceInput,
    SuggestInput,
    TriageInput,
    UseClusterInput,
    VerifyInput,
)
from agent.toolset.outputs import (
    CheckEntry,
    CheckListOutput,
    CheckToolOutput,
    ComparisonOutput,
    ExplainOutput,
    FindingsOutput,
    FoundIdentifiers,
    ReferenceOutput,
    SectionMatch,
    SuggestionOutput,
    TicketOutput,
    TriageOutput,
    UseClusterOutput,
    VerifyOutput,
)
from agent.toolset.spec import ToolResult, ToolSpec, check_tool_name
from agent.verify import Verdict
from tools.findings import Status
from tools.registry import CheckSpec, NodeScope, all_checks
from tools.sections import SECTIONS

if TYPE_CHECKING:
    # The Messages API's tool shape; for the type checker only (a chat's first prompt comes
    # before the SDK is imported).
    from anthropic.types import ToolParam

    from agent.safety.suggest import SuggestionContext

REFERENCE_CHUNK = 8_000
DESCRIPTION_CHARS = 600


def _first_paragraph(text: str) -> str:
    return " ".join(text.strip().split("\n\n")[0].split())


class Toolset:
    """Every tool of one conversation, over one cluster session and one workflow state."""

    def __init__(self, session: ClusterSession, state: ConversationState) -> None:
        self.session = session
        self.state = state
        self._specs: dict[str, ToolSpec[Any, Any]] = {}
        for spec in self._builtin_specs():
            self._specs[spec.name] = spec
        for check in all_checks():
            tool = self._check_spec(check)
            self._specs[tool.name] = tool

    # -- definitions --------------------------------------------------------------------------

    def specs(self) -> list[ToolSpec[Any, Any]]:
        return list(self._specs.values())

    def spec(self, name: str) -> ToolSpec[Any, Any] | None:
        return self._specs.get(name)

    def schemas(self) -> list[ToolParam]:
        return [spec.schema() for spec in self._specs.values()]

    def _builtin_specs(self) -> list[ToolSpec[Any, Any]]:
        return [
            ToolSpec(
                "triage",
                "Triage the cluster (read-only)",
                "Run every read-only check on the cluster (or on one node) and return the "
                "counts, the FAIL/WARN findings grouped by rule with their exact report "
                "lines, and the checks that could not run. Call it first, and again to "
                "confirm a fix.",
                TriageInput,
                TriageOutput,
                self._triage,
                summaries.triage_summary,
                reads_cluster=True,
            ),
            ToolSpec(
                "list_checks",
                "List the read-only checks",
                "List every read-only check: id, tool name, reference section, title, scope "
                "(cluster or node) and whether it applies to this cluster's orchestrator.",
                NoInput,
                CheckListOutput,
                self._list_checks,
                summaries.brief("list_checks"),
            ),
            ToolSpec(
                "list_findings",
                "Page through the latest triage's findings",
                "Page through the findings of the latest triage, filtered by status, "
                "section, check or instance.",
                ListFindingsInput,
                FindingsOutput,
                self._list_findings,
                summaries.brief("list_findings"),
            ),
            ToolSpec(
                "explain_signal",
                "Map error text to reference sections",
                "Map pasted error text (log lines, events, a ticket) to ranked reference "
                "sections with the identifiers found and read-only next checks. No AWS "
                "access.",
                ExplainInput,
                ExplainOutput,
                self._explain,
                summaries.explain_summary,
            ),
            ToolSpec(
                "read_reference",
                "Read a reference section",
                "Read one section of references/node-diagnostics-detail.md: what it means, "
                "how to confirm, root causes, the fix. Long sections come in chunks "
                "(next_offset).",
                ReadReferenceInput,
                ReferenceOutput,
                self._read_reference,
                summaries.reference_summary,
            ),
            ToolSpec(
                "compare_triage",
                "Compare the two latest triages",
                "Compare the two latest triages of this conversation: what cleared, what is "
                "new, what remains.",
                NoInput,
                ComparisonOutput,
                self._compare,
                summaries.brief("compare_triage"),
            ),
            ToolSpec(
                "suggest_command",
                "Render a command for the user to run (never runs it)",
                "Propose one command for the USER to run (it is never run by you or the "
                "software): returns the rendered suggestion with its kind, targets, blast "
                "radius, IaC warning and flags. Every state-changing command must go through "
                "this tool; after proposing, end the turn and wait for approval.",
                SuggestInput,
                SuggestionOutput,
                self._suggest,
                summaries.suggestion_summary,
            ),
            ToolSpec(
                "verify_suggestion",
                "Check a pending suggestion against the cluster now (read-only)",
                "Before the user runs a pending suggestion: re-read only what it rests on (the "
                "checks behind it, the node's status) and say whether it is still valid or "
                "stale, what changed, and how old its evidence is. Runs no triage.",
                VerifyInput,
                VerifyOutput,
                self._verify,
                summaries.verify_summary,
                reads_cluster=True,
            ),
            ToolSpec(
                "draft_support_ticket",
                "Draft the AWS Support ticket fields",
                "Fill the AWS Support ticket checklist from what this conversation knows, "
                "and list what is still missing.",
                NoInput,
                TicketOutput,
                self._ticket,
                summaries.brief("draft_support_ticket"),
            ),
            ToolSpec(
                "use_cluster",
                "Open the cluster to diagnose (read-only)",
                "Open the cluster the user named (read-only), when no cluster is open yet: "
                "checks the credentials and that the cluster exists in that region.",
                UseClusterInput,
                UseClusterOutput,
                self._use_cluster,
                summaries.brief("use_cluster"),
                reads_cluster=True,
            ),
        ]

    def _check_spec(self, check: CheckSpec) -> ToolSpec[Any, CheckToolOutput]:
        orchestrators = "/".join(sorted(o.upper() for o in check.orchestrators))
        description = (
            f"{check.title} (§ {check.section} {SECTIONS[check.section].title}; "
            f"{orchestrators}; {check.scope} scope). {_first_paragraph(check.description)}"
        )

        def handler(arguments: BaseModel) -> CheckToolOutput:
            node = arguments.instance_id if isinstance(arguments, NodeScope) else None
            return self._run_check(check, node)

        return ToolSpec(
            check_tool_name(check.id),
            check.title,
            clip_line(description, DESCRIPTION_CHARS),
            check.input_model,
            CheckToolOutput,
            handler,
            summaries.check_summary,
            reads_cluster=True,
        )

    # -- calling ------------------------------------------------------------------------------

    def call(self, name: str, arguments: Any) -> ToolResult:
        """Run one tool. Never raises: an unknown tool, bad input or a failing read comes
        back as an error result that says what to do next."""
        spec = self._specs.get(name)
        if spec is None:
            return ToolResult.failed(
                name,
                Failure(
                    FailureKind.TOOL,
                    f"unknown tool {clip_line(name, 80)!r}; call list_checks for the checks",
                ),
            )
        try:
            parsed = spec.input_model.model_validate(arguments if arguments is not None else {})
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'input'}: {e['msg']}"
                for e in exc.errors()[:5]
            )
            return ToolResult.failed(
                name, Failure(FailureKind.TOOL, f"invalid input: {clip_line(problems, 600)}")
            )
        try:
            return ToolResult.answer(spec, spec.handler(parsed))
        except Exception as exc:  # the one place tool failures become values
            return ToolResult.failed(name, describe_failure(exc))

    # -- handlers -----------------------------------------------------------------------------

    def triage(self, instance_id: str | None = None) -> TriageOutput:
        """Run the whole triage (also used by the loop for a re-triage)."""
        from tools.triage.runner import build_report, run_checks

        if self.state.triages:
            # A triage after the first reads the cluster afresh: the user may have changed
            # something (or granted a permission) since.
            self.session.reload()
        data = self.session.data().for_node(instance_id)
        report = build_report(data, run_checks(data))
        self.state.note_triage(report)
        self.state.focus_node = instance_id or self.state.focus_node
        self._note_controllers()
        listing = data.optional(data.nodes)
        if listing is not None:
            self.state.note_node_statuses({n.instance_id: n.status for n in listing.items})
        return results.triage_output(report, number=self.state.triage_count)

    def _triage(self, arguments: TriageInput) -> TriageOutput:
        return self.triage(arguments.instance_id)

    def _note_controllers(self) -> None:
        """Every name the Slurm controller goes by, so that a reboot or replacement naming it
        by its Slurm host name or address is flagged like one naming its instance id."""
        data = self.session.data()
        controller = data.optional(data.slurm_controller_node)
        if controller:
            self.state.slurm_controllers.update(controller_names(controller))

    def _run_check(self, check: CheckSpec, node: str | None) -> CheckToolOutput:
        from tools.triage.runner import run_checks

        data = self.session.data().for_node(node)
        (output,) = run_checks(data, [check.id])
        self.state.note_findings(output.findings)
        return results.check_output(output, node=node)

    def _list_checks(self, _: NoInput) -> CheckListOutput:
        orchestrator = self.state.orchestrator
        return CheckListOutput(
            checks=[
                CheckEntry(
                    id=c.id,
                    tool=check_tool_name(c.id),
                    section=c.section,
                    title=c.title,
                    scope=c.scope,
                    applies=orchestrator is None or c.applies_to(orchestrator),
                )
                for c in all_checks()
            ]
        )

    def _list_findings(self, arguments: ListFindingsInput) -> FindingsOutput:
        report = self.state.latest
        if report is None:
            raise ToolError("no triage has run in this conversation yet: call triage first")
        statuses = {Status(s) for s in arguments.status}
        section = arguments.section
        matching = [
            f
            for f in report.findings
            if f.status in statuses
            and (section is None or f.section == section or f.section.startswith(section + "."))
            and (arguments.check is None or f.check == arguments.check)
            and (arguments.instance_id is None or arguments.instance_id in f.resources)
        ]
        page = results.findings_page(
            matching, offset=arguments.offset, limit=arguments.limit, total=len(matching)
        )
        return fit_output(page, DEFAULT_RESULT_CHARS, ("findings",))

    def _explain(self, arguments: ExplainInput) -> ExplainOutput:
        from tools.explain.engine import explain

        result = explain(arguments.text, top=5)
        # The model's text, not the user's: ids and errors are kept, the language is not.
        self.state.note_text(arguments.text)
        output = ExplainOutput(
            message=result.message,
            matches=[
                SectionMatch(
                    section=m.section,
                    title=m.title,
                    score=m.score,
                    why=clip_line(m.why, 400),
                    next_checks=m.next_checks[:4],
                    # Only when true: a closest-by-wording guess, not a signature match.
                    guess=True if m.guess else None,
                )
                for m in result.matches
            ],
            identifiers=FoundIdentifiers.model_validate(
                result.identifiers.to_json(exclude_defaults=True)
            ),
            instruction_lines_ignored=result.ignored_lines,
        )
        return fit_output(output, DEFAULT_RESULT_CHARS, ("matches",))

    def _read_reference(self, arguments: ReadReferenceInput) -> ReferenceOutput:
        from tools.references import section_text

        if arguments.section not in SECTIONS:
            raise ToolError(f"no section {arguments.section}; sections are {', '.join(SECTIONS)}")
        text = section_text(arguments.section)
        chunk = text[arguments.offset : arguments.offset + REFERENCE_CHUNK]
        end = arguments.offset + len(chunk)
        return ReferenceOutput(
            section=arguments.section,
            title=SECTIONS[arguments.section].title,
            text=chunk,
            total_chars=len(text),
            next_offset=end if end < len(text) else None,
        )

    def compare_latest(self) -> results.Comparison:
        if len(self.state.triages) < 2:
            raise ToolError(
                "compare_triage needs two triages in this conversation; run triage again "
                "after the user applied a change"
            )
        return results.compare(self.state.triages[-2], self.state.triages[-1])

    def _compare(self, _: NoInput) -> ComparisonOutput:
        count = self.state.triage_count
        return self.compare_latest().output(count - 1, count)

    def suggestion_context(self) -> SuggestionContext:
        """What the safety layer knows of this conversation when it judges a command (a
        suggest_command call, a command in the model's text, a resumed suggestion)."""
        from agent.safety.suggest import SuggestionContext

        return SuggestionContext(
            triage_done=self.state.triage_done,
            rebooted=frozenset(self.state.rebooted),
            slurm_controllers=frozenset(self.state.slurm_controllers),
            replace_first=dict(self.state.replace_first),
            known_ids=frozenset(self.state.instance_ids),
            language=self.state.language,
            owner_of=self.session.owner_of,
        )

    def _suggest(self, arguments: SuggestInput) -> SuggestionOutput:
        from agent.safety.evidence import pin
        from agent.safety.suggest import build_suggestion, render_suggestion

        suggestion = build_suggestion(
            arguments.command,
            purpose=arguments.purpose,
            context=self.suggestion_context(),
            section=arguments.section,
            source="tool",
        )
        suggestion = pin(suggestion, self.state)
        if suggestion.mutating and not self.state.triage_done and self.session.target:
            # The workflow in code: no change is proposed before the cluster was looked at.
            raise ToolError(
                "no triage has run in this conversation: call triage first, then propose "
                "changes from its findings and the section you read"
            )
        self.state.propose(suggestion)
        self.state.turn_suggestions.append(suggestion)
        return SuggestionOutput(
            suggestion=suggestion,
            shown_to_user=render_suggestion(suggestion, self.state.language, iac_note=True),
            next=(
                "The block above is shown to the user by the software: do not repeat the "
                "command in your text. End your turn and wait for approval."
                if suggestion.mutating
                else "Read-only: the user may run it and paste the output."
            ),
        )

    def verify(self, number: int | None = None) -> list[Verdict]:
        """The pending suggestions (or the one numbered ``number``) verified on a fresh read
        of the cluster: `agent.verify.Verdict`s."""
        from agent.verify import numbered, verify_suggestions

        if not self.state.pending:
            raise ToolError("no suggestion is waiting for the user: nothing to verify")
        try:
            chosen = numbered(self.state.pending, number)
        except ValueError as exc:
            raise ToolError(str(exc)) from None
        data, checked_at = self.session.fresh_data()
        return verify_suggestions(chosen, data, checked_at=checked_at)

    def _verify(self, arguments: VerifyInput) -> VerifyOutput:
        output = VerifyOutput.of(self.verify(arguments.number))
        return fit_output(output, DEFAULT_RESULT_CHARS, ("verdicts",))

    def _ticket(self, _: NoInput) -> TicketOutput:
        from agent.toolset.ticket_tool import ticket_output

        return ticket_output(self.state, self.session)

    def _use_cluster(self, arguments: UseClusterInput) -> UseClusterOutput:
        from tools.target import TriageTarget

        if self.session.recorded:
            raise ToolError(
                "this conversation replays a recorded cluster; another cluster cannot be "
                "opened here"
            )
        try:
            target = TriageTarget(cluster=arguments.cluster, region=arguments.region)
        except ValidationError as exc:
            raise ToolError(str(exc.errors()[0]["msg"]).removeprefix("Value error, ")) from None
        try:
            self.session.use(target)
        except ValueError as exc:
            raise ToolError(str(exc)) from None
        try:
            # Open it now (the credentials preflight, then DescribeCluster): a wrong name,
            # region or credentials is said at once, with the region's clusters, instead of
            # at the first triage; and the conversation may then name another cluster.
            orchestrator = self.session.data().orchestrator
        except Exception:
            self.session.forget()
            raise
        # The first triage may come much later (a person types /triage when ready): it
        # reads the cluster afresh rather than the description read here.
        self.session.reload()
        self.state.cluster, self.state.region = target.cluster, target.region
        self.state.orchestrator = orchestrator
        return UseClusterOutput(
            opened=target.cluster,
            region=target.region,
            orchestrator=orchestrator,
            next="call triage",
        )

    def open_target(self) -> Failure | None:
        """Open the cluster the conversation starts on (credentials preflight, then
        DescribeCluster), for an interface to say what is wrong before a model turn is
        spent; None when it opened or none is named. A replay is not checked: it has no
        credentials to get wrong."""
        if self.session.target is None or self.session.recorded:
            return None
        try:
            self.state.orchestrator = self.session.data().orchestrator
            self.session.reload()  # as in use_cluster: the first triage reads afresh
        except Exception as exc:
            failure = describe_failure(exc)
            if failure.kind is FailureKind.NOT_FOUND:
                # Nothing by that name there: let the user (or the model) name another.
                self.session.forget()
                self.state.cluster = None
            else:
                self.session.reload()  # the next read asks again, once the user fixed it
            return failure
        return None
