"""Vorex bots, batched: greedy (one ply) and planner (greedy rollouts); the random bot is the contract's
(:class:`sims.core.bots.RandomBot`, through :meth:`VorexEngine.choose_uniform`).

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

from sims.core.choice import NO_ACTION, ScoredBot
from sims.core.planner import WIN_BONUS, RolloutPlanner, reshuffle_unseen
from sims.core.rng import purpose_key
from sims.vorex import bot_kernels, kernels
from sims.vorex.config import WEIGHT_NAMES
from sims.vorex.rules import ACTION, SETUP, WEED_BLOOM, WEED_EXPAND, VorexEngine, VorexState


def evaluate(engine: VorexEngine, state: VorexState, seats: np.ndarray, weights: Mapping[str, float]) -> np.ndarray:
    """float64 ``[n]``: the greedy evaluation of every game of ``state`` for seat ``seats[i]``."""
    return weigh(features(engine, state, seats), weights)


def features(engine: VorexEngine, state: VorexState, seats: np.ndarray, rows: np.ndarray | None = None
             ) -> dict[str, np.ndarray]:
    """The evaluation's features (int64 ``[n]`` each, :data:`WEIGHT_NAMES`) of games ``rows`` (default: all)
    for seat ``seats[i]``."""
    rows = np.arange(state.size) if rows is None else rows
    found = kernels.seat_features(np.asarray(rows, dtype=np.int64), np.asarray(seats, dtype=np.int64), state.tile,
                                  state.part, state.kind, state.flower, state.group, state.green, state.brown,
                                  state.resources, state.tiles_on_map, engine.board.neighbours, engine.tile_value,
                                  engine.tile_stumps, engine.solo)
    return {name: found[:, column] for column, name in enumerate(WEIGHT_NAMES)}


def weigh(found: Mapping[str, np.ndarray], weights: Mapping[str, float]) -> np.ndarray:
    """float64: the weighted sum of the features, term by term in :data:`WEIGHT_NAMES` order."""
    value = np.zeros(np.shape(found["score"]), dtype=np.float64)
    for name in WEIGHT_NAMES:
        value = value + float(weights.get(name, 0.0)) * found[name].astype(np.float64)
    return value


def weight_vector(weights: Mapping[str, float]) -> np.ndarray:
    """float64: the greedy weights in :data:`WEIGHT_NAMES` order (0 where missing)."""
    return np.array([float(weights.get(name, 0.0)) for name in WEIGHT_NAMES], dtype=np.float64)


def choice_codes(engine: VorexEngine) -> np.ndarray:
    """int64: what :func:`~sims.vorex.bot_kernels.greedy_choice` reads as ``codes`` (the first bloom and place
    actions, the draw and decline actions, the SETUP, WEED_EXPAND and WEED_BLOOM phases)."""
    off, config = engine.offsets, engine.config
    return np.array([off["bloom"], off["place"], config.draw_action, config.decline_action, SETUP, WEED_EXPAND,
                     WEED_BLOOM], dtype=np.int64)


def action_values(engine: VorexEngine, state: VorexState, rows: np.ndarray, legal: tuple[np.ndarray, ...],
                  weights: Mapping[str, float], stream: str, every: bool, scratch: tuple | None = None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The greedy values and noise of the legal actions ``legal`` (:meth:`VorexEngine.legal_blocks` of games
    ``rows``, packed) for the mover (:func:`~sims.vorex.bot_kernels.greedy_choice`): ``(games, actions, value, noise)``,
    every legal action by game then action (``every``) or the best one of each game. ``scratch``: the kernel's
    (:func:`~sims.vorex.bot_kernels.greedy_scratch`, kept between calls), default a new one."""
    board, config = engine.board, engine.config
    blooms, places, draw, decline = legal
    if scratch is None:
        scratch = bot_kernels.greedy_scratch(state.tile, state.part, state.kind, state.flower, state.group, state.green,
                                             state.brown, state.resources, state.tiles_on_map, state.settled,
                                             engine.tile_value, board.around, board.around_touches,
                                             engine.place_tables)
    index, actions, value, noise = bot_kernels.greedy_choice(
        rows, blooms, places, draw, decline, every, weight_vector(weights), state.seeds, purpose_key(stream),
        state.decisions, choice_codes(engine),
        state.tile, state.part, state.kind, state.flower, state.group, state.green, state.brown, state.resources,
        state.tiles_on_map, state.flowers_left, state.settled, state.production, state.phase, state.to_move,
        state.face_up, state.setup_tiles, state.light_hex, state.supply, board.neighbours, engine.tile_value,
        engine.tile_stumps, engine.solo, engine.tile_shape, engine.tile_kind, engine.tile_beetles, engine.tile_cost,
        config.setup_beetles, engine.arid_cells, board.around, board.around_touch, board.around_cell_bits,
        board.around_shift, board.around_touches, engine.place_tables, scratch)
    return rows[index], actions, value, noise


