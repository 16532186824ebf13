"""The cluster simulator: in-memory HyperPod worlds that build the bundled recordings.

A `World` answers the real triage through the real access layer; `scenarios` plants one fault
each on a healthy base world; `build` records them into evals/clusters/*.json. Tests use the
worlds and the node samples as fixtures. This package is development tooling: the wheel does
not ship it (pyproject.toml packages only agent, tools, evals and prompts), and
`hyperpod-debug eval` needs only the recordings it wrote.
"""
