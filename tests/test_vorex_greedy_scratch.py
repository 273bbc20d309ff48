"""Vorex greedy kernel: one scratch kept between calls (as the planner's rollouts keep it) values every action as
a new scratch does."""

from __future__ import annotations

import numpy as np
import pytest

from sims.core.bots import RandomBot
from sims.core.rng import game_seeds
from sims.vorex import bot_kernels, bots, config
from sims.vorex.rules import VorexEngine

CONFIG = config.load()
GREEDY = CONFIG.bot_weights["greedy"]


def random_step(engine: VorexEngine, state, movers: list[RandomBot]) -> None:
    """One step of every running game, each mover's random action."""
    actions = np.full(state.size, -1)
    for seat, bot in enumerate(movers):
        active = ~state.done & (state.to_move == seat)
        if active.any():
            actions[active] = bot.act(state, active)[active]
    live = ~state.done
    engine.step(state, actions)
    state.decisions[live] += 1


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_a_kept_scratch_values_as_a_new_one(players):
    """Random games, setup included: at every decision the values (every action) and the choice from one scratch
    used for all calls equal those from a new scratch per call. The scratch's stamps mark which cached grid words
    belong to the current decision; a kept scratch whose stamps restarted would read stale words."""
    engine = VorexEngine(CONFIG, players)
    state = engine.init(game_seeds(83, np.arange(3)))
    board = engine.board
    kept = bot_kernels.greedy_scratch(state.tile, state.part, state.kind, state.flower, state.group, state.green,
                                      state.brown, state.resources, state.tiles_on_map, state.settled,
                                      engine.tile_value, board.around, board.around_touches, engine.place_tables)
    movers = [RandomBot(engine, seat) for seat in range(engine.players)]
    checked = 0
    while not state.done.all():
        rows = np.nonzero(~state.done)[0]
        legal = engine.legal_blocks(state, rows, packed=True)
        for every in (True, False):
            new = bots.action_values(engine, state, rows, legal, GREEDY, "bot/0", every)
            reused = bots.action_values(engine, state, rows, legal, GREEDY, "bot/0", every, kept)
            for a, b in zip(new, reused):
                assert np.array_equal(a, b)
        checked += rows.size
        random_step(engine, state, movers)
    assert checked > 50
