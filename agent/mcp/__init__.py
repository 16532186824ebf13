"""`hyperpod-debug mcp`: the agent's read-only tool layer served over the Model Context
Protocol, for the coding agents support engineers already work in.

The server is built on the official `mcp` SDK's low-level `Server`, not on `MCPServer`
decorators: the tools already exist (`agent.toolset.Toolset`) with their own pydantic input
models, validation and bounded payloads, and the low-level handlers serve those definitions
as they are instead of re-deriving schemas from function signatures.

Nothing here imports the SDK at package import: the SDK costs seconds of start-up and only
this command needs it.
"""
