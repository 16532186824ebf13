"""Infrastructure as code: terraform / tofu, pulumi, cdk.

Applying, importing or destroying changes the deployed infrastructure, which is the cluster
configuration the IaC drift note is about (``touches_config``); destroying is rank 2.
Planning, previewing, diffing, validating and showing are read-only. Commands that only
change local files (init, fmt, workspace select, a plan written with ``-out``) are mutating
without touching the cluster. Global options before the verb must be known: an unknown one
may take the next word as its value and so move the verb.
"""

from __future__ import annotations

from collections.abc import Sequence

from tools.command_safety.args import Grammar, find_option, grammar, option_values, parse, word_set
from tools.command_safety.result import CommandClass, Handler, Rank, combine, mut, ro, unknown

# --- terraform / tofu ---------------------------------------------------------------------

_TF_GLOBAL = grammar(values="-chdir", flags="-help -h --help -version -v --version")
_TF_READ = word_set("show validate version output graph metadata modules help")
_TF_CONFIG: dict[str, Rank] = {
    "destroy": 2,
    **dict.fromkeys(("import", "refresh", "taint", "untaint", "force-unlock", "test"), 0),
}
_TF_LOCAL = word_set("init get login logout")
_TF_STATE_READ = word_set("list show pull identities")
_TF_STATE_CHANGE = word_set("rm mv push replace-provider")


def _terraform_sub(tool: str, verb: str, sub: str) -> CommandClass:
    label = f"{tool} {verb} {sub}".rstrip()
    if verb == "state":
        if sub in _TF_STATE_READ:
            return ro(f"{label} is read-only")
        if sub in _TF_STATE_CHANGE:
            return mut(f"{label} changes the recorded state of the infrastructure", config=True)
        return unknown(f"{label}: not recognised")
    if verb == "workspace":
        if sub in ("list", "show", ""):
            return ro(f"{label} is read-only")
        return mut(f"{label} changes workspaces", config=sub in ("new", "delete"))
    # providers
    if sub in ("", "schema"):
        return ro(f"{label} is read-only")
    return mut(f"{label} writes provider files")


def _terraform(tool: str) -> Handler:
    def handler(args: Sequence[str], depth: int) -> CommandClass:
        before = parse(args, _TF_GLOBAL, stop=True)
        if before.error is not None:
            return unknown(f"{tool} option {before.error} before the verb not recognised")
        if not before.rest:
            return ro(f"{tool} help")
        verb, after = before.rest[0], before.rest[1:]
        if verb == "apply":
            destroys = find_option(after, ("-destroy",)) is not None
            what = "destroys" if destroys else "changes"
            return mut(f"{tool} apply {what} the infrastructure", 2 if destroys else 0, config=True)
        if verb in _TF_CONFIG:
            rank = _TF_CONFIG[verb]
            what = "destroys" if rank == 2 else "changes"
            return mut(f"{tool} {verb} {what} the infrastructure", rank, config=True)
        if verb == "plan":
            if find_option(after, ("-out",)) is not None:
                return mut(f"{tool} plan -out writes a plan file")
            return ro(f"{tool} plan is read-only")
        if verb == "fmt":
            if find_option(after, ("-check",)) is not None:
                return ro(f"{tool} fmt -check is read-only")
            return mut(f"{tool} fmt rewrites files")
        if verb in _TF_READ:
            return ro(f"{tool} {verb} is read-only")
        if verb in ("state", "workspace", "providers"):
            words = [a for a in after if not a.startswith("-")]
            return _terraform_sub(tool, verb, words[0] if words else "")
        if verb in _TF_LOCAL:
            return mut(f"{tool} {verb} writes local files")
        return unknown(f"{tool} {verb}: verb not recognised")

    return handler


# --- pulumi -------------------------------------------------------------------------------

_PULUMI_GLOBAL = grammar(
    values="-C --cwd -s --stack --color -v --verbose --profiling --tracing --memprofilerate"
    " --tracing-header",
    flags="--logtostderr --non-interactive --emoji --disable-integrity-checking --logflow -h"
    " --help",
    abbreviate=False,
)
_PULUMI_READ = word_set("preview pre whoami version about logs help console gen-completion")
_PULUMI_CONFIG: dict[str, Rank] = {
    "destroy": 2,
    "down": 2,
    **dict.fromkeys(("up", "update", "refresh", "import", "cancel", "watch"), 0),
}
_PULUMI_LOCAL = word_set("login logout new install convert package")
_PULUMI_SUBS = {
    "stack": word_set("ls output history export graph"),
    "config": word_set("get"),
    "plugin": word_set("ls"),
    "state": frozenset(),
}


