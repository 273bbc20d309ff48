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
from sims.core.rng import uniforms, uniforms_at
from sims.overgrowth.rules import (
    Geometry,
    OvergrowthEngine,
    OvergrowthState,
    apply_action,
    connection_distance,
    slot_options,
)

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

    def __init__(self, engine: OvergrowthEngine, seat: int, weights: Mapping[str, float] | None = None):
        super().__init__(engine, seat, weights)
        self.evaluation = Evaluation(engine.geo, self.weights)

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
        noise = uniforms_at(state.seeds[games], f"bot/{self.seat}", state.decisions[games], action)
        return games, action, score[games, placement], noise, view

    def act(self, state: OvergrowthState, active: np.ndarray) -> np.ndarray:
        games, action, score, noise, _ = self.scored_actions(state, active)
        best = top_per_group(games, score, noise)
        chosen = np.full(state.size, self.engine.config.pass_action, dtype=np.int64)
        chosen[games[best]] = action[best]
        return chosen


class PlannerBot(GreedyBot):
    """Two ply: the best ``candidates`` greedy actions, each answered by the opponent's best greedy reply.

    A candidate's value is minus the opponent's best reply score (the greedy
    evaluation is antisymmetric when the distance weights are equal); an
    immediate win or a game-ending move keeps its own value.
    """

    def act(self, state: OvergrowthState, active: np.ndarray) -> np.ndarray:
        geo = self.engine.geo
        games, action, score, noise, (own, opp, marker_me, marker_opp, supply, _) = self.scored_actions(state, active)
        chosen = np.full(state.size, self.engine.config.pass_action, dtype=np.int64)
        if games.size == 0:
            return chosen
        keep = top_per_group(games, score, noise, int(self.weights.get("candidates", 6)))
        games, action, score, noise = games[keep], action[keep], score[keep], noise[keep]

        after = apply_action(geo, own[games], opp[games], marker_me[games], marker_opp[games], supply[games], action)
        rows = np.arange(state.size)
        them = 1 - state.to_move.astype(np.int64)
        their_supply = state.supply[rows, them][games]
        their_home = np.where(state.turn[games] < 1, geo.area[them[games]], U64(0))
        reply_singles, reply_pairs = slot_options(
            geo, after.opp, after.own, marker_opp[games], after.marker, their_supply, their_home)
        reply_flags = placement_flags(
            geo, np.bitwise_or.reduce(reply_singles, axis=1), np.bitwise_or.reduce(reply_pairs, axis=1))
        candidate, reply = np.nonzero(reply_flags)
        reply_score = self.evaluation.placements(
            after.opp[candidate], after.own[candidate], their_supply[candidate], reply)[0]
        best_reply = np.full(games.size, np.nan)
        best_index = top_per_group(candidate, reply_score, np.zeros_like(reply_score))
        best_reply[candidate[best_index]] = reply_score[best_index]

        # a candidate the opponent can only answer by passing: score the position it leaves them
        passing = np.isnan(best_reply)
        if passing.any():
            standing = self.evaluation.position(after.opp[passing], after.own[passing], their_supply[passing])[0]
            best_reply[passing] = standing
        terminal = (score >= WIN) | (after.supply == 0)
        value = np.where(terminal, score, -best_reply)
        best = top_per_group(games, value, noise)
        chosen[games[best]] = action[best]
        return chosen
