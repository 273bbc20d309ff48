"""Information-set Monte Carlo tree search over a rollout planner's hooks, batched over the game axis.

A :class:`~sims.core.planner.RolloutPlanner` with the weight ``iterations``
(> 0) chooses by :func:`search_choices` instead of its one-level plan. Every
game of the batch grows its own tree, all of them together:

* each iteration ``k`` copies the games (:meth:`BatchedEngine.branch`) and
  reshuffles what the planner may not see with sample ``k``'s stream
  (:meth:`RolloutPlanner.hide_unseen`; ``plan/<seat>/<name>/s<k>``), never
  the real order: one determinization of the information set. Its rollouts
  draw their greedy noise from sample ``k``'s streams too;
* iteration 0 plays every root candidate (the planner's ``candidates``) and
  rolls each out, as the one-sample planner does; every later one sends
  ``walkers`` (default 4) paths per game down the tree, each through another
  root candidate (the best by UCT, untried ones first), so the paths of an
  iteration share its determinization and never meet below the root;
* below the root a path walks a tree over the decisions of every seat. A
  node offers the greedy bot's best actions of the position reached in this
  iteration (:meth:`RolloutPlanner.candidates`), ``1 + floor(widen *
  sqrt(visits))`` of them (progressive widening, ``widen`` default 1), at
  most ``candidates``. An untried one is taken first, in greedy order; else
  the highest UCT value: the mean worth for the seat to move plus ``uct``
  (default 0.5) times the root's range of worths (a finished game's result
  left out) times ``sqrt(ln(visits) / child visits)``;
* a new node, a node at the planner's horizon (counted from the root's turn)
  or at ``tree_depth`` (default 64) is rolled out by
  :meth:`RolloutPlanner.roll_out` (greedy bots in every seat) and the
  rollout's :meth:`RolloutPlanner.worth` is added to every node of the path.

With ``observe`` 1 the nodes below the root are information sets: a path's
next node is keyed by its parent, the action and what the position shows
(every state array the determinization leaves alone, :func:`observations`),
so the statistics of an action are those of the games in which the mover saw
the same position, never mixed with other refills; an action's visits and
worth stay on the edge (the ``parent * actions + action`` node), shared by
its observation nodes.

Worth is the planner's seat's: the seat to move at a node maximises it, every
other seat minimises it (zero-sum at 2 players, paranoid at more). The root
plays its most visited action, ties to the higher mean worth, then greedy's
value and noise. With ``tree_depth`` 1 the search is UCB allocation of
rollouts among the root's candidates.

Every choice depends only on each game's seed and counters: trees never mix
games, and the iteration count is a weight, not a function of the batch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

import dataclasses

from sims.core.choice import best_per_game, top_per_group
from sims.core.engine import BatchedState
from sims.core.rng import mix64

TERMINAL = 1e5  # a worth this large (or more) holds a finished game's result (planner.WIN_BONUS and the like)

if TYPE_CHECKING:
    from sims.core.planner import Candidates, RolloutPlanner


class Tree:
    """The nodes of every game's tree, flat: node ``g`` (``g < games``) is game ``g``'s root.

    Children are found by the key ``parent * actions + action`` in a sorted key array.
    """

    def __init__(self, games: int, actions: int, capacity: int) -> None:
        self.actions = actions
        self.visits = np.zeros(capacity, dtype=np.int64)
        self.total = np.zeros(capacity, dtype=np.float64)
        self.size = games
        self.keys = np.zeros(0, dtype=np.int64)
        self.ids = np.zeros(0, dtype=np.int64)
        self.seen_keys = np.zeros(0, dtype=np.int64)  # observation nodes (weight ``observe``), by :meth:`seen`
        self.seen_ids = np.zeros(0, dtype=np.int64)

    def child(self, parents: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """int64: the child of each ``parents`` by ``actions``, -1 where there is none."""
        key = parents * self.actions + actions
        if self.keys.size == 0:
            return np.full(key.size, -1, dtype=np.int64)
        at = np.minimum(np.searchsorted(self.keys, key), self.keys.size - 1)
        return np.where(self.keys[at] == key, self.ids[at], -1)

    def add(self, parents: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """New children, one per (parent, action) pair, none of them in the tree yet: their ids."""
        ids = self._new_ids(parents.size)
        keys = np.concatenate([self.keys, parents * self.actions + actions])
        order = np.argsort(keys, kind="stable")
        self.keys, self.ids = keys[order], np.concatenate([self.ids, ids])[order]
        return ids

    def _new_ids(self, count: int) -> np.ndarray:
        """Ids of ``count`` new nodes with no visits (the arrays grow as needed)."""
        ids = np.arange(self.size, self.size + count, dtype=np.int64)
        self.size += count
        if self.size > self.visits.size:
            grow = max(self.size, 2 * self.visits.size)
            self.visits = np.resize(self.visits, grow)
            self.total = np.resize(self.total, grow)
            self.visits[self.size - count:] = 0
            self.total[self.size - count:] = 0.0
        return ids

    def seen(self, edges: np.ndarray, seen: np.ndarray) -> np.ndarray:
        """The observation node of each of ``edges`` for the position codes ``seen`` (uint64), added if new."""
        key = mix64(edges.astype(np.uint64) ^ mix64(seen)).view(np.int64)
        found = np.full(key.size, -1, dtype=np.int64)
        if self.seen_keys.size:
            at = np.minimum(np.searchsorted(self.seen_keys, key), self.seen_keys.size - 1)
            found = np.where(self.seen_keys[at] == key, self.seen_ids[at], -1)
        new = np.flatnonzero(found < 0)
        if new.size:
            fresh, first = np.unique(key[new], return_index=True)
            ids = self._new_ids(fresh.size)
            keys = np.concatenate([self.seen_keys, fresh])
            order = np.argsort(keys, kind="stable")
            self.seen_keys, self.seen_ids = keys[order], np.concatenate([self.seen_ids, ids])[order]
            found[new] = ids[np.searchsorted(fresh, key[new])]
        return found


def observations(branch: BatchedState, hidden: frozenset[str]) -> np.ndarray:
    """uint64 ``[n]``: a code of each game's position without the ``hidden`` arrays (what every seat sees)."""
    code = np.zeros(branch.size, dtype=np.uint64)
    for index, field in enumerate(dataclasses.fields(branch)):
        value = getattr(branch, field.name)
        if field.name in hidden or field.name == "seeds" or not isinstance(value, np.ndarray) or value.ndim == 0:
            continue
        flat = value.reshape(branch.size, -1)
        if flat.dtype == np.bool_:
            flat = flat.astype(np.uint8)
        multipliers = mix64(np.arange(flat.shape[1], dtype=np.uint64) + np.uint64(index << 32)) | np.uint64(1)
        with np.errstate(over="ignore"):
            code = mix64(code ^ (flat.astype(np.int64).view(np.uint64) * multipliers).sum(axis=1, dtype=np.uint64))
    return code


