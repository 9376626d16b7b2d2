"""Fitted ratings: a maximum-likelihood fit of every rated game of one game id (arrays in, ratings out).

The model is Bradley–Terry on the Elo scale with a first-player advantage and Davidson's draws. For
white ``i`` against black ``j`` let ``d = (β_i − β_j + α) / 2`` (β a rating and α the advantage, both in
natural-log units; Elo = β · 400 / ln 10) and ``ν`` the draw parameter::

    P(white wins) = e^d / Z,   P(black wins) = e^-d / Z,   P(draw) = ν / Z,   Z = e^d + e^-d + ν

so a win against a loss stays at odds ``10^((R_i − R_j + A) / 400)`` — the Elo scale exactly, and plain
Bradley–Terry when there are no draws (ν = 0). Davidson rather than BayesElo's model because of that
(BayesElo's ratings stretch with the draw rate) and because the negative log-likelihood is then convex
in (β, α, log ν): one optimum, found by a Newton trust-region method whatever the order of the games.

Intervals come from the Hessian (the observed information), not from a bootstrap as Ordo does: they are
exact to the same first order as the fit itself, cost one (n+2)² inversion instead of a thousand refits
of up to a million games, and stay deterministic (a bootstrap needs a random seed and moves with it).
``benchmarks/ratings.py`` measures their coverage of the true strengths on simulated leagues.

When the results do not bound a rating the answer says so instead of printing a huge number:
only the largest group of bots that have each scored, directly or through others, against every other
one (a strongly connected component of the "scored against" graph) is fitted; a bot outside it is
``ABOVE`` (it always beat the pool), ``BELOW`` (the pool always beat it) or ``APART`` (no game links it to
the pool). With no pool at all (every result so far one-sided), a bot that never lost a point is ``ABOVE``,
one that never scored is ``BELOW``, and one that did both against different bots is ``APART``.
A pool whose results still leave the optimum at infinity — only draws, or one colour winning every game,
or any other separation (seen as a Newton step that does not vanish) — gets no ratings and a note why.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import optimize, sparse
from scipy.sparse import csgraph

ELO_PER_UNIT = 400.0 / math.log(10.0)  # Elo per natural-log unit of strength
Z95 = 1.959963984540054
NEWTON_STEP_LIMIT = 1e-4  # natural-log units (0.02 Elo): the largest step left that still counts as the optimum
UNBOUNDED = ("the results leave some ratings unbounded: a group of bots won every game that could have "
             "separated them")

RATED, ABOVE, BELOW, APART, UNRATED = "rated", "above", "below", "apart", "unrated"
STATUSES = {
    RATED: "rated by the fit",
    ABOVE: "scored against the pool (or, with no pool, against anyone) and never lost a point to it: rating "
           "unbounded above",
    BELOW: "never scored against the pool (or, with no pool, against anyone): rating unbounded below",
    APART: "no game links it to the rated pool",
    UNRATED: "the pool's results do not determine ratings (see the fit's note)",
}


class Interval:
    """The 95% interval of a rating held as ``elo`` and ``margin`` (its half-width); None without a rating."""

    @property
    def low(self) -> float | None:
        return None if self.elo is None else self.elo - self.margin

    @property
    def high(self) -> float | None:
        return None if self.elo is None else self.elo + self.margin


@dataclass(frozen=True)
class PlayerFit(Interval):
    status: str
    games: int
    elo: float | None = None
    margin: float | None = None  # half-width of the 95% interval, in Elo


@dataclass(frozen=True)
class Fit:
    players: list[PlayerFit]
    games: int  # games read (every rated game between two of the players)
    fitted_games: int  # games inside the rated pool
    advantage: float | None = None  # the first player's advantage, Elo
    advantage_margin: float | None = None
    draw_nu: float | None = None  # Davidson's ν; 0 when the pool drew no game
    note: str = ""  # why nobody is rated, when nobody is
    # Covariance of the reported ratings (Elo², players × players); NaN in the rows of unrated players.
    covariance: np.ndarray | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Cells:
    """Results per ordered pair: white index, black index, white's wins, draws, losses (one row a pair)."""

    white: np.ndarray
    black: np.ndarray
    wins: np.ndarray
    draws: np.ndarray
    losses: np.ndarray

    @property
    def games(self) -> np.ndarray:
        return self.wins + self.draws + self.losses

    def take(self, rows) -> Cells:
        return Cells(self.white[rows], self.black[rows], self.wins[rows], self.draws[rows], self.losses[rows])


