"""Vora bots: their choices, their agreement with the plain bots, their strength."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from sims.core.engine import take_games
from sims.core.play import play_batch, play_reference
from sims.core.rng import game_seeds
from sims.vora import bots
from sims.vora import config as vora_config
from sims.vora.rules import VoraEngine
from tests.test_vora_rules import CASCADE, position

KINDS = {"random": bots.RandomBot, "greedy": bots.GreedyBot, "planner": bots.PlannerBot}


@pytest.fixture(scope="module")
def config():
    return vora_config.load()


def make(kind: str, engine, seat: int):
    return KINDS[kind](engine, seat)


def one_ply_values(engine, state) -> dict[int, float]:
    """Every legal action's greedy value, by stepping a copy of the game (the definition, one action at a time)."""
    geo = engine.geo
    me = int(state.to_move[0])
    before = geo.scores(state.farms[0].astype(np.int64))
    values = {}
    for action in np.nonzero(engine.legal_mask(state)[0])[0]:
        branch = take_games(state, np.array([0]))
        engine.step(branch, np.array([action]))
        change = geo.scores(branch.farms[0].astype(np.int64)) - before
        values[int(action)] = change[me] - max(change[s] for s in range(engine.players) if s != me)
    return values


def test_greedy_takes_the_action_of_highest_one_ply_value():
    engine, state = position(2, CASCADE, {0: "dd", 1: "c"}, bag="lllllll")
    values = one_ply_values(engine, state)
    action = make("greedy", engine, 0).act(state, np.array([True]))[0]
    assert values[int(action)] == max(values.values()) > 0


def test_planner_takes_an_immediate_gain():
    engine, state = position(2, CASCADE, {0: "dd", 1: "c"}, bag="pcwldmsg~" * 8)
    action = make("planner", engine, 0).act(state, np.array([True]))[0]
    engine.step(state, np.array([action]))
    assert state.stats[0, 0, 0] > 0  # collected


@pytest.mark.parametrize("kind", ["random", "greedy", "planner"])
def test_bots_do_not_change_the_state(kind, config):
    engine = VoraEngine(config, 3)
    state, _ = play_batch(engine, [make("random", engine, s) for s in range(3)], game_seeds(4, np.arange(8)), 5)
    state.done[:] = False
    before = copy.deepcopy(state)
    for seat in range(3):
        make(kind, engine, seat).act(state, ~state.done & (state.to_move == seat))
    for name, value in vars(before).items():
        if isinstance(value, np.ndarray):
            assert np.array_equal(value, getattr(state, name)), name


@pytest.mark.parametrize("players", [2, 3, 4])
def test_bots_choose_legal_actions_in_every_phase(players, config):
    engine = VoraEngine(config, players)
    lineup = [make(("greedy", "planner", "random", "greedy")[s], engine, s) for s in range(players)]
    state = engine.init(game_seeds(8, np.arange(6)))
    phases = set()
    for _ in range(60):
        active = ~state.done
        if not active.any():
            break
        mask = engine.legal_mask(state)
        actions = np.full(state.size, -1)
        for seat in range(players):
            movers = active & (state.to_move == seat)
            actions[movers] = lineup[seat].act(state, movers)[movers]
        rows = np.nonzero(active)[0]
        assert mask[rows, actions[rows]].all()
        phases |= set(state.phase[rows].tolist())
        engine.step(state, actions)
        state.decisions[active] += 1
    assert 0 in phases


@pytest.mark.parametrize("kinds", [("random", "greedy"), ("greedy", "random", "greedy"),
                                   ("greedy", "greedy", "random", "greedy")])
def test_batched_and_plain_bots_play_the_same_games(kinds, config):
    from sims.vora import GAME

    players = len(kinds)
    seeds = game_seeds(21, np.arange(6))
    engine = VoraEngine(config, players)
    state, _ = play_batch(engine, [make(k, engine, s) for s, k in enumerate(kinds)], seeds, config.max_turns)
    for i, seed in enumerate(seeds):
        plain = [GAME.bots[k].reference(s, {}) for s, k in enumerate(kinds)]
        game = play_reference(GAME.reference(config, players, int(seed)), plain, int(seed), config.max_turns)
        assert game.snapshot() == engine.snapshot(state, i)


def head_to_head(config, first: str, second: str, deals: int) -> float:
    """Share of first places (a shared one split) ``first`` takes against ``second``, seats rotated."""
    engine = VoraEngine(config, 2)
    seeds = game_seeds(99, np.arange(deals))
    points = 0.0
    for seat in (0, 1):
        lineup = [make(second, engine, s) for s in (0, 1)]
        lineup[seat] = make(first, engine, seat)
        state, _ = play_batch(engine, lineup, seeds, config.max_turns)
        rank = engine.results(state).rank
        firsts = np.maximum((rank == 1).sum(axis=1), 1)
        points += np.where(rank[:, seat] == 1, 1.0 / firsts, 0.0).sum()
    return points / (2 * deals)


def test_greedy_beats_random(config):
    assert head_to_head(config, "greedy", "random", 100) >= 0.7


def test_planner_beats_greedy(config):
    assert head_to_head(config, "planner", "greedy", 100) >= 0.55


def mid_game(config, players: int, decisions: int, deals: int = 24):
    """A batch of games after ``decisions`` random decisions (some finished, phases mixed)."""
    engine = VoraEngine(config, players)
    state = engine.init(game_seeds(11, np.arange(deals)))
    random = bots.RandomBot(engine, 0)
    for _ in range(decisions):
        live = ~state.done
        engine.step(state, random.act(state, live))
        state.decisions[live] += 1
    return engine, state


@pytest.mark.parametrize("players", [2, 4])
def test_greedy_kernel_choice_is_the_best_of_its_scored_actions(players, config):
    """One kernel call per decision chooses what scoring every action and taking the best (value, then noise)
    chooses."""
    from sims.core.choice import ScoredBot

    engine, state = mid_game(config, players, 15)
    active = np.ones(state.size, dtype=bool)
    for seat in range(players):
        greedy = bots.GreedyBot(engine, seat)
        movers = active & (state.to_move == seat)
        assert np.array_equal(greedy.act(state, movers), ScoredBot.act(greedy, state, movers))


def test_planner_kernel_rollouts_equal_the_shared_rollouts(config):
    """The compiled rollouts value every branch as the shared :class:`RolloutPlanner` loop does."""
    from sims.core.planner import RolloutPlanner, branch_games

    engine, state = mid_game(config, 3, 20)
    planner = bots.PlannerBot(engine, 1)
    start = state.turn.astype(np.int64)
    compiled, shared = branch_games(state, np.arange(state.size)), branch_games(state, np.arange(state.size))
    worth = planner.roll_out(compiled, start)
    assert np.array_equal(worth, RolloutPlanner.roll_out(planner, shared, start))
    assert (compiled.decisions > state.decisions).any()
