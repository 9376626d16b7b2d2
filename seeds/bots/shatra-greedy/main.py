"""One ply deep on material: prefer the capture series that wins the most."""

from engines.botkit import Greedy, run

VALUES = {"q": 9, "r": 5, "b": 3, "p": 1}


def material(position) -> float:
    board = position.text().split()[0]
    return sum(VALUES.get(c.lower(), 0) * (1 if c.isupper() else -1) for c in board if c.isalpha())


if __name__ == "__main__":
    run(Greedy(material), name="shatra-greedy")
