"""Reforest bots, batched: greedy (one ply to the end of the turn) and planner (greedy rollouts); the random bot
is the shared :class:`sims.core.bots.RandomBot` (through :meth:`ReforestEngine.choose_uniform`).

The greedy evaluation of a position for a seat (``w`` the bot's weights)::

    eval(seat) = w.points * score + w.hand_card * hand + w.energy * energy
                 + w.visitor_goal * goals - w.elevation * lack

``score`` the seat's score if the game ended now, ``hand`` its cards in hand,
``energy`` its stored energy cards, ``goals`` the visitors now contested
(carried ones and this round's) whose goal the seat leads alone
(solitaire: whose threshold of this round it meets), ``lack`` over the rows
the plants the smaller stacks lack to match the row's largest stack. The
seat to move adds ``w.hand_card * 0.05 * (the sum of the values of the cards
it holds)``, so it pays and discards its least valuable cards first.

An action is valued by applying it to a copy and finishing the turn with the
lowest-numbered legal action at every further decision of the seat (pay from
hand in species order, take from the lowest nursery slot, use effects, ...),
then ``eval(me) - max over opponents eval(opponent)``. Everything it reads
is public or the mover's own (hands are read as counts; drawn cards only
change counts), so the value never depends on the deck order. The highest
value wins; equal values go to the highest noise
``uniforms_at(seed, "bot/<seat>", decisions, action)``. A decision with one
legal action takes it without evaluating.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from sims.core.choice import top_per_group
from sims.core.engine import BatchedBot
from sims.core.planner import WIN_BONUS, Candidates, RolloutPlanner
from sims.core.rng import purpose_key, uniforms
from sims.reforest import bot_kernels, kernels
from sims.reforest.bot_kernels import WEIGHT_NAMES
from sims.reforest.config import DEFAULT_WEIGHTS, HAND_VALUE_SHARE, SPACES
from sims.reforest.rules import ReforestEngine, ReforestState

NO_SAMPLES = np.zeros(0, dtype=np.uint64), np.zeros((0, 0), dtype=np.uint64)  # greedy: no rollout keys


def finish_turn(engine: ReforestEngine, branch: ReforestState, start_turn: np.ndarray) -> None:
    """Play the lowest-numbered legal action until each game's turn ``start_turn`` is over."""
    engine.finish_turns(branch, np.arange(branch.size), start_turn)


def evaluate(engine: ReforestEngine, state: ReforestState, me: np.ndarray, weights: Mapping[str, float]) -> np.ndarray:
    """float64 ``[n]``: ``eval(me) - max over opponents eval(opponent)`` of each game (module docstring)."""
    weight_values = np.array([weights[name] for name in WEIGHT_NAMES], dtype=np.float64)
    arrays, out = engine.arrays(state), np.empty(state.size)
    bot_kernels.evaluate(arrays, engine.tables, np.asarray(me, dtype=np.int64), weight_values, HAND_VALUE_SHARE,
                         bot_kernels.evaluation_buffers(arrays), out)
    return out