class GreedyBot(ScoredBot):
    """One ply: every legal action is valued by the evaluation of the position after it, for the mover
    (:func:`action_values`: one kernel call per decision, mostly without playing the action).

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
        rows = np.nonzero(active & ~state.done)[0]
        legal = self.engine.legal_blocks(state, rows, packed=True)
        return action_values(self.engine, state, rows, legal, self.weights, self.stream, every=True)

    def act(self, state: VorexState, active: np.ndarray) -> np.ndarray:
        """The choice of :meth:`scored_actions`; only each game's best action leaves the kernel."""
        chosen = np.full(state.size, NO_ACTION, dtype=np.int64)
        rows = np.nonzero(active & ~state.done)[0]
        if rows.size == 0:
            return chosen
        legal = self.engine.legal_blocks(state, rows, packed=True)
        games, actions, _, _ = action_values(self.engine, state, rows, legal, self.weights, self.stream, every=False)
        chosen[games] = actions
        return chosen


class PlannerBot(RolloutPlanner, GreedyBot):
    """Rollouts: the best ``candidates`` greedy actions, each played on by greedy bots.

    A rollout runs until this seat's next ACTION decision of a later turn, the
    end of the game, or ``depth`` decisions. The pile below the face-up tiles
    is reshuffled first with the planner's own stream (its order is hidden).
    Every seat in a rollout plays greedy with the stream ``plan/<my seat>/<seat>``.
    A candidate is worth my evaluation at the rollout's end (a finished game:
    winning first), ties go to the greedy value, then the noise.
    """

    default_candidates = 4
    default_depth = 8
    rollout_bot_class = GreedyBot
    turn_phase = ACTION

    def worth(self, branch: VorexState) -> np.ndarray:
        """My evaluation; a finished game's rank counts first."""
        worth = evaluate(self.engine, branch, np.full(branch.size, self.seat, dtype=np.int64), self.weights)
        if branch.done.any():
            ranks = self.engine.results(branch).rank[:, self.seat].astype(np.float64)
            worth = np.where(branch.done & (ranks > 0), worth - WIN_BONUS * ranks, worth)
        return worth

    compiled = True  # rollouts in one kernel (bot_kernels.roll_out); False: the shared Python loop

    def roll_out(self, branch: VorexState, start_turn: np.ndarray) -> np.ndarray:
        """The rollouts of :class:`RolloutPlanner`, every game played to its horizon in one compiled call
        (:func:`bot_kernels.roll_out`: the same greedy choices and steps, the same worth); the Python loop where
        the ``explore`` weight asks for random actions."""
        if not self.compiled or self.explore > 0:
            return super().roll_out(branch, start_turn)
        engine = self.engine
        board = engine.board
        worth = np.empty(branch.size, dtype=np.float64)
        limit = self.max_rollout_decisions()
        fields, stump = engine._no_log
        bot_kernels.roll_out(
            engine.arrays(branch), engine.tables,
            (engine.arid_cells, board.around_cell_bits, board.around_shift, board.around_touches),
            choice_codes(engine), branch.seeds, branch.decisions, weight_vector(self.weights), self.rollout_keys(),
            self.seat, np.asarray(start_turn, dtype=np.int64), self.horizon_turns,
            np.iinfo(np.int64).max if limit is None else limit, branch.steps, WIN_BONUS, fields, stump, worth)
        return self.end_worth(branch, worth)

    def hide_unseen(self, branch: VorexState) -> None:
        """Shuffle the tiles not yet revealed (which tiles remain is public, their order is not)."""
        branch.pile = reshuffle_unseen(branch.pile, branch.pile_pointer, branch.seeds, self.plan_stream("pile"),
                                       branch.decisions)
