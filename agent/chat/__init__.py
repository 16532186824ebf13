"""The interactive chat: its session, input, slash commands and loop.

`agent.commands.chat` is the command line; this package is what it runs. The model never
sees a slash command: each acts in code (`agent.chat.slash`).
"""
