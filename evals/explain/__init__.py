"""Labelled cases and a scorer for `hyperpod-debug explain`."""
