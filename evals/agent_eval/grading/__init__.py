"""Graders kept apart from `graders.py`, one concern a module; `graders.DETERMINISTIC`
lists them with the rest. Each judges the model from the conversation itself (its text,
its tool results, the commands' own words), never from a field the agent's safety gate
sets, so a gate that misses something cannot make its grader miss it too."""
