"""(being written: issue 3 node-level triage)"""
