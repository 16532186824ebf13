"""Triage: fetch cluster data once, run every registered check, build a report."""
