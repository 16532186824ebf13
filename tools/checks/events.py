"""Placeholder: this check module is being written."""
