"""Vorex greedy kernel, setup: the starting tile laid last ends the mover's setup and its light stump takes the
setup flower; the kernel values that without playing it (``bot_kernels._setup_flower_change``)."""

from __future__ import annotations

import numpy as np
import pytest

from sims.core.planner import branch_games
from sims.core.rng import game_seeds, uniforms_at
from sims.vorex import bots, config
from sims.vorex.rules import SETUP, VorexEngine

CONFIG = config.load()
GREEDY = CONFIG.bot_weights["greedy"]
# every green objective under B1, every brown one under G4 (the green objectives' flower terms are apart from
# the brown ones')
OBJECTIVES = [(green, "B1") for green in config.GREEN] + [("G4", brown) for brown in config.BROWN if brown != "B1"]


def _starting_tile_last(engine: VorexEngine, state, rows: np.ndarray, draw: int) -> np.ndarray:
    """A random legal action of each game in ``rows``, a placement of a setup tile other than the starting one
    (slot 0) where there is one, so that the starting tile is laid last."""
    mask = engine.legal_mask(state)[rows]
    first = engine.offsets["place"]
    placements = engine.board.around.shape[1]
    later = np.zeros_like(mask)
    later[:, first + placements:first + 3 * placements] = True
    mask = np.where((mask & later).any(axis=1, keepdims=True), mask & later, mask)
    u = uniforms_at(state.seeds[rows], "test/setup", draw, np.zeros(rows.size, np.int64))
    counts = mask.sum(axis=1)
    pick = np.minimum((u * counts).astype(np.int64), counts - 1)
    return np.array([np.flatnonzero(row)[k] for row, k in zip(mask, pick)])


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_setup_values_equal_the_played_setup(players):
    """Setup decisions of random deals under each objective: every legal action's value (every=True) equals the
    evaluation after playing it on a copy, with the starting tile laid last (its placements end the setup and
    the flower lands on them, next to other seats' flowers and ruins), and the one-call choice is the best."""
    engine = VorexEngine(CONFIG, players)
    last = 0
    for green, brown in OBJECTIVES:
        state = engine.init(game_seeds(players * 100 + 7, np.arange(8)))
        state.green[:] = config.GREEN.index(green)
        state.brown[:] = config.BROWN.index(brown)
        draw = 0
        while (live := ~state.done & (state.phase == SETUP)).any():
            for seat in range(engine.players):
                movers = live & (state.to_move == seat)
                if not movers.any():
                    continue
                greedy = bots.GreedyBot(engine, seat, GREEDY)
                games, acts, value, noise = greedy.scored_actions(state, movers)
                after = branch_games(state, games)
                seats = after.to_move.astype(np.int64)
                engine.step(after, acts)
                assert np.array_equal(value, bots.evaluate(engine, after, seats, GREEDY)), (green, brown)
                chosen = greedy.act(state, movers)
                for g in np.flatnonzero(movers):
                    mine = games == g
                    best = np.lexsort((-acts[mine], noise[mine], value[mine]))[-1]
                    assert chosen[g] == acts[mine][best]
                only_start = (state.setup_tiles[games, seats, 1:] < 0).all(axis=1) & \
                    (state.setup_tiles[games, seats, 0] >= 0)
                last += int(only_start.sum())
            rows = np.flatnonzero(live)
            actions = np.full(state.size, -1)
            actions[rows] = _starting_tile_last(engine, state, rows, draw)
            draw += 1
            engine.step(state, actions)
            state.decisions[rows] += 1
    assert last >= 1000, last
