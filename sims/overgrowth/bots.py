"""Overgrowth bots, batched: random, greedy (one ply) and planner (two ply).

Bots read the engine's state and the pure rule functions of ``rules.py`` on
hypothetical positions; they never change the state. Their random numbers
come from the game's stream ``bot/<seat>`` at the game's decision counter,
so the plain counterparts in ``reference_bots.py`` choose identically.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from sims.core.choice import top_per_group
from sims.core.engine import BatchedBot
from sims.core.grid import kth_set_bit, popcount
from sims.core.planner import Candidates, RolloutPlanner
from sims.core.rng import uniforms, uniforms_at
from sims.overgrowth.rules import Geometry, OvergrowthEngine, OvergrowthState, connection_distance

U64 = np.uint64
WIN, LOSS = 1e9, -1e9


def placement_flags(geo: Geometry, singles: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """bool ``[..., placements]`` from single-cell and pair (left cell) bitboards."""
    flags = np.zeros(singles.shape + (geo.placements,), dtype=bool)
    flags[..., : geo.cells] = geo.grid.to_cells(singles)
    left_cells = np.nonzero(geo.pair_of_left_cell >= 0)[0]
    flags[..., geo.pair_of_left_cell[left_cells]] = geo.grid.to_cells(pairs)[..., left_cells]
    return flags


class RandomBot(BatchedBot):
    """Uniform among legal actions: legal action number ``floor(u * n)`` in ascending order."""

    engine: OvergrowthEngine

    def act(self, state: OvergrowthState, active: np.ndarray) -> np.ndarray:
        geo = self.engine.geo
        singles, pairs = self.engine.options(state)
        size, slots = singles.shape
        groups = np.stack([singles, pairs], axis=2).reshape(size, 2 * slots)  # ascending action order
        counts = popcount(groups)
        total = counts.sum(axis=1)
        u = uniforms(state.seeds, f"bot/{self.seat}", state.decisions)[:, 0]
        k = np.minimum((u * total).astype(np.int64), np.maximum(total - 1, 0))
        running = np.cumsum(counts, axis=1)
        group = np.argmax(running > k[:, None], axis=1)
        rows = np.arange(size)
        index_in_group = k - (running[rows, group] - counts[rows, group])
        cell = kth_set_bit(groups[rows, group], index_in_group)
        slot, is_pair = np.divmod(group, 2)
        placement = np.where(is_pair == 1, geo.pair_of_left_cell[np.minimum(cell, geo.cells - 1)], cell)
        action = slot * geo.placements + placement
        return np.where(total > 0, action, self.engine.config.pass_action)


class Evaluation:
    """Greedy scores of placements for the mover: one ply with connection distances."""

    def __init__(self, geo: Geometry, weights: Mapping[str, float]):
        self.geo = geo
        self.own_weight = float(weights["own_distance"])
        self.opponent_weight = float(weights["opponent_distance"])
        self.flower_weight = float(weights["flowers"])

    def position(self, own, opp, supply_left):
        """Score of a position reached by the mover; ``(score, own distance, opponent distance, diff)``."""
        geo = self.geo
        mine = connection_distance(geo, own, opp)
        theirs = connection_distance(geo, opp, own)
        diff = popcount(own) - popcount(opp)
        score = (self.opponent_weight * theirs - self.own_weight * mine) + self.flower_weight * diff
        won = mine == 0
        spent = ~won & (supply_left == 0)
        ending = np.where(diff > 0, WIN, np.where(diff < 0, LOSS, 0.0))
        score = np.where(won, WIN, np.where(spent, ending, score))
        return score, mine, theirs, diff

    def placements(self, own, opp, supply, placement):
        """Score of each (position, placement) pair: the mover places and the position is scored."""
        bits = self.geo.placement_bits[placement]
        return self.position(own | bits, opp & ~bits, supply - self.geo.placement_size[placement])


class GreedyBot(BatchedBot):
    """One ply: the legal action whose resulting position scores best (ties by random noise)."""

    engine: OvergrowthEngine

    def __init__(self, engine: OvergrowthEngine, seat: int, weights: Mapping[str, float] | None = None,
                 stream: str | None = None):
        super().__init__(engine, seat, weights)
        self.evaluation = Evaluation(engine.geo, self.weights)
        self.stream = stream or f"bot/{seat}"

    def scored_actions(self, state: OvergrowthState, active: np.ndarray):
        """Every legal (game, action) of the active games with its placement's greedy score.

        Returns flat arrays ``game, action, score, noise`` and the view used.
        """
        geo = self.engine.geo
        singles, pairs = self.engine.options(state)
        singles = np.where(active[:, None], singles, U64(0))
        pairs = np.where(active[:, None], pairs, U64(0))
        view = self.engine.mover_view(state)
        own, opp, _, _, supply, _ = view
        any_flags = placement_flags(geo, np.bitwise_or.reduce(singles, axis=1), np.bitwise_or.reduce(pairs, axis=1))
        games, placement = np.nonzero(any_flags)
        score = np.full(any_flags.shape, -np.inf)
        score[games, placement] = self.evaluation.placements(own[games], opp[games], supply[games], placement)[0]
        slot_flags = placement_flags(geo, singles, pairs)  # [B, slots, placements]
        games, slot, placement = np.nonzero(slot_flags)
        action = slot * geo.placements + placement
        noise = uniforms_at(state.seeds[games], self.stream, state.decisions[games], action)
        return games, action, score[games, placement], noise, view

    def act(self, state: OvergrowthState, active: np.ndarray) -> np.ndarray:
        games, action, score, noise, _ = self.scored_actions(state, active)
        best = top_per_group(games, score, noise)
        chosen = np.full(state.size, self.engine.config.pass_action, dtype=np.int64)
        chosen[games[best]] = action[best]
        return chosen


class PlannerBot(RolloutPlanner, GreedyBot):
    """Rollouts: the best ``candidates`` greedy actions, each played out ``depth`` more decisions.

    Both sides of a rollout play greedy with the planner's weights, breaking
    ties with the planner's own stream (never the opponent's). A candidate is
    worth the rollout's result if the game ended (win, loss, tie), else the
    greedy evaluation of the position reached, from the planner's seat.
    """

    default_candidates = 8
    default_depth = 6
    rollout_bot_class = GreedyBot

    def candidates(self, state: OvergrowthState, active: np.ndarray, chosen: np.ndarray) -> Candidates:
        chosen[:] = self.engine.config.pass_action
        return super().candidates(state, active, chosen)

    def at_horizon(self, branch: OvergrowthState, start_turn: np.ndarray) -> np.ndarray:
        return np.zeros(branch.size, dtype=bool)  # only ``depth`` stops a rollout

    def worth(self, branch: OvergrowthState) -> np.ndarray:
        return self.value(branch)

    def value(self, branch: OvergrowthState) -> np.ndarray:
        """Worth of each rollout's last position to the planner's seat."""
        me, them = self.seat, 1 - self.seat
        standing = self.evaluation.position(
            branch.stones[:, me], branch.stones[:, them], branch.supply[:, me])[0]
        result = np.where(branch.winner == me, WIN, np.where(branch.winner == them, LOSS, 0.0))
        return np.where(branch.done, result, standing)
