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
from tests.test_vorex_rules import last_logged, ruin_ring_position

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


def test_a_ruin_flower_scores_for_both_seats_next_to_it():
    """Seat 0 fills the last stump around a ruin and takes it (4 flowers to 2): with G4 and B2 its step logs 2
    flowers and 2 brown points (the ruin's flower has 2 of seat 1's next to it), and seat 1's brown line gains 4
    (both its flowers now touch 2 of seat 0's); G4 is unchanged (each seat already touched the ruin)."""
    engine, state, x, ring = ruin_ring_position()
    state.green[0], state.brown[0] = GREEN.index("G4"), BROWN.index("B2")
    engine.forget_cache(state)
    np.testing.assert_array_equal(state.scores[0], [[3, 2], [0, 0], [1, 1], [0, 0]])
    engine.step(state, np.array([CONFIG.encode_bloom(ring[5])]))
    assert state.flower[0, x] == 0
    np.testing.assert_array_equal(state.scores[0], [[5, 2], [0, 0], [1, 1], [2, 4]])
    np.testing.assert_array_equal(state.scores, engine.score_lines(state, np.arange(1)))
    logged = [last_logged(state, name) for name in POINT_COLUMNS + ("points",)]
    assert logged == [2, 0, 0, 2, 4]
