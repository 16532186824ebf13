"""Agent evals: conversations with the agent, graded against recorded clusters.

Cases are folders of data under `evals/agent/` (`case.json`, `script.json`, optional
recordings of their own); `case.py` reads them, `run.py` plays one conversation, `graders.py`
judges it (deterministic first, an optional judge model only for free-text quality),
`suite.py` runs many with repeats and a bound on parallelism, `report.py` writes Markdown,
JSON and JUnit XML, and `draft.py` turns a saved `chat` transcript into a new case.
"""
