"""The bundled recorded clusters (*.json), graded by `hyperpod-debug eval` from their own
`expect` block. They ship as package data; `python -m cluster_simulator.build` writes them.
"""
