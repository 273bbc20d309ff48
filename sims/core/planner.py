"""Rollout planning over a greedy bot, shared by the games' ``planner`` bots.

A planner takes its greedy bot's best ``candidates`` actions in each game,
plays each on a copy (hidden information reshuffled with the planner's own
stream, so it never reads the real order), lets greedy bots play every seat
until a horizon, and chooses the candidate worth most there. Ties go to the
greedy value, then the greedy noise. A game supplies only the hooks: what is
hidden, where the horizon is, and what a position is worth.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sims.core.choice import take_best, top_per_group
from sims.core.engine import BatchedBot, BatchedState, branch_games, take_games  # noqa: F401 (branch_games: its old home)
from sims.core.rng import uniforms

WIN_BONUS = 1e6  # a finished game's result counts before any evaluation


class Candidates(NamedTuple):
    """The greedy bot's scored actions, flat and ordered by game.

    ``played``: copies of the games with each action already applied (row i
    for item i), when the greedy scoring made them anyway; None to have the
    planner apply them.
    """

    games: np.ndarray
    actions: np.ndarray
    value: np.ndarray
    noise: np.ndarray
    played: BatchedState | None = None


def reshuffle_unseen(items: np.ndarray, first_unseen: np.ndarray, seeds: np.ndarray, purpose: str,
                     counter: np.ndarray) -> np.ndarray:
    """``items [n, k]`` (a bag, a pile) with positions from ``first_unseen`` on shuffled by the stream
    ``purpose``; the seen positions before it keep their place."""
    total = items.shape[1]
    if total == 0:
        return items
    keys = uniforms(seeds, purpose, counter, total)
    seen = np.arange(total)[None, :] < first_unseen[:, None]
    order = np.argsort(np.where(seen, -1.0, keys), axis=1, kind="stable")
    return np.take_along_axis(items, order, axis=1)


class RolloutPlanner(BatchedBot):
    """Mixin that turns a greedy bot into a rollout planner: ``class PlannerBot(RolloutPlanner, GreedyBot)``.

    Weights ``candidates`` and ``depth`` override the class defaults. A game
    implements :meth:`hide_unseen` and :meth:`worth`, sets :attr:`rollout_bot_class`
    (the greedy bot playing every seat in a rollout), and either sets
    :attr:`turn_phase` (rollouts stop at this seat's next decision in that phase
    of a later turn) or implements :meth:`at_horizon`.
    """

    default_candidates: int = 6
    default_depth: int = 12
    rollout_bot_class: type[BatchedBot]
    turn_phase: int | None = None  # the state's ``phase`` in which a seat starts its turn
    _rollout_bots: list[BatchedBot] | None = None

    @property
    def candidate_count(self) -> int:
        return int(self.weights.get("candidates", self.default_candidates))

    @property
    def depth(self) -> int:
        return int(self.weights.get("depth", self.default_depth))

    # --- hooks --------------------------------------------------------------------------------

    def candidates(self, state: BatchedState, active: np.ndarray, chosen: np.ndarray) -> Candidates:
        """The greedy bot's scored legal actions of the active games; may settle forced games in ``chosen``."""
        games, actions, value, noise = self.scored_actions(state, active)[:4]
        return Candidates(games, actions, value, noise)

    def hide_unseen(self, branch: BatchedState) -> None:
        """Reshuffle what the planner may not see (a pile's order) with its own stream."""

    def at_horizon(self, branch: BatchedState, start_turn: np.ndarray) -> np.ndarray:
        """bool ``[n]``: rollouts that stop here; ``start_turn`` is the turn the candidate was chosen in.

        By default: this seat's next decision in :attr:`turn_phase` of a later turn.
        """
        if self.turn_phase is None:
            raise NotImplementedError("set turn_phase or implement at_horizon")
        return (branch.to_move == self.seat) & (branch.phase == self.turn_phase) & (branch.turn > start_turn)

    def max_rollout_decisions(self) -> int | None:
        """Decisions a rollout may take at most (None: only the horizon stops it)."""
        return self.depth

    def worth(self, branch: BatchedState) -> np.ndarray:
        """float ``[n]``: what each rollout's final position is worth to this planner's seat."""
        raise NotImplementedError

    # --- the plan -----------------------------------------------------------------------------

    def act(self, state: BatchedState, active: np.ndarray) -> np.ndarray:
        chosen = np.full(state.size, -1, dtype=np.int64)
        found = self.candidates(state, active, chosen)
        if found.games.size == 0:
            return chosen
        keep = np.sort(top_per_group(found.games, found.value, found.noise, k=self.candidate_count))
        games, actions, value, noise = (found.games[keep], found.actions[keep],
                                        found.value[keep], found.noise[keep])
        start_turn = state.turn[games]
        if found.played is None:
            branch = self.engine.branch(state, games)
            self.hide_unseen(branch)
            self.engine.step(branch, actions)
            branch.decisions += 1
        else:
            branch = self.engine.branch(found.played, keep)
            self.hide_unseen(branch)
        take_best(chosen, games, actions, self.roll_out(branch, start_turn), value, noise)
        return chosen

    def rollout_bots(self) -> list[BatchedBot]:
        """The greedy bot of each seat in this planner's rollouts (made once)."""
        if self._rollout_bots is None:
            self._rollout_bots = [self.rollout_bot_class(self.engine, seat, self.weights,
                                                         stream=f"plan/{self.seat}/{seat}")
                                  for seat in range(self.engine.players)]
        return self._rollout_bots

    def roll_out(self, branch: BatchedState, start_turn: np.ndarray) -> np.ndarray:
        """Greedy bots in every seat play ``branch`` on until the horizon, the end or the decision limit;
        returns each rollout's :meth:`worth`.

        Once at most half the games still play, the stopped ones are valued and
        the rest go on in a smaller copy, so each step costs what plays.
        """
        bots = self.rollout_bots()
        limit = self.max_rollout_decisions()
        worth = np.empty(branch.size, dtype=np.float64)
        rows = np.arange(branch.size)  # the rollout each game of ``branch`` is
        taken = 0
        while True:
            live = ~branch.done
            if limit is None or taken < limit:
                live &= ~self.at_horizon(branch, start_turn)
            else:
                live[:] = False
            playing = np.flatnonzero(live)
            if playing.size == 0:
                break
            if 2 * playing.size <= branch.size:
                stopped = np.flatnonzero(~live)
                worth[rows[stopped]] = self.worth(branch)[stopped]
                branch, rows, start_turn = take_games(branch, playing), rows[playing], start_turn[playing]
                live = np.ones(branch.size, dtype=bool)
            self._rollout_step(branch, live, bots)
            taken += 1
        worth[rows] = self.worth(branch)
        return worth

    def _rollout_step(self, branch: BatchedState, live: np.ndarray, bots: list[BatchedBot]) -> None:
        """Every ``live`` game takes one decision; the others sit it out."""
        replies = np.full(branch.size, -1, dtype=np.int64)
        for seat in np.unique(branch.to_move[live]):
            movers = live & (branch.to_move == seat)
            replies[movers] = bots[int(seat)].act(branch, movers)[movers]
        frozen = ~live & ~branch.done
        if frozen.any():
            branch.done |= frozen  # games at the horizon sit out the step
            self.engine.step(branch, replies)
            branch.done &= ~frozen
        else:
            self.engine.step(branch, replies)
        branch.decisions[live] += 1
