"""Realistic raw outputs of the catalogued node probes, for bundled scenarios and tests."""
