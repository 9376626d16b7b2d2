"""One ply deep on strength (stones on the board plus stones in hand)."""

from engines.botkit import Greedy, run


def strength(position) -> float:
    fields = dict(field.strip().split("=", 1) for field in position.text().split(";"))
    hands = [int(n) for n in fields["H"].split("/")]
    stones = [0 if fields[side] == "-" else len(fields[side].split(",")) for side in ("W", "B")]
    return (stones[0] + hands[0]) - (stones[1] + hands[1])


if __name__ == "__main__":
    run(Greedy(strength), name="fidchell-1-greedy")