def cells_from_games(white, black, white_score, players: int) -> Cells:
    """Aggregate single games (white's score 1, 0.5 or 0) into per-pair counts."""
    white, black = np.asarray(white, dtype=np.int64), np.asarray(black, dtype=np.int64)
    score = np.asarray(white_score, dtype=float)
    if not (len(white) == len(black) == len(score)):
        raise ValueError("white, black and score need one entry per game")
    if len(white) and (min(white.min(), black.min()) < 0 or max(white.max(), black.max()) >= players):
        raise ValueError(f"player indices must be in 0..{players - 1}")
    if not np.isin(score, (0.0, 0.5, 1.0)).all():
        raise ValueError("a game's score must be 1, 0.5 or 0")
    pair = white * players + black
    counts = [np.bincount(pair[score == s], minlength=players * players) for s in (1.0, 0.5, 0.0)]
    rows = np.flatnonzero(counts[0] + counts[1] + counts[2])
    return Cells(rows // players, rows % players, *(c[rows] for c in counts))


def fit_games(white, black, white_score, players: int, average: float = 1500.0) -> Fit:
    return fit(cells_from_games(white, black, white_score, players), players, average)


def fit(cells: Cells, players: int, average: float = 1500.0) -> Fit:
    """Ratings (pool average = ``average``), 95% intervals, advantage and draw rate from per-pair counts.

    Self-pairings (white == black) are ignored. Deterministic: the counts alone decide the answer.
    """
    cells = cells.take((cells.white != cells.black) & (cells.games > 0))
    games_of = np.bincount(cells.white, cells.games, players) + np.bincount(cells.black, cells.games, players)
    games_of = games_of.astype(np.int64)
    total = int(cells.games.sum())
    if total == 0:
        return Fit([PlayerFit(APART, 0) for _ in range(players)], 0, 0, note="no rated games")
    pool, status = _rated_pool(cells, players, games_of)
    unrated = [PlayerFit(status[p], int(games_of[p])) for p in range(players)]
    if pool.size < 2:
        return Fit(unrated, total, 0, note="no two bots have each scored against the other")
    inside = np.isin(cells.white, pool) & np.isin(cells.black, pool)
    sub = cells.take(inside)
    index = np.full(players, -1)
    index[pool] = np.arange(pool.size)
    sub = Cells(index[sub.white], index[sub.black], sub.wins, sub.draws, sub.losses)
    fitted = int(sub.games.sum())
    note = _unbounded(sub, pool.size)
    if note:
        return Fit(_mark_unrated(unrated, pool), total, fitted, note=note)
    solved = _maximise(sub, pool.size)
    if solved is None:
        return Fit(_mark_unrated(unrated, pool), total, fitted, note=UNBOUNDED)
    beta, alpha, nu, cov = solved
    elo = average + ELO_PER_UNIT * (beta - beta.mean())
    margin = Z95 * ELO_PER_UNIT * np.sqrt(np.clip(np.diag(cov)[: pool.size], 0.0, None))
    players_fit = list(unrated)
    for k, p in enumerate(pool):
        players_fit[p] = PlayerFit(RATED, int(games_of[p]), float(elo[k]), float(margin[k]))
    advantage_margin = Z95 * ELO_PER_UNIT * math.sqrt(max(float(cov[pool.size, pool.size]), 0.0))
    covariance = np.full((players, players), np.nan)
    covariance[np.ix_(pool, pool)] = ELO_PER_UNIT ** 2 * cov[: pool.size, : pool.size]
    return Fit(players_fit, total, fitted, float(ELO_PER_UNIT * alpha), advantage_margin, float(nu), "",
               covariance)


def _mark_unrated(players_fit: list[PlayerFit], pool) -> list[PlayerFit]:
    marked = list(players_fit)
    for p in pool:
        marked[p] = PlayerFit(UNRATED, players_fit[p].games)
    return marked


def _rated_pool(cells: Cells, players: int, games_of) -> tuple[np.ndarray, list[str]]:
    """The bots whose ratings the results bound, and every bot's status relative to them.

    An edge i → j when i scored (won or drew) against j. The pool is the largest strongly connected
    component (ties: more games, then the lowest index, so the choice never depends on order).
    """
    white_scored, black_scored = (cells.wins + cells.draws) > 0, (cells.losses + cells.draws) > 0
    scored = np.concatenate([cells.white[white_scored], cells.black[black_scored]])
    against = np.concatenate([cells.black[white_scored], cells.white[black_scored]])
    graph = sparse.coo_matrix((np.ones(len(scored)), (scored, against)), shape=(players, players)).tocsr()
    count, label = csgraph.connected_components(graph, directed=True, connection="strong")
    played = games_of > 0
    size = np.bincount(label[played], minlength=count)
    weight = np.bincount(label, games_of, minlength=count)
    first = np.full(count, players)
    np.minimum.at(first, label, np.arange(players))
    best = min(range(count), key=lambda c: (-size[c], -weight[c], first[c]))
    pool = np.flatnonzero(label == best) if size[best] >= 2 else np.array([], dtype=np.int64)
    if not pool.size:  # every result one-sided: still say who never lost a point, and who never scored one
        conceded = np.isin(np.arange(players), against)
        won = np.isin(np.arange(players), scored)
        return pool, [ABOVE if won[p] and not conceded[p] else BELOW if conceded[p] and not won[p] else APART
                      for p in range(players)]
    status = [APART] * players
    below = csgraph.breadth_first_order(graph, pool[0], directed=True, return_predecessors=False)
    above = csgraph.breadth_first_order(graph.T.tocsr(), pool[0], directed=True, return_predecessors=False)
    for p in below:
        status[p] = BELOW
    for p in above:
        status[p] = ABOVE
    for p in pool:
        status[p] = RATED
    return pool, status


def _unbounded(cells: Cells, n: int) -> str:
    """Why the likelihood of a strongly connected pool has no finite maximum, or "" when it has one."""
    if not (cells.wins.sum() + cells.losses.sum()):
        return "only draws: the results do not separate the bots"
    if not (cells.losses.sum() + cells.draws.sum()):
        return "the first player won every game: its advantage is unbounded"
    if not (cells.wins.sum() + cells.draws.sum()):
        return "the second player won every game: the first player's disadvantage is unbounded"
    return ""


def _maximise(cells: Cells, n: int):
    """(β, α, ν, covariance of (β, α, log ν)) at the maximum likelihood, or None if it was not reached."""
    w, b = cells.white, cells.black
    wins, draws, losses = (x.astype(float) for x in (cells.wins, cells.draws, cells.losses))
    games = wins + draws + losses
    with_draws = bool(draws.sum())
    size = n + 1 + with_draws

    def parts(x):
        beta, alpha = x[:n], x[n]
        theta = x[n + 1] if with_draws else -np.inf
        d = 0.5 * (beta[w] - beta[b] + alpha)
        log_z = np.logaddexp(np.logaddexp(d, -d), theta)
        p_win, p_loss, p_draw = np.exp(d - log_z), np.exp(-d - log_z), np.exp(theta - log_z)
        return beta, d, theta, log_z, p_win, p_loss, p_draw

    def value_and_gradient(x):
        beta, d, theta, log_z, p_win, p_loss, p_draw = parts(x)
        # The sum of ratings is free in the likelihood; the penalty pins it at 0 without moving the optimum.
        shift = beta.sum()
        loglik = (wins - losses) @ d + (draws @ np.full(len(d), theta) if with_draws else 0.0) - games @ log_z
        g_d = -((wins - losses) - games * (p_win - p_loss)) / 2.0
        grad = np.zeros(size)
        grad[:n] = np.bincount(w, g_d, n) - np.bincount(b, g_d, n) + shift
        grad[n] = g_d.sum()
        if with_draws:
            grad[n + 1] = -(draws - games * p_draw).sum()
        return -loglik + 0.5 * shift * shift, grad

    def hessian(x):
        _, d, _, _, p_win, p_loss, p_draw = parts(x)
        h_dd = games * (p_win + p_loss - (p_win - p_loss) ** 2) / 4.0
        h = np.zeros((size, size))
        flat = np.bincount(w * n + w, h_dd, n * n) + np.bincount(b * n + b, h_dd, n * n)
        flat -= np.bincount(w * n + b, h_dd, n * n) + np.bincount(b * n + w, h_dd, n * n)
        h[:n, :n] = flat.reshape(n, n) + 1.0
        h[:n, n] = h[n, :n] = np.bincount(w, h_dd, n) - np.bincount(b, h_dd, n)
        h[n, n] = h_dd.sum()
        if with_draws:
            h_dt = -games * (p_win - p_loss) * p_draw / 2.0
            h[:n, n + 1] = h[n + 1, :n] = np.bincount(w, h_dt, n) - np.bincount(b, h_dt, n)
            h[n, n + 1] = h[n + 1, n] = h_dt.sum()
            h[n + 1, n + 1] = (games * p_draw * (1.0 - p_draw)).sum()
        return h

    start = np.zeros(size)
    if with_draws:  # ν from the draw share at equal strength: P(draw) = ν / (2 + ν)
        share = draws.sum() / games.sum()
        start[n + 1] = math.log(2.0 * share / (1.0 - share)) if share < 1 else 0.0
    result = optimize.minimize(value_and_gradient, start, jac=True, hess=hessian, method="trust-ncg",
                               options={"gtol": 1e-9, "maxiter": 200})
    x = result.x
    if not np.isfinite(x).all():
        return None
    h = hessian(x)
    try:
        cov = np.linalg.inv(h)
    except np.linalg.LinAlgError:
        return None
    # A true optimum leaves a vanishing Newton step. Where the results separate some bots (a direction in
    # which the likelihood only rises) the optimiser drifts off with a shrinking gradient, but the Newton
    # step along that direction stays near one unit: that is how a missing optimum shows.
    if np.abs(cov @ value_and_gradient(x)[1]).max() > NEWTON_STEP_LIMIT:
        return None
    # Ratings relative to the pool average: project out the common shift the penalty stood for.
    centre = np.eye(size)
    centre[:n, :n] -= 1.0 / n
    cov = centre @ cov @ centre.T
    if not np.isfinite(cov).all() or (np.diag(cov) < -1e-9).any():
        return None
    nu = math.exp(x[n + 1]) if with_draws else 0.0
    return x[:n], x[n], nu, cov
