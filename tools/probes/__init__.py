"""Node probes: the read-only catalogue, session framing, transports and the runner."""