def hidden_fields(planner: RolloutPlanner, state: BatchedState, roots: np.ndarray) -> frozenset[str]:
    """The state arrays the planner's determinization changes (its :meth:`hide_unseen` on a copy)."""
    before = planner.engine.branch(state, roots)
    after = planner.engine.branch(state, roots)
    planner.hide_unseen(after)
    return frozenset(field.name for field in dataclasses.fields(before)
                     if isinstance(getattr(before, field.name), np.ndarray)
                     and not np.array_equal(getattr(before, field.name), getattr(after, field.name)))


def search_choices(planner: RolloutPlanner, state: BatchedState, found: Candidates, keep: np.ndarray,
                   chosen: np.ndarray) -> None:
    """Write each game's searched choice among the root candidates ``found[keep]`` into ``chosen``."""
    games = found.games[keep]
    alone = np.bincount(games)[games] == 1
    chosen[games[alone]] = found.actions[keep[alone]]
    keep, games = keep[~alone], games[~alone]
    if keep.size == 0:
        return
    roots, root_index = np.unique(games, return_inverse=True)
    iterations = int(planner.weight("iterations", 0))
    tree = Tree(roots.size, planner.engine.num_actions, keep.size * (iterations + 1))
    spread = Spread(roots.size)
    root_turn = state.turn[roots]
    at_root = found._replace(games=np.searchsorted(roots, found.games))
    walkers = int(planner.weight("walkers", 4))
    hidden = hidden_fields(planner, state, roots) if planner.weight("observe", 0) else None
    for planner.sample in range(iterations):
        branch = planner.engine.branch(state, roots)
        if found.played is None:
            planner.hide_unseen(branch)
        descend(planner, tree, spread, branch, root_turn, at_root, keep, walkers if planner.sample else 0, hidden)
    planner.sample = 0
    child = tree.child(root_index, found.actions[keep])
    visits = np.where(child >= 0, tree.visits[np.maximum(child, 0)], 0)
    mean = np.where(visits > 0, tree.total[np.maximum(child, 0)] / np.maximum(visits, 1), -np.inf)
    best = best_per_game(games, visits.astype(np.float64), mean, found.value[keep], found.noise[keep])
    chosen[games[best]] = found.actions[keep][best]


def uct_scores(planner: RolloutPlanner, tree: Tree, spread: Spread, parents: np.ndarray, roots: np.ndarray,
               mover: np.ndarray, child: np.ndarray) -> np.ndarray:
    """The UCT value of each ``child`` (-1: untried, +inf) of ``parents`` for the seat ``mover`` to move there."""
    visits = np.where(child >= 0, tree.visits[np.maximum(child, 0)], 0)
    mean = tree.total[np.maximum(child, 0)] / np.maximum(visits, 1)
    mean = np.where(mover == planner.seat, mean, -mean)
    parent_visits = np.maximum(tree.visits[parents], 1)
    bonus = float(planner.weight("uct", 0.5)) * spread.of(roots) * np.sqrt(np.log(parent_visits)
                                                                             / np.maximum(visits, 1))
    return np.where(visits == 0, np.inf, mean + bonus)


