"""Vora bots, batched: greedy (one ply) and planner (greedy rollouts); random is the core one (``sims.core.bots``)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from sims.core.choice import ScoredBot
from sims.core.grid import popcount
from sims.core.planner import WIN_BONUS, Candidates, RolloutPlanner, reshuffle_unseen
from sims.core.rng import purpose_key
from sims.vora import bot_kernels
from sims.vora.config import weight_vector
from sims.vora.rules import VoraEngine, VoraState, state_arrays


class GreedyBot(ScoredBot):
    """One ply on every decision: by default my family-score change minus the best opponent's.

    Every legal (game, action) is played on a copy of the game (in the
    compiled :func:`bot_kernels.score_game`, one call per game) to its next
    decision or the end of the turn (without the refill, which changes no
    farm), and valued ``score * (S_me_after - S_me_before) - rival * max over opponents (S_o_after - S_o_before)``
    plus the weights ``near``, ``specials`` and ``cubes`` times the changes of my farm's features
    (``config.WEIGHT_NAMES``; unset weights from ``config.DEFAULT_WEIGHTS``: score 1, rival 1, the rest 0);
    the highest value wins, equal values go to the highest noise
    ``uniforms_at(seed, "bot/<seat>", decisions, action)``. A main action that
    pushes back a push-back, or returns to another meadow one of the last main
    actions found, is worth -inf (no loops, :func:`sims.vora.kernels.repeats_previous`). The same choice as
    ``reference_bots.ReferenceGreedyBot``.
    """

    engine: VoraEngine

    def __init__(self, engine: VoraEngine, seat: int, weights: Mapping[str, float] | None = None,
                 stream: str | None = None):
        super().__init__(engine, seat, weights)
        self.stream = stream or f"bot/{seat}"

    def weight_array(self) -> np.ndarray:
        """float64 weights in ``config.WEIGHT_NAMES`` order, as the kernels read them."""
        return np.array(weight_vector(self.weights), dtype=np.float64)

    def act(self, state: VoraState, active: np.ndarray) -> np.ndarray:
        """The highest value, ties to the highest noise: chosen game by game in the compiled kernel."""
        rows = (active & ~state.done).nonzero()[0]
        chosen = np.full(state.size, -1, dtype=np.int64)
        bot_kernels.greedy_choices(self.engine.geo.tables, state_arrays(state), state.seeds, state.decisions, rows,
                               self.weight_array(), purpose_key(self.stream), chosen)
        return chosen

    def scored_actions(self, state: VoraState, active: np.ndarray):
        """Flat arrays ``game, action, value, noise`` over every legal action of the active games, by game."""
        engine = self.engine
        rows = (active & ~state.done).nonzero()[0]
        groups = engine.legal_groups(state, rows)
        counts = popcount(groups).sum(axis=1, dtype=np.int64)
        first = np.cumsum(counts) - counts
        size = int(counts.sum())
        actions = np.zeros(size, dtype=np.int64)
        value = np.zeros(size, dtype=np.float64)
        noise = np.zeros(size, dtype=np.float64)
        bot_kernels.greedy_values(engine.geo.tables, state_arrays(state), state.seeds, state.decisions,
                              self.weight_array(), purpose_key(self.stream), rows, groups, first, actions, value, noise)
        return np.repeat(rows, counts), actions, value, noise


class PlannerBot(RolloutPlanner, GreedyBot):
    """Rollouts: the best ``candidates`` greedy actions, each played on by greedy bots.

    A rollout continues until this bot's next main decision (every other seat
    has played its turn; weight ``turns``: that many turns, its own counted) or
    ``depth`` decisions, whichever comes first; the
    bag's unseen part is reshuffled first with the planner's own stream, so the
    planner never reads the real order of the bag. Every seat in a rollout
    plays greedy with the planner's weights and the stream ``plan/<my seat>/<seat>``. A candidate is worth
    my family score minus the opponents' at the rollout's end (a finished
    game: the result first, then that margin; a running one: plus my farm's
    features, by the planner's weights); the opponents' score is the best
    opponent's, mixed with their mean by the weight ``worth_mean`` (the
    result alike: the sign against the best, mixed with the mean sign against
    each). Ties go to the greedy value, then the noise. Actions the greedy
    rules out as repeats (value -inf) are no candidates while the game has
    another action.

    At 3 and 4 players the worth is against the opponents' mean (``worth_mean``
    1 in ``configs/games/vora.toml``; at 2 players the mean is the best) and
    every candidate is rolled out, as at 2 players: against the best opponent
    the planner did no better than greedy there unless it only broke greedy's
    ties (docs/bots.md, Finding a stronger planner).

    No-progress streaks: once ``quiet_turns`` turns in a row have drawn
    nothing from the bag (nobody collected, so the game cannot move towards
    its end), the planner plays its greedy choice until a cube is drawn again.
    Two planners otherwise can swap moles and ducks for hundreds of turns,
    each avoiding the collection that would help the other.
    """

    quiet_turns = 20

    # 2 players: 64 rollouts among 12 candidates by UCB, ~10.5x the planner's CPU (docs/bots.md, How far is the bar?)
    strong_weights = {"candidates": 12.0, "budget_2p": 64.0, "uct_2p": 1.0, "candidates_3p": 6.0, "samples_3p": 4.0,
                      "candidates_4p": 6.0, "samples_4p": 4.0}
    default_candidates = 6
    default_depth = 12

    rollout_bot_class = GreedyBot

    def weight_array(self) -> np.ndarray:
        """The greedy weights (``config.WEIGHT_NAMES`` order), then the worth's ``worth_mean`` (default 0), as the
        kernels read them (the greedy's kernels read the first five)."""
        return np.array(weight_vector(self.weights) + [self.weight("worth_mean", 0.0)], dtype=np.float64)

    def act(self, state: VoraState, active: np.ndarray) -> np.ndarray:
        """The plan; the greedy choice in games on a no-progress streak."""
        stuck = active & (state.quiet >= self.quiet_turns)
        if not stuck.any():
            return super().act(state, active)
        chosen = super().act(state, active & ~stuck)
        chosen[stuck] = GreedyBot.act(self, state, stuck)[stuck]
        return chosen

    def candidates(self, state: VoraState, active: np.ndarray, chosen: np.ndarray) -> Candidates:
        """The greedy bot's scored actions, without the repeats (value -inf) of games that have other actions."""
        found = super().candidates(state, active, chosen)
        repeat = np.isneginf(found.value)
        if not repeat.any():
            return found
        has_other = np.zeros(state.size, dtype=bool)
        has_other[found.games[~repeat]] = True
        keep = ~repeat | ~has_other[found.games]
        return Candidates(found.games[keep], found.actions[keep], found.value[keep], found.noise[keep])

    def roll_out(self, branch: VoraState, start_turn: np.ndarray) -> np.ndarray:
        """The rollouts of :class:`RolloutPlanner`, every game played to its horizon in the compiled kernel;
        each rollout's :meth:`worth`."""
        worth = np.empty(branch.size, dtype=np.float64)
        bot_kernels.roll_out(self.engine.geo.tables, state_arrays(branch), branch.seeds, branch.decisions,
                         self.weight_array(), self.rollout_keys(), self.seat,
                         np.ascontiguousarray(self.stop_turn(start_turn), dtype=np.int64), self.depth, WIN_BONUS, worth)
        return self.end_worth(branch, worth)

    def stop_turn(self, start_turn: np.ndarray) -> np.ndarray:
        """The turn count at which a rollout stops: ``turns`` turns on, by default every seat's (this seat's
        next main decision, as the planner decides on its own turn)."""
        return start_turn + (self.horizon_turns or self.engine.players)

    def at_horizon(self, branch: VoraState, start_turn: np.ndarray) -> np.ndarray:
        return branch.turn >= self.stop_turn(start_turn)

    def worth(self, branch: VoraState) -> np.ndarray:
        """My family score minus the opponents' (weighed by ``score`` and ``rival``, the best opponent's mixed with
        their mean by ``worth_mean``), a finished game's result first, a running game's farm features weighed on
        top (:func:`bot_kernels.seat_worth`)."""
        worth = np.empty(branch.size, dtype=np.float64)
        bot_kernels.worths(self.engine.geo.tables, branch.farms, branch.done, self.seat, self.weight_array(), WIN_BONUS,
                       worth)
        return worth

    def hide_unseen(self, branch: VoraState) -> None:
        """Shuffle the cubes not yet drawn (their kinds are public, their order is not)."""
        branch.bag = reshuffle_unseen(branch.bag, branch.bag_pointer, branch.seeds, self.plan_stream("bag"),
                                       branch.decisions)
