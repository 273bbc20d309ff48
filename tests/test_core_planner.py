"""The shared rollout planner (sims.core.planner) on the toy dice race."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from sims.core.choice import ScoredBot
from sims.core.engine import take_games
from sims.core.planner import RolloutPlanner, reshuffle_unseen
from sims.core.rng import game_seeds, uniforms
from tests.toy_game import LEAP, ROLL, STEP, RaceEngine, RaceState, load


class ProgressGreedy(ScoredBot):
    """Furthest landing space: scored_actions in the shape the planner expects (flat, by game)."""

    def __init__(self, engine: RaceEngine, seat: int, weights=None, stream: str | None = None):
        super().__init__(engine, seat, weights)
        self.stream = stream or f"bot/{seat}"

    def scored_actions(self, state: RaceState, active: np.ndarray):
        engine = self.engine
        mask = engine.legal_mask(state) & (active & ~state.done)[:, None]
        games, actions = np.nonzero(mask)
        here = state.position[games, state.to_move[games]].astype(np.float64)
        value = here + engine._moves(state)[games, actions]
        noise = uniforms(state.seeds, self.stream, state.decisions, engine.num_actions)[games, actions]
        return games, actions, value, noise


class PositionPlanner(RolloutPlanner, ProgressGreedy):
    """Worth: my own position once every other seat has replied (my next turn)."""

    rollout_bot_class = ProgressGreedy
    default_candidates = 3
    hidden_calls = 0

    def hide_unseen(self, branch):
        self.hidden_calls += 1

    def at_horizon(self, branch, start_turn):
        return (branch.to_move == self.seat) & (branch.turn > start_turn)

    def worth(self, branch):
        return branch.position[:, self.seat].astype(np.float64)


@pytest.fixture(scope="module")
def engine() -> RaceEngine:
    config = load(overrides=["race.goal=20", "race.die_sides=6", "race.bump=true"])
    return RaceEngine(config, 2)


def trap_position(engine: RaceEngine) -> RaceState:
    """Seat 0 on 3 with a 2, seat 1 on 5 and about to roll a 1.

    Greedy leaps to 7, where the opponent's leap (2 x 1) lands and sends it
    home; rolling to 5 sends the opponent home instead and keeps 5.
    """
    turn = 10
    seeds = game_seeds(0, np.arange(200))
    next_roll = engine._roll(seeds, np.full(seeds.size, turn + 1, dtype=np.int32))
    seed = seeds[np.flatnonzero(next_roll == 1)[0]]
    state = engine.init(np.array([seed], dtype=np.uint64))
    state.position[0] = [3, 5]
    state.die[0] = 2
    state.turn[0] = turn
    return state


def test_greedy_walks_into_the_trap(engine):
    state = trap_position(engine)
    assert ProgressGreedy(engine, 0).act(state, np.array([True]))[0] == LEAP


def test_planner_sees_the_reply_and_avoids_the_trap(engine):
    state = trap_position(engine)
    before = dataclasses.asdict(take_games(state, np.array([0])))
    planner = PositionPlanner(engine, 0)
    assert planner.act(state, np.array([True]))[0] == ROLL
    assert planner.hidden_calls == 1
    after = dataclasses.asdict(state)
    assert all(np.array_equal(before[name], after[name]) for name in before if isinstance(before[name], np.ndarray))


def test_a_rollout_of_no_decisions_values_the_candidate_alone(engine):
    state = trap_position(engine)
    planner = PositionPlanner(engine, 0, {"depth": 0})
    assert planner.act(state, np.array([True]))[0] == LEAP


def test_one_candidate_is_the_greedy_choice(engine):
    state = trap_position(engine)
    assert PositionPlanner(engine, 0, {"candidates": 1}).act(state, np.array([True]))[0] == LEAP
    assert PositionPlanner(engine, 0, {"candidates": 2}).act(state, np.array([True]))[0] == ROLL  # leap, roll


def test_choices_do_not_depend_on_the_batch(engine):
    state = engine.init(game_seeds(3, np.arange(64)))
    for step in range(5):  # spread the games out
        engine.step(state, ProgressGreedy(engine, 0).act(state, ~state.done) if step % 2 == 0
                    else np.full(state.size, STEP))
        state.decisions += 1
    movers = state.to_move == 0
    together = PositionPlanner(engine, 0).act(state, movers)
    for game in range(state.size):
        alone = PositionPlanner(engine, 0).act(take_games(state, np.array([game])), movers[game:game + 1])
        assert alone[0] == together[game]
    assert (together[movers] >= 0).all() and (together[~movers] == -1).all()


def test_reshuffle_unseen_keeps_the_seen_part_and_permutes_the_rest():
    items = np.tile(np.arange(10, dtype=np.int8), (50, 1))
    first_unseen = np.arange(50) % 11
    seeds = game_seeds(5, np.arange(50))
    shuffled = reshuffle_unseen(items, first_unseen, seeds, "plan/0/bag", np.zeros(50, dtype=np.int64))
    moved = False
    for row, start in enumerate(first_unseen):
        assert (shuffled[row, :start] == items[row, :start]).all()
        assert sorted(shuffled[row, start:]) == sorted(items[row, start:])
        moved |= bool((shuffled[row, start:] != items[row, start:]).any())
    assert moved
    again = reshuffle_unseen(items, first_unseen, seeds, "plan/0/bag", np.zeros(50, dtype=np.int64))
    assert (again == shuffled).all()  # a pure function of (seed, purpose, counter)
    assert reshuffle_unseen(items[:, :0], first_unseen, seeds, "x", np.zeros(50, dtype=np.int64)).shape == (50, 0)
