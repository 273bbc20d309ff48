"""Vorex bots, batched: random, greedy (one ply) and planner (greedy rollouts).

The greedy evaluation of a position for seat ``s`` reads only public state
(the map, resources held) and is, in :data:`~sims.vorex.config.WEIGHT_NAMES`
order, the float64 sum ``w_score * score + w_flowers * flowers + ...`` of:

* ``score``: the seat's points if the game ended now (solo weed: minus the
  player's points, the weed's own are always 0);
* ``flowers``: the seat's flowers on the map;
* ``production``: the seat's flowers on production stumps (light included);
* ``resources``: resources held (all four kinds); ``light``: light held;
* ``tiles``: tiles on the map. Within one decision only the mover places
  tiles, so this ranks actions exactly as "tiles placed by the seat" would,
  and it can be read from a snapshot.

``reference_bots`` computes the same numbers from the reference engine's
snapshot, so both choose the same action.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from sims.core.choice import best_per_game, top_per_group
from sims.core.engine import BatchedBot, take_games
from sims.core.rng import seat_uniforms, uniforms, uniforms_at
from sims.vorex.config import WEIGHT_NAMES
from sims.vorex.rules import ACTION, FIRST_PRODUCTION, LAST_PRODUCTION, WEED, VorexEngine, VorexState, score_points

CHUNK = 16384  # branched positions evaluated at once (bounds memory)


def evaluate(engine: VorexEngine, state: VorexState, seats: np.ndarray, weights: Mapping[str, float]) -> np.ndarray:
    """float64 ``[n]``: the greedy evaluation of every game of ``state`` for seat ``seats[i]``."""
    n = state.size
    index = np.arange(n)
    H = engine.H
    points = score_points(engine, state.tile, state.part, state.kind, state.flower, state.group, state.green,
                          state.brown)
    total = sum(points.values())
    score = total[index, seats]
    if engine.solo:
        score = np.where(seats == WEED, -total[:, 0], score)
    mine = state.flower[:, :H] == seats[:, None]
    kind = state.kind[:, :H]
    features = {
        "score": score,
        "flowers": mine.sum(axis=1),
        "production": (mine & (kind >= FIRST_PRODUCTION) & (kind <= LAST_PRODUCTION)).sum(axis=1),
        "resources": state.resources[index, seats].astype(np.int64).sum(axis=1),
        "light": state.resources[index, seats, 0].astype(np.int64),
        "tiles": state.tiles_on_map.astype(np.int64),
    }
    value = np.zeros(n, dtype=np.float64)
    for name in WEIGHT_NAMES:
        value = value + float(weights.get(name, 0.0)) * features[name].astype(np.float64)
    return value


class RandomBot(BatchedBot):
    """Uniform among legal actions: with ``n`` legal actions in ascending order and
    ``u = uniforms(seed, "bot/<seat>", decisions)[:, 0]``, legal action number ``min(floor(u * n), n - 1)``;
    ``<seat>`` is the seat to move, so one call chooses for every random seat."""

    engine: VorexEngine
    plays_any_seat = True

    def act(self, state: VorexState, active: np.ndarray) -> np.ndarray:
        chosen = np.full(state.size, -1, dtype=np.int64)
        rows = np.nonzero(active & ~state.done)[0]
        if rows.size == 0:
            return chosen
        which, action = np.nonzero(self.engine.legal_rows(state, rows))
        count = np.bincount(which, minlength=rows.size)
        u = seat_uniforms(state.seeds[rows], state.to_move[rows], state.decisions[rows])
        k = np.minimum((u * count).astype(np.int64), count - 1)  # as sims.core.choice.choose_uniform
        chosen[rows] = action[np.cumsum(count) - count + k]
        return chosen


class GreedyBot(BatchedBot):
    """One ply: every legal action is applied to a copy of the game and the position evaluated for the mover.

    The highest evaluation wins (see the module docstring); equal values go to
    the highest noise ``uniforms_at(seed, "bot/<seat>", decisions, action)``.
    The same choice as ``reference_bots.ReferenceGreedyBot``.
    """

    engine: VorexEngine

    def __init__(self, engine: VorexEngine, seat: int, weights: Mapping[str, float] | None = None,
                 stream: str | None = None):
        super().__init__(engine, seat, weights)
        self.stream = stream or f"bot/{seat}"

    def scored_actions(self, state: VorexState, active: np.ndarray):
        """Flat ``games, actions, value, noise`` over every legal action of the active games, by game."""
        engine = self.engine
        rows = np.nonzero(active & ~state.done)[0]
        games, actions = engine.legal_pairs(state, rows)
        value = np.empty(games.size, dtype=np.float64)
        for start in range(0, games.size, CHUNK):
            part = slice(start, start + CHUNK)
            branch = take_games(state, games[part])
            branch.logging = False
            movers = branch.to_move.astype(np.int64)
            engine.step(branch, actions[part])
            value[part] = evaluate(engine, branch, movers, self.weights)
        noise = uniforms_at(state.seeds[games], self.stream, state.decisions[games], actions)
        return games, actions, value, noise

    def act(self, state: VorexState, active: np.ndarray) -> np.ndarray:
        games, actions, value, noise = self.scored_actions(state, active)
        chosen = np.full(state.size, -1, dtype=np.int64)
        best = best_per_game(games, value, noise)
        chosen[games[best]] = actions[best]
        return chosen


class PlannerBot(GreedyBot):
    """Rollouts: the best ``candidates`` greedy actions, each played on by greedy bots.

    A rollout runs until this seat's next ACTION decision of a later turn, the
    end of the game, or ``depth`` decisions. The pile below the face-up tiles
    is reshuffled first with the planner's own stream (its order is hidden).
    Every seat in a rollout plays greedy with the stream ``plan/<my seat>/<seat>``.
    A candidate is worth my evaluation at the rollout's end (a finished game:
    winning first), ties go to the greedy value, then the noise.
    """

    def act(self, state: VorexState, active: np.ndarray) -> np.ndarray:
        engine = self.engine
        games, actions, value, noise = self.scored_actions(state, active)
        chosen = np.full(state.size, -1, dtype=np.int64)
        if games.size == 0:
            return chosen
        keep = top_per_group(games, value, noise, k=int(self.weights.get("candidates", 4)))
        games, actions, value, noise = games[keep], actions[keep], value[keep], noise[keep]
        branch = take_games(state, games)
        branch.logging = False
        self._reshuffle_pile(branch)
        start_turn = branch.turn.copy()
        engine.step(branch, actions)
        branch.decisions += 1
        rollout = [GreedyBot(engine, seat, self.weights, stream=f"plan/{self.seat}/{seat}")
                   for seat in range(engine.players)]
        for _ in range(int(self.weights.get("depth", 8))):
            live = ~branch.done & ~((branch.to_move == self.seat) & (branch.phase == ACTION)
                                    & (branch.turn > start_turn))
            if not live.any():
                break
            replies = np.full(branch.size, -1, dtype=np.int64)
            for seat in np.unique(branch.to_move[live]):
                movers = live & (branch.to_move == seat)
                replies[movers] = rollout[int(seat)].act(branch, movers)[movers]
            frozen = ~live & ~branch.done
            branch.done |= frozen  # games at the horizon sit out the step
            engine.step(branch, replies)
            branch.done &= ~frozen
            branch.decisions[live] += 1
        worth = evaluate(engine, branch, np.full(branch.size, self.seat, dtype=np.int64), self.weights)
        if branch.done.any():
            ranks = engine.results(branch).rank[:, self.seat].astype(np.float64)
            worth = np.where(branch.done & (ranks > 0), worth - 1e6 * ranks, worth)
        best = top_per_group(games, worth, value, noise)
        chosen[games[best]] = actions[best]
        return chosen

    def _reshuffle_pile(self, branch: VorexState) -> None:
        """Shuffle the tiles not yet revealed (which tiles remain is public, their order is not)."""
        total = branch.pile.shape[1]
        if total == 0:
            return
        keys = uniforms(branch.seeds, f"plan/{self.seat}/pile", branch.decisions, total)
        seen = np.arange(total)[None, :] < branch.pile_pointer[:, None]
        order = np.argsort(np.where(seen, -1.0, keys), axis=1, kind="stable")
        branch.pile = np.take_along_axis(branch.pile, order, axis=1)


