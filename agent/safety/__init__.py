"""The safety layer: no state-changing command reaches the user except as a suggestion.

Modules: `model` (the `Suggestion` the user sees and its flag ids), `markdown` (fences,
inline code, the segmenter that streaming and whole-text guarding share), `extract` (finding
commands in fences, inline code and plain prose; its parts are `fence`, `inline`, `prose`,
`vocabulary`, `shell` and `found`), `suggest` (turning one command into a `Suggestion`:
kind, targets, blast radius, IaC note, flags; its parts are `kinds`, `remote`, `targets`,
`radius` and `inert`) and `gate` (`guard_text` and `StreamGate`, which rewrite the model's
text so that every mutating command is shown as a suggestion block).
"""
