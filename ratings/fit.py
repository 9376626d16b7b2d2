"""Fitted ratings: a fit of every rated game of one game id (arrays in, ratings out)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import linalg, sparse, special
from scipy.sparse import csgraph

from .elo import START

ELO_PER_UNIT = 400.0 / math.log(10.0)  # Elo per natural-log unit of strength
Z95 = 1.959963984540054
PRIOR_SD = 250.0  # Elo; the service passes ARENA_RATING_PRIOR_SD
ADVANTAGE_PRIOR_SD = 150.0  # Elo; ARENA_RATING_ADVANTAGE_PRIOR_SD
VERSION_PRIOR_SD = 300.0  # Elo, a new version around its predecessor; ARENA_RATING_VERSION_PRIOR_SD
VIRTUAL_DECISIVE_GAMES = 2  # in the dispersion, between equals: each adds 1/4 to both sums
NEWTON_STEP_LIMIT = 1e-10  # natural-log units: the largest step left that still counts as the optimum
DISPERSION_LIMIT = 1e-10  # the dispersion's change between two rounds that ends its fixed point

RATED, ABOVE, BELOW, APART, UNRATED = "rated", "above", "below", "apart", "unrated"
# What a status means in a few words, shown beside it where there is no rating (STATUSES says it in full).
BRIEF = {RATED: "", ABOVE: "never lost", BELOW: "never scored", APART: "no linked games", UNRATED: "undetermined"}
STATUSES = {
    RATED: "rated by the fit",
    ABOVE: "never lost a point to the pool: rating unbounded above (fits before the prior)",
    BELOW: "never scored against the pool: rating unbounded below (fits before the prior)",
    APART: "no games, or none linking it to the rated pool",
    UNRATED: "the pool's results did not determine ratings (fits before the prior; see the fit's note)",
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
    # Davidson's ν that gives the pool's draw share between equals, 2q / (1 − q): a summary for old readers,
    # not a parameter of the fit; 0 when the pool drew no game, None when it drew every game.
    draw_nu: float | None = None
    note: str = ""  # why nobody is rated, or that some bots are apart from the pool
    # Covariance of the reported ratings (Elo², players × players); NaN in the rows of unrated players.
    covariance: np.ndarray | None = field(default=None, compare=False, repr=False)
    dispersion: float | None = None  # φ: the score's variance over a coin toss's (1 without draws)
    draw_share: float | None = None  # drawn share of the pool's games


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


def fit_games(white, black, white_score, players: int, average: float = START, **options) -> Fit:
    return fit(cells_from_games(white, black, white_score, players), players, average, **options)


def prior_sds(prior_sd: float | None = None, advantage_prior_sd: float | None = None,
              version_prior_sd: float | None = None) -> tuple[float, float, float]:
    """The priors' standard deviations (Elo): as given, else the module's defaults (the service passes the
    settings)."""
    sds = (PRIOR_SD if prior_sd is None else float(prior_sd),
           ADVANTAGE_PRIOR_SD if advantage_prior_sd is None else float(advantage_prior_sd),
           VERSION_PRIOR_SD if version_prior_sd is None else float(version_prior_sd))
    for name, sd in zip(("prior_sd", "advantage_prior_sd", "version_prior_sd"), sds):
        if not (math.isfinite(sd) and sd > 0):
            raise ValueError(f"{name} must be a positive number of Elo, not {sd}")
    return sds


def fit(cells: Cells, players: int, average: float = START, prior_sd: float | None = None,
        advantage_prior_sd: float | None = None, version_prior_sd: float | None = None, predecessor=None) -> Fit:
    """Ratings (fitted bots average ``average``), 95% intervals and the first player's advantage, in Elo.

    ``predecessor[p]`` is the player that ``p`` is a later version of (-1, or no array: none): its prior is
    centred on that player's rating, with ``version_prior_sd``, rather than on the pool. Self-pairings
    (white == black) are ignored. Deterministic: the counts alone decide the answer.
    """
    prior_sd, advantage_prior_sd, version_prior_sd = prior_sds(prior_sd, advantage_prior_sd, version_prior_sd)
    cells = cells.take((cells.white != cells.black) & (cells.games > 0))
    games_of = np.bincount(cells.white, cells.games, players) + np.bincount(cells.black, cells.games, players)
    games_of = games_of.astype(np.int64)
    total = int(cells.games.sum())
    apart = [PlayerFit(APART, int(games_of[p])) for p in range(players)]
    if total == 0:
        return Fit(apart, 0, 0, note="no rated games")
    pool = _rated_pool(cells, players, games_of)
    index = np.full(players, -1)
    index[pool] = np.arange(pool.size)
    sub = cells.take(np.isin(cells.white, pool) & np.isin(cells.black, pool))
    sub = Cells(index[sub.white], index[sub.black], sub.wins, sub.draws, sub.losses)
    precision = _prior_precision(_pool_predecessors(predecessor, index, players), ELO_PER_UNIT / prior_sd,
                                 ELO_PER_UNIT / advantage_prior_sd, ELO_PER_UNIT / version_prior_sd)
    beta, alpha, phi, cov = _maximise(sub, pool.size, precision)
    elo = average + ELO_PER_UNIT * (beta - beta.mean())
    margin = Z95 * ELO_PER_UNIT * np.sqrt(np.diag(cov)[: pool.size])
    players_fit = list(apart)
    for k, p in enumerate(pool):
        players_fit[p] = PlayerFit(RATED, int(games_of[p]), float(elo[k]), float(margin[k]))
    covariance = np.full((players, players), np.nan)
    covariance[np.ix_(pool, pool)] = ELO_PER_UNIT ** 2 * cov[: pool.size, : pool.size]
    outside = int(((games_of > 0) & (index < 0)).sum())
    note = (f"{outside} bot{'s' if outside > 1 else ''} played only in groups no game links to the rated pool"
            if outside else "")
    draws = int(sub.draws.sum())
    fitted = int(sub.games.sum())
    share = draws / fitted
    return Fit(players_fit, total, fitted, advantage=float(ELO_PER_UNIT * alpha),
               advantage_margin=float(Z95 * ELO_PER_UNIT * math.sqrt(cov[-1, -1])),
               draw_nu=2 * share / (1 - share) if share < 1 else None, note=note, covariance=covariance,
               dispersion=phi, draw_share=share)


def _rated_pool(cells: Cells, players: int, games_of) -> np.ndarray:
    """The largest group of bots linked by games (ties: more games, then the lowest index)."""
    graph = sparse.coo_matrix((np.ones(len(cells.white)), (cells.white, cells.black)), shape=(players, players))
    count, label = csgraph.connected_components(graph.tocsr(), directed=False)
    played = games_of > 0
    size = np.bincount(label[played], minlength=count)
    weight = np.bincount(label, games_of, minlength=count)
    first = np.full(count, players)
    np.minimum.at(first, label, np.arange(players))
    best = min(range(count), key=lambda c: (-size[c], -weight[c], first[c]))
    return np.flatnonzero(label == best)


def _pool_predecessors(predecessor, index: np.ndarray, players: int) -> np.ndarray:
    """Each pool member's predecessor as a pool index (-1: none). A predecessor outside the pool (no game,
    or apart) hands on its own: a version follows the latest earlier one that the fit rates."""
    size = int((index >= 0).sum())
    chain = np.full(size, -1)
    if predecessor is None:
        return chain
    predecessor = np.asarray(predecessor, dtype=np.int64)
    if predecessor.shape != (players,) or predecessor.min(initial=-1) < -1 or predecessor.max(initial=-1) >= players:
        raise ValueError(f"predecessor needs one index in -1..{players - 1} per player")
    for p in range(players):
        q, steps = predecessor[p], 0
        while q >= 0 and steps <= players:
            q, steps = predecessor[q], steps + 1
        if q >= 0:
            raise ValueError(f"player {p}'s predecessors go round in a circle")
    for p in np.flatnonzero(index >= 0):
        q = predecessor[p]
        while q >= 0 and index[q] < 0:
            q = predecessor[q]
        chain[index[p]] = index[q] if q >= 0 else -1
    return chain


def _prior_precision(chain: np.ndarray, rating_scale: float, advantage_scale: float,
                     version_scale: float) -> np.ndarray:
    """The priors' precision matrix over (β, α), natural-log units (``*_scale``: one over the sd).

    A first version's rating is N(0, prior_sd²) (the pool's average); a later one's is N(its predecessor's,
    version_prior_sd²): a new version starts from what its bot was, not from the pool, and moves away as its
    games say. Together they are one proper normal prior (chains rooted around the pool), so the posterior
    stays convex.
    """
    scales = np.where(chain >= 0, version_scale, rating_scale)
    precision = np.diag(np.r_[scales ** 2, advantage_scale ** 2])
    for child, parent in enumerate(chain):
        if parent >= 0:
            precision[parent, parent] += version_scale ** 2
            precision[child, parent] = precision[parent, child] = -version_scale ** 2
    return precision


def _maximise(cells: Cells, n: int, precision: np.ndarray):
    """(β, α, φ, covariance of (β centred, α)) at the posterior mode; natural-log units.

    ``precision`` is the priors' precision matrix over (β, α) (``_prior_precision``).
    """
    w, b = cells.white, cells.black
    games = cells.games.astype(float)
    points = cells.wins + 0.5 * cells.draws  # white's
    draws = float(cells.draws.sum())

    def eta(x):
        return x[w] - x[b] + x[n]

    def information(weight):  # Σ weight · x xᵀ for the design rows x = e_w − e_b + e_α, as a dense matrix
        h = np.zeros((n + 1, n + 1))
        flat = np.bincount(w * n + w, weight, n * n) + np.bincount(b * n + b, weight, n * n)
        flat -= np.bincount(w * n + b, weight, n * n) + np.bincount(b * n + w, weight, n * n)
        h[:n, :n] = flat.reshape(n, n)
        h[:n, n] = h[n, :n] = np.bincount(w, weight, n) - np.bincount(b, weight, n)
        h[n, n] = weight.sum()
        return h

    def objective(x, phi):  # minus the log posterior, up to a constant
        e = eta(x)
        loglik = -(points @ np.logaddexp(0.0, -e) + (games - points) @ np.logaddexp(0.0, e))
        return -loglik / phi + 0.5 * x @ precision @ x

    def newton(x, phi):
        value = objective(x, phi)
        for _ in range(200):
            expected = special.expit(eta(x))
            residual = (points - games * expected) / phi
            grad = precision @ x
            grad[:n] -= np.bincount(w, residual, n) - np.bincount(b, residual, n)
            grad[n] -= residual.sum()
            step = linalg.solve(information(games * expected * (1 - expected)) / phi + precision, grad,
                                assume_a="pos")
            size = 1.0
            while True:  # backtrack: the objective is convex, so a short enough Newton step always descends
                trial = x - size * step
                trial_value = objective(trial, phi)
                if trial_value <= value or size < 1e-8:
                    break
                size /= 2
            x, value = trial, trial_value
            if np.abs(size * step).max() < NEWTON_STEP_LIMIT:
                break
        return x

    x, phi = np.zeros(n + 1), 1.0
    for _ in range(100):  # φ depends on the expected scores: a fixed point, two or three rounds in practice
        x = newton(x, phi)
        expected = special.expit(eta(x))
        spread = float(games @ (expected * (1 - expected)))
        virtual = VIRTUAL_DECISIVE_GAMES / 4
        updated = (max(spread - draws / 4, 0.0) + virtual) / (spread + virtual)
        if abs(updated - phi) < DISPERSION_LIMIT:
            break
        phi = updated
    coin, inverse = None, np.zeros((n + 1, n + 1))
    for _ in range(50):
        # The logistic's curvature averaged over the pair's own uncertainty (MacKay's probit approximation):
        # at the mode alone, a bot with a handful of games gets intervals about 8% too narrow.
        spread = (inverse[w, w] + inverse[b, b] - 2 * inverse[w, b] + inverse[n, n]
                  + 2 * inverse[w, n] - 2 * inverse[b, n])
        kappa = 1 / np.sqrt(1 + math.pi * spread / 8)
        smoothed = special.expit(kappa * eta(x))
        updated = games * kappa * smoothed * (1 - smoothed)  # the pair's score variance were its games coin tosses
        if coin is not None and np.abs(updated - coin).max() < 1e-9 * games.max():
            break
        coin = updated
        inverse = np.linalg.inv(information(coin) / phi + precision)
    # Draws are not spread evenly (equals draw more): each pair's own variance, coin − draws/4, drawn
    # towards the pool's φ by the same virtual games, replaces φ · coin in a sandwich. Without a prior this
    # is the sandwich of the quasi-likelihood; where φ fits every pair it is the posterior's (H/φ + P)⁻¹.
    virtual = VIRTUAL_DECISIVE_GAMES / 4
    variance = coin * (np.maximum(coin - cells.draws / 4, 0.0) + virtual * phi) / (coin + virtual)
    cov = inverse @ (information(variance) / phi ** 2 + precision) @ inverse
    # Ratings relative to the pool average: project out the common shift, which only the prior pins.
    centre = np.eye(n + 1)
    centre[:n, :n] -= 1.0 / n
    cov = centre @ cov @ centre.T
    return x[:n], x[n], phi, cov
