"""Choosing one action per game among legal ones, batched.

All choosers take per-game uniforms from :mod:`sims.core.rng`, so a reference
engine that draws the same uniforms and lists its legal actions in ascending
order makes the same choice.
"""

from __future__ import annotations

import numpy as np

from sims.core.engine import BatchedBot, BatchedState
from sims.core.kernels import top_of_sorted_groups
from sims.core.rng import mix64

NO_ACTION = -1


def kth_legal(mask: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Index of the ``k``-th True of each row (ascending); -1 where there is none."""
    running = np.cumsum(mask, axis=1)
    chosen = np.argmax(running > np.asarray(k)[:, None], axis=1)
    has = running[:, -1] > k
    return np.where(has, chosen, NO_ACTION)


def choose_uniform(mask: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Uniform choice per row: legal action number ``floor(u * n_legal)`` in ascending order.

    ``u`` is one uniform per game (shape ``[B]``). Rows with no legal action give -1.
    """
    count = mask.sum(axis=1)
    k = np.minimum((u * count).astype(np.int64), np.maximum(count - 1, 0))
    return kth_legal(mask, k)


def choose_weighted(weights: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Choice per row with probability proportional to non-negative ``weights``."""
    cumulative = np.cumsum(weights, axis=1)
    target = u * cumulative[:, -1]
    chosen = np.argmax(cumulative > target[:, None], axis=1)
    return np.where(cumulative[:, -1] > 0, chosen, NO_ACTION)


def choose_best(scores: np.ndarray, mask: np.ndarray, noise: np.ndarray) -> np.ndarray:
    """Highest score among legal actions; ties broken by the highest ``noise``.

    ``noise`` has the shape of ``scores`` (one uniform per game and action).
    """
    masked = np.where(mask, scores, -np.inf)
    best = masked.max(axis=1, keepdims=True)
    tied = mask & (masked == best)
    chosen = np.argmax(np.where(tied, noise, -1.0), axis=1)
    return np.where(mask.any(axis=1), chosen, NO_ACTION)


def legal_set_hash(mask: np.ndarray) -> np.ndarray:
    """uint64 per row: an order-free hash of the set of legal action indices."""
    keys = mix64(np.arange(mask.shape[1], dtype=np.uint64) + np.uint64(0xA5A5))
    return np.where(mask, keys[None, :], np.uint64(0)).sum(axis=1, dtype=np.uint64)


def legal_set_hash_of(actions: list[int]) -> int:
    """The same hash for a plain list of legal action indices (reference engines)."""
    if not actions:
        return 0
    keys = mix64(np.asarray(sorted(set(actions)), dtype=np.uint64) + np.uint64(0xA5A5))
    return int(keys.sum(dtype=np.uint64))


def top_per_group(group: np.ndarray, *keys: np.ndarray, k: int = 1) -> np.ndarray:
    """Indices of the ``k`` best items of each group, best first within a group, groups ascending.

    Items are ranked by the first key, ties by the next (higher is better; NaN
    highest), items equal in every key by position (the later first); used to
    pick per game among a flat list of (game, candidate) pairs. Groups given
    in ascending order (each game's items together, as the bots list them) are
    ranked in one compiled pass (:func:`sims.core.kernels.top_of_sorted_groups`),
    others by a sort; both give the same indices.
    """
    if group.size == 0:
        return np.zeros(0, dtype=np.int64)
    if (group.size < 2 or bool(np.all(group[1:] >= group[:-1]))) and all(_exact_as_float(key) for key in keys):
        stacked = np.empty((len(keys), group.size), dtype=np.float64)
        for row, key in enumerate(keys):
            stacked[row] = key
        return top_of_sorted_groups(group, stacked, int(k))
    return top_per_group_by_sort(group, *keys, k=k)


def _exact_as_float(key: np.ndarray) -> bool:
    """float64 orders ``key`` exactly as its own dtype does."""
    kind, size = key.dtype.kind, key.dtype.itemsize
    return kind in "fb" and size <= 8 or kind in "iu" and size <= 4


def top_per_group_by_sort(group: np.ndarray, *keys: np.ndarray, k: int = 1) -> np.ndarray:
    """:func:`top_per_group` for groups in any order, by a stable sort on (group, keys)."""
    if group.size == 0:
        return np.zeros(0, dtype=np.int64)
    order = np.lexsort(tuple(reversed(keys)) + (group,))
    sorted_group = group[order]
    last_of_group = np.r_[sorted_group[1:] != sorted_group[:-1], True]
    ends = np.nonzero(last_of_group)[0]
    starts = np.r_[0, ends[:-1] + 1]
    picks = []
    for offset in range(k):
        position = ends - offset
        valid = position >= starts
        picks.append(np.where(valid, order[np.maximum(position, 0)], -1))
    chosen = np.stack(picks, axis=1).reshape(-1)
    return chosen[chosen >= 0]


def best_per_game(games: np.ndarray, *keys: np.ndarray) -> np.ndarray:
    """Index of each game's best item (highest first key, then the next ...); the first such item.

    ``games`` must be sorted (items of a game together), as the reference bots
    scan actions in ascending order and keep the first best one.
    """
    if games.size == 0:
        return np.zeros(0, dtype=np.int64)
    new_game = np.empty(games.size, dtype=bool)
    new_game[0] = True
    np.not_equal(games[1:], games[:-1], out=new_game[1:])
    starts = np.flatnonzero(new_game)
    segment = np.cumsum(new_game) - 1
    best = np.ones(games.size, dtype=bool)
    for key in keys:
        masked = np.where(best, key, -np.inf)
        top = np.maximum.reduceat(masked, starts)
        best &= masked == top[segment]
    first = np.flatnonzero(best)
    return first[np.r_[True, segment[first][1:] != segment[first][:-1]]]


def take_best(chosen: np.ndarray, games: np.ndarray, actions: np.ndarray, *keys: np.ndarray) -> None:
    """Write each game's best action (by ``keys``, as :func:`best_per_game`) into ``chosen`` (indexed by game)."""
    best = best_per_game(games, *keys)
    chosen[games[best]] = actions[best]


class ScoredBot(BatchedBot):
    """A bot that scores every legal action: ``scored_actions(state, active)`` gives flat
    ``(games, actions, value, noise)`` ordered by game; it plays the highest value, ties to the highest noise."""

    def scored_actions(self, state: BatchedState, active: np.ndarray) -> tuple[np.ndarray, ...]:
        raise NotImplementedError

    def act(self, state: BatchedState, active: np.ndarray) -> np.ndarray:
        games, actions, value, noise = self.scored_actions(state, active)[:4]
        chosen = np.full(state.size, NO_ACTION, dtype=np.int64)
        take_best(chosen, games, actions, value, noise)
        return chosen
