"""Vorex's compiled step (sims/vorex/turn_kernels.py): the score lines kept where the map changes."""

from __future__ import annotations

import numpy as np
import pytest

from sims.core.bots import RandomBot
from sims.core.rng import game_seeds
from sims.vorex import config
from sims.vorex.config import BROWN, GREEN
from sims.vorex.kernels import POINT_COLUMNS
from sims.vorex.rules import VorexEngine

CONFIG = config.load()
PAIRS = [(green, brown) for green in range(-1, len(GREEN)) for brown in range(len(BROWN))]  # -1: no green


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_kept_score_lines_and_logged_points_match_a_full_count(players):
    """Random play with every objective pair: after every step the kept lines (``state.scores``, updated from
    the changed hexes only) equal the points counted over the whole map, and the step logged the deciding seat's
    change of each line."""
    engine = VorexEngine(CONFIG, players)
    games = 2 * len(PAIRS)
    state = engine.init(game_seeds(players, np.arange(games)).astype(np.uint64))
    state.green[:] = [PAIRS[g % len(PAIRS)][0] for g in range(games)]
    state.brown[:] = [PAIRS[g % len(PAIRS)][1] for g in range(games)]
    engine.forget_cache(state)
    bot = RandomBot(engine, 0)
    rows = np.arange(games)
    steps = 0
    while not state.done.all():
        running = ~state.done
        seats = state.to_move.astype(np.int64)
        before = engine.score_lines(state, rows)
        actions = np.where(running, bot.act(state, running), -1)
        engine.step(state, actions)
        state.decisions += running
        after = engine.score_lines(state, rows)
        np.testing.assert_array_equal(state.scores, after)
        lines = [state.events.stacked(name)[:, -1].astype(np.int64) for name in POINT_COLUMNS]
        change = (after - before)[rows, :, seats]
        for c in range(len(POINT_COLUMNS)):
            np.testing.assert_array_equal(np.where(running, lines[c], 0), np.where(running, change[:, c], 0))
        np.testing.assert_array_equal(np.where(running, state.events.stacked("points")[:, -1], 0),
                                      np.where(running, change.sum(axis=1), 0))
        steps += 1
    assert steps > 20
    assert (np.abs(state.scores[:, 2:]).sum(axis=(1, 2)) > 0).mean() > 0.5  # the objectives did score
