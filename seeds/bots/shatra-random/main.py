"""The simplest bot: a random legal action, every time (protocol §10 shows it without the kit)."""

from engines.botkit import random_player, run

if __name__ == "__main__":
    run(random_player, name="shatra-random")
