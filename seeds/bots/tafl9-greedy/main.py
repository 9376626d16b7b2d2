"""One ply deep on material: take what can be taken, else anything."""

from engines.botkit import Greedy, run


def material(position) -> float:
    board = position.text().split()[0]
    return 2 * board.count("w") - board.count("b")


if __name__ == "__main__":
    run(Greedy(material), name="tafl9-greedy")
