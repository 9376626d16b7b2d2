"""The host side of the referee: the sandbox, the match runner and its clocks, and the bot author's commands.

It runs bots, so it is never visible inside a sandbox: a bot sees only ``engines``, the bot's library,
mounted read-only (``runner.sandbox``). It imports ``engines`` and the standard library only::

    from runner.bots import load_bot
    from runner.match import play_game
    from runner.sandbox import open_sandbox

    record = play_game("tafl9", load_bot("a/"), load_bot("b/"), tc="move:1000", sandbox=open_sandbox())
"""