class GreedyBot(BatchedBot):
    """One ply: every legal action applied to a copy, the turn finished, the position valued (module docstring)."""

    engine: ReforestEngine

    def __init__(self, engine: ReforestEngine, seat: int, weights: Mapping[str, float] | None = None,
                 stream: str | None = None):
        super().__init__(engine, seat, weights)
        for name, value in DEFAULT_WEIGHTS.items():
            self.weights.setdefault(name, value)
        self.stream = stream or f"bot/{seat}"
        self.purpose = purpose_key(self.stream)
        self.weight_values = np.array([self.weights[name] for name in WEIGHT_NAMES], dtype=np.float64)
        self._scratch: kernels.Arrays | None = None  # a one-game copy the kernel plays candidates on
        self._buffers: tuple[tuple[np.ndarray, ...], ...] | None = None

    def greedy_choices(self, state: ReforestState, rows: np.ndarray, keep_scores: bool = False
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``chosen [R]``, this bot's action in each game of ``rows``, and, with ``keep_scores``, the flat
        ``games, actions, value, noise`` of every action it scored (games with one legal action are not scored)."""
        engine = self.engine
        chosen = np.empty(rows.size, dtype=np.int64)
        room = rows.size * (engine.config.num_species * SPACES + 2) if keep_scores else 0
        games, actions = np.empty(room, dtype=np.int64), np.empty(room, dtype=np.int64)
        value, noise = np.empty(room), np.empty(room)
        plan = np.zeros(3)  # no candidates: greedy
        scored = bot_kernels.choices(engine.arrays(state), self.scratch(state), self.scratch(state), engine.tables,
                                     state.seeds, rows.astype(np.int64), self.weight_values, HAND_VALUE_SHARE,
                                     self.purpose, plan, NO_SAMPLES[0], NO_SAMPLES[1], self.seat, WIN_BONUS, chosen, games,
                                     actions, value, noise, *self.buffers(state))
        return chosen, games[:scored], actions[:scored], value[:scored], noise[:scored]

    def act(self, state: ReforestState, active: np.ndarray) -> np.ndarray:
        chosen = np.full(state.size, -1, dtype=np.int64)
        rows = np.flatnonzero(active & ~state.done)
        if rows.size:
            chosen[rows] = self.greedy_choices(state, rows)[0]
        return chosen

    def scored_actions(self, state: ReforestState, active: np.ndarray) -> tuple[np.ndarray, ...]:
        """Flat ``games, actions, value, noise`` of every action scored in the active games, by game (a game
        with one legal action is not scored)."""
        return self.greedy_choices(state, np.flatnonzero(active & ~state.done), keep_scores=True)[1:]

    def buffers(self, state: ReforestState) -> tuple[tuple[np.ndarray, ...], ...]:
        """The kernels' scratch (made once): :func:`bot_kernels.buffers`, :func:`bot_kernels.evaluation_buffers`,
        the planner's worth and kept candidates (room for one game's legal actions) and
        :func:`bot_kernels.deck_buffers`."""
        if self._buffers is None:
            arrays, room = self.scratch(state), self.engine.config.num_species * SPACES + 2
            self._buffers = (bot_kernels.buffers(arrays), bot_kernels.evaluation_buffers(arrays), np.empty(room),
                             np.empty(room, dtype=np.int64), bot_kernels.deck_buffers(arrays))
        return self._buffers

    def scratch(self, state: ReforestState) -> kernels.Arrays:
        """A one-game copy (made once) the kernels play candidates on."""
        if self._scratch is None:
            self._scratch = self.engine.arrays(self.engine.branch(state, np.zeros(1, dtype=np.int64)))
        return self._scratch


# the planner weights only the shared Python plan reads (the compiled one: candidates, depth, samples, prune)
SHARED_PLAN_WEIGHTS = ("replies", "iterations", "halving", "budget", "reply_planner", "turns", "explore")


class PlannerBot(RolloutPlanner, GreedyBot):
    """Rollouts: the best ``candidates`` greedy actions, each played on by greedy bots for ``depth`` turns.

    A candidate's copy (already at the end of its turn) gets its deck
    reshuffled with the planner's own stream (``plan/<seat>/deck``), so the
    rollout never reads the real deck order; then every seat plays greedy
    with stream ``plan/<my seat>/<seat>`` for ``depth`` more turns. A
    candidate is worth the greedy evaluation for me at the rollout's end (a
    finished game: the result first); ties go to the greedy value, then the noise.
    Without ``replies`` the whole plan of a game runs in one kernel
    (:func:`bot_kernels.choices`), which chooses what the shared plan of
    :class:`RolloutPlanner` chooses.
    """

    default_candidates = 6
    default_depth = 2
    rollout_bot_class = GreedyBot
    _branch: kernels.Arrays | None = None  # two games the compiled plan plays candidates and rollouts on
    _sample_keys: tuple[np.ndarray, np.ndarray] | None = None

    def act(self, state: ReforestState, active: np.ndarray) -> np.ndarray:
        """The plan of :class:`RolloutPlanner`, each game's in one kernel (:func:`bot_kernels.choices`); with a
        search weight the kernel does not know (:data:`SHARED_PLAN_WEIGHTS`), or a learned :attr:`horizon` value,
        the shared plan or tree search."""
        if self.horizon is not None or any(self.weight(name, 0) for name in SHARED_PLAN_WEIGHTS):
            return super().act(state, active)
        chosen = np.full(state.size, -1, dtype=np.int64)
        rows = np.flatnonzero(active & ~state.done)
        if rows.size == 0:
            return chosen
        if self._branch is None:
            self._branch = self.engine.arrays(self.engine.branch(state, np.zeros(2, dtype=np.int64)))
        prune = self.weight("prune", self.default_prune)
        plan = np.array([self.candidate_count, self.depth, np.nan if prune is None else prune], dtype=np.float64)
        deck_keys, rollout_keys = self.sample_keys()
        plans = np.empty(rows.size, dtype=np.int64)
        room = self.engine.config.num_species * SPACES + 2
        games, actions = np.empty(room, dtype=np.int64), np.empty(room, dtype=np.int64)
        bot_kernels.choices(self.engine.arrays(state), self._branch, self.scratch(state), self.engine.tables,
                            state.seeds, rows.astype(np.int64), self.weight_values, HAND_VALUE_SHARE, self.purpose,
                            plan, deck_keys, rollout_keys, self.seat, WIN_BONUS, plans, games, actions,
                            np.empty(room), np.empty(room), *self.buffers(state))
        chosen[rows] = plans
        return chosen

    def sample_keys(self) -> tuple[np.ndarray, np.ndarray]:
        """uint64 ``[samples]`` and ``[samples, players]``: the purpose keys of each sample's deck reshuffle and of
        its rollout seats' noise (:meth:`plan_stream`)."""
        if self._sample_keys is not None:
            return self._sample_keys
        decks, seats = [], []
        for self.sample in range(self.sample_count):
            decks.append(purpose_key(self.plan_stream("deck")))
            seats.append(self.rollout_keys())
        self.sample = 0
        self._sample_keys = np.array(decks, dtype=np.uint64), np.array(seats, dtype=np.uint64)
        return self._sample_keys

    def candidates(self, state: ReforestState, active: np.ndarray, chosen: np.ndarray) -> Candidates:
        rows = np.flatnonzero(active & ~state.done)
        # every scored game's choice in ``chosen`` is replaced by the plan's
        chosen[rows], games, actions, value, noise = self.greedy_choices(state, rows, keep_scores=True)
        if games.size == 0:
            return Candidates(games, actions, value, noise)
        # only the candidates the plan keeps are played out again (the same copies the greedy scoring made)
        keep = np.sort(top_per_group(games, value, noise, k=self.candidate_count))
        games, actions = games[keep], actions[keep]
        played = self.engine.branch(state, games)
        self.engine.step(played, actions)
        played.decisions += 1
        finish_turn(self.engine, played, state.turn[games])
        return Candidates(games, actions, value[keep], noise[keep], played)

    def hide_unseen(self, branch: ReforestState) -> None:
        self._reshuffle_deck(branch)

    def at_horizon(self, branch: ReforestState, start_turn: np.ndarray) -> np.ndarray:
        return branch.turn >= start_turn + 1 + self.depth  # the candidate's own turn, then ``depth`` more

    def max_rollout_decisions(self) -> None:
        return None

    def roll_out(self, branch: ReforestState, start_turn: np.ndarray) -> np.ndarray:
        """The shared rollout (greedy bots in every seat until :meth:`at_horizon`, then :meth:`worth`),
        every branch played to its horizon in one kernel call."""
        horizon = (start_turn + 1 + self.depth).astype(np.int64)
        worth = np.empty(branch.size)
        lists, work = self.buffers(branch)[:2]
        bot_kernels.greedy_rollouts(self.engine.arrays(branch), self.scratch(branch), self.engine.tables,
                                    branch.seeds, horizon, self.rollout_keys(), self.weight_values, HAND_VALUE_SHARE,
                                    self.seat, WIN_BONUS, lists, work, worth)
        return self.end_worth(branch, worth)

    def worth(self, branch: ReforestState) -> np.ndarray:
        me = np.full(branch.size, self.seat, dtype=np.int64)
        worth = evaluate(self.engine, branch, me, self.weights)
        if self.engine.players > 1:
            worth = worth + np.where(branch.done, np.sign(worth) * WIN_BONUS, 0.0)
        return worth

    def _reshuffle_deck(self, branch: ReforestState) -> None:
        cap = branch.deck.shape[1]
        keys = uniforms(branch.seeds, self.plan_stream("deck"), branch.decisions, cap)
        position = np.arange(cap)[None, :]
        left = (position >= branch.deck_top[:, None]) & (position < branch.deck_end[:, None])
        order = np.argsort(np.where(left, keys, np.where(position < branch.deck_top[:, None], -1.0, 2.0)),
                           axis=1, kind="stable")
        branch.deck = np.take_along_axis(branch.deck, order, axis=1)
