"""One ply deep on strength (stones on the board plus stones in hand)."""

from engines.botkit import Greedy, run
from engines.fidchellkit import strength

if __name__ == "__main__":
    run(Greedy(strength), name="fidchell-1-greedy")
