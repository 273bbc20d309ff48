"""Vora bots: their choices, their agreement with the plain bots, their strength."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from sims.core.bots import RandomBot
from sims.core.engine import take_games
from sims.core.play import play_batch, play_reference
from sims.core.rng import game_seeds
from sims.vora import bots
from sims.vora import config as vora_config
from sims.vora.rules import VoraEngine
from tests.test_vora_rules import CASCADE, position

KINDS = {"random": RandomBot, "greedy": bots.GreedyBot, "planner": bots.PlannerBot}


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


@pytest.mark.parametrize("grass, declines", [("", True), ("gg", False)])
def test_greedy_declines_a_combo_only_when_every_take_loses_points(grass, declines):
    """The wolf eats the pig and makes w w w w (an EXTRA); the one cube to take is a grass: a first grass
    scores -1, a third +1."""
    engine, state = position(2, """
        g . . . .
        . . . . .
        . . . . .
        . . . . .
        . w w w p
    """, {0: "w" + grass, 1: "p"}, bag="g" * 30)
    config = engine.config
    engine.step(state, np.array([config.encode_wolf(1, 4)]))
    assert engine.snapshot(state, 0)["phase"] == "extra"
    action = make("greedy", engine, 0).act(state, np.array([True]))[0]
    assert action == (config.encode_decline() if declines else config.encode_pick(0))


def pushed_back(engine, state):
    """From QUIET: seat 0 pushes a sheep into column 0 from N (the duck falls to seat 1, S), then seat 1 pushes
    the duck back from S (the meadow is QUIET again, the sheep falls back to seat 0). Returns the push that
    would restore the meadow of seat 1's push-back: the sheep from N again."""
    config = engine.config
    sheep, duck = config.kind_names.index("sheep"), config.kind_names.index("duck")
    push, back = config.encode_push(sheep, 0, 0), config.encode_push(duck, 2, 0)
    engine.step(state, np.array([push]))
    state.decisions += 1
    greedy = make("greedy", engine, 1)
    _, actions, value, _ = greedy.scored_actions(state, np.array([True]))
    assert value[actions == back][0] == 2.0  # a single push-back is allowed (+2 one ply deep)
    engine.step(state, np.array([back]))
    state.decisions += 1
    return push


def test_greedy_pushes_back_once_but_not_back_again():
    """After seat 0's push and seat 1's push-back, seat 0's same push again would restore the meadow the
    push-back found: a loop, worth -inf, and neither seat 0's greedy nor its planner plays it."""
    from tests.test_vora_rules import QUIET

    engine, state = position(2, QUIET, {0: "sg", 1: "p"})
    again = pushed_back(engine, state)
    greedy = make("greedy", engine, 0)
    _, actions, value, _ = greedy.scored_actions(state, np.array([True]))
    assert value[actions == again][0] == -np.inf and np.isfinite(value[actions != again]).all()
    assert greedy.act(state, np.array([True]))[0] != again
    assert make("planner", engine, 0).act(state, np.array([True]))[0] != again
    forgetful = take_games(state, np.array([0]))
    forgetful.previous[:, 1:] = 0  # forgotten: the last push was no push-back, pushing again is allowed
    _, actions, value, _ = greedy.scored_actions(forgetful, np.array([True]))
    assert np.isfinite(value[actions == again][0])


def test_greedy_plays_the_loop_push_when_it_is_the_only_action(monkeypatch):
    """A ruled-out push is still valued (at -inf) when it is the only legal action, and so chosen."""
    from tests.test_vora_rules import QUIET

    engine, state = position(2, QUIET, {0: "sg", 1: "p"})
    again = pushed_back(engine, state)
    legal = engine.legal_groups(state, np.array([0]))
    only = np.zeros_like(legal)
    for group, bit in zip(*np.nonzero(np.unpackbits(legal.view(np.uint8), bitorder="little").reshape(
            legal.shape[1], 64))):
        flag = np.zeros_like(legal)
        flag[0, group] = np.uint64(1) << np.uint64(bit)
        if engine.expand(flag)[0, again]:
            only = flag
    monkeypatch.setattr(engine, "legal_groups", lambda state, rows: only)
    _, actions, value, _ = make("greedy", engine, 0).scored_actions(state, np.array([True]))
    assert actions.tolist() == [again] and value.tolist() == [-np.inf]


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
    random = RandomBot(engine, 0)
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


def test_planner_on_a_no_progress_streak_plays_its_greedy_choice(config):
    engine, state = mid_game(config, 2, 15)
    planner, greedy = bots.PlannerBot(engine, 0), bots.GreedyBot(engine, 0)
    movers = ~state.done & (state.to_move == 0)
    state.quiet[:] = np.where(np.arange(state.size) % 2, planner.quiet_turns, planner.quiet_turns - 1)
    stuck = movers & (state.quiet >= planner.quiet_turns)
    chosen = planner.act(state, movers)
    assert stuck.any() and np.array_equal(chosen[stuck], greedy.act(state, stuck)[stuck])
    planned = movers & ~stuck
    state.quiet[:] = 0
    assert np.array_equal(chosen[planned], planner.act(state, movers)[planned])


def test_the_engine_counts_turns_that_draw_nothing_from_the_bag():
    from tests.test_vora_rules import QUIET

    engine, state = position(2, QUIET, {0: "sg", 1: "p"}, bag="pcwldmsg~" * 3)
    config = engine.config
    engine.step(state, np.array([config.encode_push(config.kind_names.index("sheep"), 0, 0)]))
    assert state.quiet.tolist() == [1]  # nothing collected, nothing drawn
    engine.step(state, np.array([config.encode_pick_up(3)]))  # the ladybug on (0,3): a cube drawn
    assert state.quiet.tolist() == [0]


@pytest.mark.parametrize("weights", [{}, {"turns": 2}])
def test_planner_kernel_rollouts_equal_the_shared_rollouts(config, weights):
    """The compiled rollouts value every branch as the shared :class:`RolloutPlanner` loop does."""
    from sims.core.planner import RolloutPlanner, branch_games

    engine, state = mid_game(config, 3, 20)
    planner = bots.PlannerBot(engine, 1, weights)
    start = state.turn.astype(np.int64)
    compiled, shared = branch_games(state, np.arange(state.size)), branch_games(state, np.arange(state.size))
    worth = planner.roll_out(compiled, start)
    assert np.array_equal(worth, RolloutPlanner.roll_out(planner, shared, start))
    assert (compiled.decisions > state.decisions).any()


@pytest.mark.parametrize("players", [2, 4])
def test_planner_rolls_out_greedy_best_candidates_and_with_prune_0_only_its_ties(players, config):
    """At every player count the best 6 greedy actions are kept, not only those at a game's best greedy value;
    with the weight prune 0 only those (every live game keeps one at least)."""
    engine, state = mid_game(config, players, 12)
    for weights in ({}, {"prune": 0.0}):
        planner = bots.PlannerBot(engine, 0, weights)
        found = planner.candidates(state, ~state.done, np.full(state.size, -1, dtype=np.int64))
        keep = planner.kept_candidates(found)
        best = np.full(state.size, -np.inf)
        np.maximum.at(best, found.games, found.value)
        at_best = found.value[keep] == best[found.games[keep]]
        kept_per_game = np.bincount(found.games[keep], minlength=state.size)
        if weights:
            assert at_best.all() and (kept_per_game[~state.done] >= 1).all()
        else:
            assert not at_best.all() and kept_per_game.max() == planner.default_candidates