class Spread:
    """Each root's range of rollout worths short of a finished game's result (:data:`TERMINAL`): the UCT
    exploration scale. A result is worth more than any evaluation; it counts in the means, not the scale."""

    def __init__(self, roots: int) -> None:
        self.low = np.full(roots, np.inf)
        self.high = np.full(roots, -np.inf)

    def add(self, roots: np.ndarray, worth: np.ndarray) -> None:
        running = np.abs(worth) < TERMINAL
        np.minimum.at(self.low, roots[running], worth[running])
        np.maximum.at(self.high, roots[running], worth[running])

    def of(self, roots: np.ndarray) -> np.ndarray:
        return np.where(self.high[roots] > self.low[roots], self.high[roots] - self.low[roots], 1.0)


def descend(planner: RolloutPlanner, tree: Tree, spread: Spread, branch: BatchedState, root_turn: np.ndarray,
            root_found: Candidates, root_keep: np.ndarray, walkers: int, hidden: frozenset[str] | None = None) -> None:
    """One iteration of every game (``branch``: their determinized copies, at their roots): ``walkers`` paths
    of each (0: one through every root candidate) down the tree, each through a different root candidate,
    expanding one node, rolled out and backed up. The roots' candidates are ``root_found[root_keep]``, their
    ``games`` numbering the roots. ``hidden``: the arrays left out of the observation nodes (None: no
    observation nodes, the path goes from edge to edge)."""
    kept_games = root_found.games[root_keep]
    if walkers:
        child = tree.child(kept_games, root_found.actions[root_keep])
        score = uct_scores(planner, tree, spread, kept_games, kept_games, branch.to_move[kept_games], child)
        picked = root_keep[np.sort(top_per_group(kept_games, score, root_found.value[root_keep],
                                                 root_found.noise[root_keep], k=walkers))]
    else:
        picked = root_keep
    roots = root_found.games[picked]  # the root of each walker
    child = tree.child(roots, root_found.actions[picked])
    new = child < 0
    if new.any():
        child[new] = tree.add(roots[new], root_found.actions[picked[new]])
    branch = planner._play(branch, root_found, picked, hide=False)
    if root_found.played is not None:
        planner.hide_unseen(branch)  # the root's moves were played on the real games
    walker = np.arange(picked.size)
    path = [(walker, roots), (walker, child)]
    if hidden is not None:
        child = tree.seen(child, observations(branch, hidden))
        path.append((walker, child))
    worth = np.zeros(picked.size)
    root_turn = root_turn[roots]
    nodes = child
    max_depth = int(planner.weight("tree_depth", 64))
    widen = float(planner.weight("widen", 1.0))
    depth = 1
    while True:
        stop = new | branch.done | planner.at_horizon(branch, root_turn) | (depth >= max_depth)
        if not stop.all():
            found = planner.candidates(branch, ~stop, np.full(branch.size, -1, dtype=np.int64))
            width = np.minimum(planner.candidate_count, 1 + np.floor(widen * np.sqrt(tree.visits[nodes])))
            keep = np.flatnonzero(rank_in_group(found.games, found.value, found.noise) < width[found.games])
            games = found.games[keep]
            stop[np.setdiff1d(np.arange(branch.size), games)] = True
        ended = np.flatnonzero(stop)  # new nodes, and nodes the search goes no further from: rolled out
        if ended.size == branch.size:
            worth[walker] = planner.roll_out(branch, root_turn)
            break
        if ended.size:
            worth[walker[ended]] = planner.roll_out(planner.engine.branch(branch, ended), root_turn[ended])
        child = tree.child(nodes[games], found.actions[keep])
        score = uct_scores(planner, tree, spread, nodes[games], roots[walker[games]], branch.to_move[games], child)
        pick = best_per_game(games, score, found.value[keep], found.noise[keep])
        picked, rows, child = keep[pick], games[pick], child[pick]
        new = child < 0
        if new.any():
            child[new] = tree.add(nodes[rows[new]], found.actions[picked[new]])
        branch = planner._play(branch, found, picked, hide=False)
        walker, nodes, root_turn = walker[rows], child, root_turn[rows]
        path.append((walker, nodes))
        if hidden is not None:
            nodes = tree.seen(nodes, observations(branch, hidden))
            path.append((walker, nodes))
        depth += 1
    spread.add(roots, worth)
    for walked, at in path:
        np.add.at(tree.visits, at, 1)
        np.add.at(tree.total, at, worth[walked])


def rank_in_group(groups: np.ndarray, *keys: np.ndarray) -> np.ndarray:
    """int64: each item's rank in its group (0: the best by ``keys``, higher is better)."""
    order = np.lexsort(tuple(-key for key in reversed(keys)) + (groups,))
    ranked = groups[order]
    first = np.r_[True, ranked[1:] != ranked[:-1]] if ranked.size else np.zeros(0, dtype=bool)
    start = np.maximum.accumulate(np.where(first, np.arange(ranked.size), 0))
    rank = np.empty(groups.size, dtype=np.int64)
    rank[order] = np.arange(ranked.size) - start
    return rank