def _pulumi(args: Sequence[str], depth: int) -> CommandClass:
    before = parse(args, _PULUMI_GLOBAL, stop=True)
    if before.error is not None:
        return unknown(f"pulumi option {before.error} before the verb not recognised")
    if not before.rest:
        return ro("pulumi help")
    verb, after = before.rest[0], before.rest[1:]
    if verb in _PULUMI_CONFIG:
        rank = _PULUMI_CONFIG[verb]
        what = "destroys" if rank == 2 else "changes"
        return mut(f"pulumi {verb} {what} the infrastructure", rank, config=True)
    if verb in _PULUMI_READ:
        return ro(f"pulumi {verb} is read-only")
    if verb in _PULUMI_SUBS:
        parsed = parse(after, _PULUMI_GLOBAL, stop=True)
        if parsed.error is not None:
            return unknown(f"pulumi {verb}: option {parsed.error} not recognised")
        sub = parsed.rest[0] if parsed.rest else ""
        if (not sub and verb in ("stack", "config")) or sub in _PULUMI_SUBS[verb]:
            return ro(f"pulumi {verb} {sub} is read-only".replace("  ", " "))
        config = verb == "state" or (verb == "stack" and sub not in ("select", "unselect"))
        return mut(f"pulumi {verb} {sub} changes stacks, state or settings", config=config)
    if verb in _PULUMI_LOCAL:
        return mut(f"pulumi {verb} writes local files or credentials")
    return unknown(f"pulumi {verb}: verb not recognised")


# --- cdk ----------------------------------------------------------------------------------

_CDK_GLOBAL: Grammar = grammar(
    values="-a --app --build -c --context -p --plugin --profile --proxy --ca-bundle-path -o"
    " --output -r --role-arn --toolkit-stack-name",
    flags="-v --verbose --debug -j --json --ci --trace --strict --lookups --no-lookups"
    " --ignore-errors --no-color --version-reporting --no-version-reporting --path-metadata"
    " --no-path-metadata --asset-metadata --no-asset-metadata --staging --no-staging -i"
    " --ec2creds --no-ec2creds --notices --no-notices -h --help --version",
)
_CDK_READ = word_set("synth synthesize diff list ls doctor docs doc version notices metadata drift")
_CDK_CONFIG: dict[str, Rank] = {
    "destroy": 2,
    "gc": 2,
    **dict.fromkeys(("deploy", "watch", "bootstrap", "import", "rollback", "refactor"), 0),
}
_CDK_LOCAL = word_set("init migrate acknowledge ack")


def _cdk_verb(verb: str, after: Sequence[str]) -> CommandClass:
    if verb in _CDK_CONFIG:
        rank = _CDK_CONFIG[verb]
        what = "destroys" if rank == 2 else "changes"
        return mut(f"cdk {verb} {what} the infrastructure", rank, config=True)
    if verb == "context":
        if find_option(after, ("--reset", "-e", "--clear")) is not None:
            return mut("cdk context --reset / --clear changes cdk.context.json")
        return ro("cdk context is read-only")
    if verb in _CDK_READ:
        return ro(f"cdk {verb} is read-only")
    if verb in _CDK_LOCAL:
        return mut(f"cdk {verb} writes local files")
    return unknown(f"cdk {verb}: verb not recognised")


def _cdk(args: Sequence[str], depth: int) -> CommandClass:
    from tools.command_safety.classifier import classify_nested

    before = parse(args, _CDK_GLOBAL, stop=True)
    if before.error is not None:
        return unknown(f"cdk option {before.error} before the verb not recognised")
    verdict = _cdk_verb(before.rest[0], before.rest[1:]) if before.rest else ro("cdk help")
    # --app and --build are command lines cdk runs before anything else (options may come
    # after the verb too).
    after = before.rest[1:]
    programs = [v for n, v in before.options if n in ("-a", "--app", "--build") and v]
    programs += option_values(after, "--app") + option_values(after, "--build")
    programs += [after[i + 1] for i, a in enumerate(after[:-1]) if a == "-a"]
    programs += [a[2:].removeprefix("=") for a in after if a.startswith("-a") and len(a) > 2]
    return combine([verdict, *(classify_nested(p, depth + 1) for p in programs)])


HANDLERS: dict[str, Handler] = {
    "terraform": _terraform("terraform"),
    "tofu": _terraform("tofu"),
    "pulumi": _pulumi,
    "cdk": _cdk,
}
