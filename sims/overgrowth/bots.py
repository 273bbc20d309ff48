"""Overgrowth bots, batched: greedy (one ply) and planner (rollouts); random is the core one (``sims.core.bots``).

Bots read the engine's state and the pure rule functions of ``rules.py`` on
hypothetical positions; they never change the state. Their random numbers
come from the game's stream ``bot/<seat>`` at the game's decision counter,
so the plain counterparts in ``reference_bots.py`` choose identically.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from sims.core.engine import BatchedBot
from sims.core.planner import Candidates, RolloutPlanner
from sims.core.rng import purpose_key
from sims.overgrowth import kernels
from sims.overgrowth.rules import OvergrowthEngine, OvergrowthState
from sims.overgrowth.tables import Tables


def seat_streams(stream: str | None = None) -> np.ndarray:
    """uint64 ``[2]``: the purpose key of each seat's random stream, ``bot/<seat>``, or ``stream`` for both."""
    return np.array([purpose_key(stream or f"bot/{seat}") for seat in range(2)], dtype=np.uint64)


class Evaluation:
    """Greedy scores of positions for the mover: one ply with connection distances (compiled, :mod:`kernels`).

    A position scores ``opponent_distance * their distance - own_distance *
    own distance + flowers * (own - their flowers)``; a connection wins, a
    spent supply ends the game by flower count.
    """

    def __init__(self, tables: Tables, weights: Mapping[str, float]):
        self.tables = tables
        self.weights = kernels.bot_weights(weights)

    def position(self, own: np.ndarray, opp: np.ndarray, supply_left: np.ndarray) -> np.ndarray:
        """float ``[n]``: score of each position reached by the mover."""
        t = self.tables
        return kernels.position_scores(np.ascontiguousarray(own), np.ascontiguousarray(opp),
                                       np.ascontiguousarray(supply_left, dtype=np.int64), t.boards, self.weights,
                                       t.king, t.far)


class GreedyBot(BatchedBot):
    """One ply: the legal action whose resulting position scores best (ties by random noise).

    The noise comes from the stream ``bot/<seat>`` of the seat to move, so one call chooses for both
    seats; a bot given its own ``stream`` (a planner's rollouts) plays its own seat with that stream.
    """

    engine: OvergrowthEngine
    plays_any_seat = True

    def __init__(self, engine: OvergrowthEngine, seat: int, weights: Mapping[str, float] | None = None,
                 stream: str | None = None):
        super().__init__(engine, seat, weights)
        self.evaluation = Evaluation(engine.tables, self.weights)
        self.stream = stream or f"bot/{seat}"
        self.purpose_keys = seat_streams(stream)
        if stream is not None:
            self.plays_any_seat = False

    def _scored(self, state: OvergrowthState, active: np.ndarray, best_only: bool) -> tuple[np.ndarray, ...]:
        return kernels.scored_games(state.stones, state.markers, state.supply, state.to_move, state.turn,
                                    np.ascontiguousarray(active & ~state.done), state.seeds, state.decisions,
                                    self.purpose_keys, self.engine.tables, self.evaluation.weights, best_only)

    def scored_actions(self, state: OvergrowthState, active: np.ndarray) -> tuple[np.ndarray, ...]:
        """Every legal (game, action) of the active games with its placement's greedy score and noise:
        flat ``game, action, score, noise``, by game then action."""
        return self._scored(state, active, best_only=False)

    def act(self, state: OvergrowthState, active: np.ndarray) -> np.ndarray:
        games, actions = self._scored(state, active, best_only=True)[:2]
        chosen = np.full(state.size, self.engine.config.pass_action, dtype=np.int64)
        chosen[games] = actions
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
    plays_any_seat = False  # it plans for its own seat
    strong_weights = {"iterations": 10.0}  # an information-set tree search (docs/bots.md)

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
        standing = self.evaluation.position(branch.stones[:, me], branch.stones[:, them], branch.supply[:, me])
        result = np.where(branch.winner == me, kernels.WIN, np.where(branch.winner == them, kernels.LOSS, 0.0))
        return np.where(branch.done, result, standing)
