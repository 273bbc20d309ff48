"""Vorex greedy kernel, setup: the starting tile laid last ends the mover's setup and its light stump takes the
setup flower; the kernel values that without playing it (``bot_kernels._setup_flower_change``)."""

from __future__ import annotations

import numpy as np
import pytest

from sims.core.bots import RandomBot
from sims.core.planner import branch_games
from sims.core.rng import game_seeds, uniforms_at
from sims.vorex import bots, config
from sims.vorex.rules import ACTION, SETUP, VorexEngine
from tests.test_vorex_greedy_scratch import random_step

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
    the flower lands on them), and the one-call choice is the best."""
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


@pytest.mark.parametrize("players, green, brown", [(2, "G1", "B4"), (2, "G4", "B2"), (3, "G3", "B1"), (2, "G2", "B1"),
                                                   (2, "G5", "B3"), (2, "G4", "B5")])
def test_a_starting_tile_laid_on_a_played_map(players, green, brown):
    """Positions of random games with a starting tile no seat uses given back to the mover as its last setup tile:
    every placement ends the setup on a map full of flowers, groups and ruins, and each value equals the
    evaluation after playing it."""
    engine = VorexEngine(CONFIG, players)
    unused = CONFIG.starting_tiles[3]
    state = engine.init(game_seeds(31 + players, np.arange(12)))
    state.green[:] = config.GREEN.index(green)
    state.brown[:] = config.BROWN.index(brown)
    movers = [RandomBot(engine, seat) for seat in range(engine.players)]
    checked = 0
    while not state.done.all():
        live = ~state.done & (state.phase == ACTION) & (state.to_move == 0)
        if live.any() and state.decisions[live].max() % 3 == 0:
            rows = np.flatnonzero(live)
            probe = branch_games(state, rows)
            probe.phase[:] = SETUP
            probe.setup_tiles[:, 0] = -1
            probe.setup_tiles[:, 0, 0] = unused
            probe.light_hex[:, 0] = -1
            probe.flowers_left[:, 0] = 13  # no last flower: a solo game would end at it
            probe.cache_valid[:] = False
            greedy = bots.GreedyBot(engine, 0, GREEDY)
            games, acts, value, _ = greedy.scored_actions(probe, np.ones(probe.size, bool))
            after = branch_games(probe, games)
            engine.step(after, acts)
            assert np.array_equal(value, bots.evaluate(engine, after, np.zeros(games.size, np.int64), GREEDY))
            checked += games.size
        random_step(engine, state, movers)
    assert checked >= 500, checked
