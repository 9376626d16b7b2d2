"""Alpha-beta over the referee's own move generator, with a Fidchell Rules 2 evaluation.

White wins by a chain from the Navel Stone to the rim; Black wins by
bringing White's strength below 7. So White's strength counts most, White's
spread over the rings helps White, and nothing of Black's chains matters.
"""

from engines.botkit import AlphaBeta, run


def evaluate(position) -> float:
    fields = dict(field.strip().split("=", 1) for field in position.text().split(";"))
    white_hand, black_hand = (int(n) for n in fields["H"].split("/"))
    white = [] if fields["W"] == "-" else fields["W"].split(",")
    black = [] if fields["B"] == "-" else fields["B"].split(",")
    white_strength = len(white) + white_hand
    rings = {int(node[1:].split("s")[0]) for node in white}
    danger = 3.0 * max(0, 10 - white_strength)  # the closer to 7, the nearer Black's win
    return white_strength - 0.5 * (len(black) + black_hand) + 0.4 * len(rings) - danger


if __name__ == "__main__":
    run(AlphaBeta(evaluate), name="fidchell-2-search")
