"""Alpha-beta over the referee's own move generator, with a Shatra evaluation.

Material first (batyr, turas, yalkyns, shatras), then shatras that have
crossed the ditch, then a little for a safe biy at home.
"""

from engines.botkit import AlphaBeta, run

VALUES = {"q": 9.0, "r": 5.0, "b": 3.0, "p": 1.0, "k": 0.0}


def evaluate(position) -> float:
    ranks = position.text().split()[0].split("/")  # rank 14 first
    total = 0.0
    for index, rank_text in enumerate(ranks):
        rank = 14 - index
        for char in rank_text:
            if not char.isalpha():
                continue
            sign = 1.0 if char.isupper() else -1.0
            total += sign * VALUES[char.lower()]
            if char == "P" and rank >= 8:
                total += 0.2 * (rank - 7)
            elif char == "p" and rank <= 7:
                total -= 0.2 * (8 - rank)
    return total


if __name__ == "__main__":
    run(AlphaBeta(evaluate), name="shatra-search")
