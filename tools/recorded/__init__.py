"""Recorded clusters: one file that replays a cluster through the real access layer."""
