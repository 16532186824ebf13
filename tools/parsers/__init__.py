"""Pure parsers of node probe output: raw stdout in, typed values out, never an exception."""
