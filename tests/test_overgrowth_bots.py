"""Overgrowth bots: their choices, their agreement with the plain bots, their strength."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from sims.core.bots import RandomBot
from sims.core.play import play_batch, play_reference
from sims.core.rng import game_seeds
from sims.overgrowth import GAME, bots, reference, reference_bots
from sims.overgrowth.rules import OvergrowthEngine
from tests.test_overgrowth_reference import SMALL, position
from tests.test_overgrowth_rules import batched


@pytest.fixture(scope="module")
def config():
    return GAME.load_config()


def make(kind: str, engine, seat: int, config):
    factory = {"random": RandomBot, "greedy": bots.GreedyBot, "planner": bots.PlannerBot}[kind]
    return factory(engine, seat, config.bot_weights.get(kind, {}))


WIN_IN_ONE = """
        . . x . .
        . . x o .
        . o x . .
        o . x o .
        . . : . .
    """


def win_in_one():
    """A position (SMALL board, markers (4, 0)) where seat 0 wins with one placement."""
    config = GAME.load_config(overrides=SMALL)
    return config, position(config, WIN_IN_ONE, markers=(4, 0))


@pytest.mark.parametrize("kind", ["greedy", "planner"])
def test_bot_takes_an_immediate_win(kind):
    config, game = win_in_one()
    engine, state = batched(game)
    action = make(kind, engine, 0, config).act(state, np.array([True]))[0]
    engine.step(state, np.array([action]))
    assert engine.end_reasons[state.end[0]] == "connection"


@pytest.mark.parametrize("kind", ["random", "greedy", "planner"])
def test_bots_do_not_change_the_state(kind, config):
    engine = OvergrowthEngine(config)
    state, _ = play_batch(engine, [make("random", engine, s, config) for s in (0, 1)], game_seeds(4, np.arange(8)), 6)
    state.done[:] = False
    before = copy.deepcopy(state)
    make(kind, engine, int(state.to_move[0]), config).act(state, ~state.done)
    for name, value in vars(before).items():
        if isinstance(value, np.ndarray):
            assert np.array_equal(value, getattr(state, name)), name


@pytest.mark.parametrize("kinds", [("random", "random"), ("greedy", "random"), ("random", "greedy")])
def test_batched_and_plain_bots_play_the_same_games(kinds, config):
    seeds = game_seeds(21, np.arange(12))
    engine = OvergrowthEngine(config)
    state, _ = play_batch(engine, [make(k, engine, s, config) for s, k in enumerate(kinds)], seeds, config.max_turns)
    plain = {"random": reference_bots.ReferenceRandomBot, "greedy": reference_bots.ReferenceGreedyBot}
    for i, seed in enumerate(seeds):
        players = [plain[k](s, config.bot_weights.get(k, {})) for s, k in enumerate(kinds)]
        game = play_reference(reference.OvergrowthGame(config), players, int(seed), config.max_turns)
        assert game.snapshot() == engine.snapshot(state, i)


def head_to_head(config, first: str, second: str, deals: int) -> float:
    """Share of points (a tie is half) ``first`` takes against ``second``, seats rotated."""
    engine = OvergrowthEngine(config)
    seeds = game_seeds(99, np.arange(deals))
    points = 0.0
    for seat in (0, 1):
        lineup = [None, None]
        lineup[seat] = make(first, engine, seat, config)
        lineup[1 - seat] = make(second, engine, 1 - seat, config)
        state, _ = play_batch(engine, lineup, seeds, config.max_turns)
        rank = engine.results(state).rank
        won = rank[:, seat] == 1
        tied = won & (rank[:, 1 - seat] == 1)
        points += won.sum() - 0.5 * tied.sum()
    return points / (2 * deals)


def test_greedy_beats_random(config):
    assert head_to_head(config, "greedy", "random", 100) >= 0.9


def test_planner_beats_greedy(config):
    assert head_to_head(config, "planner", "greedy", 100) >= 0.6
