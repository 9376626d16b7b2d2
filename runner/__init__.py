"""The host side of the referee: the sandbox, the match runner and its clocks, and the bot author's commands."""
