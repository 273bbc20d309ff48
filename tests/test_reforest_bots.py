"""Reforest's bots: greedy beats random, and the reference bots choose exactly what the batched ones choose."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from sims.core.bots import RandomBot
from sims.core.planner import RolloutPlanner, branch_games
from sims.core.play import play_batch, play_reference
from sims.core.rng import game_seeds
from sims.reforest import bot_kernels, bots, kernels
from sims.reforest import config as reforest
from sims.reforest import reference_bots
from sims.reforest.rules import ReforestEngine


@pytest.fixture(scope="module")
def cfg() -> reforest.ReforestConfig:
    return reforest.load()


@njit
def copy_game(source, g, to, h):
    """:func:`kernels.copy_game` called from Python (it has no Python entry of its own: compiled callers only)."""
    kernels.copy_game(source, g, to, h)


def random_midgame(engine: ReforestEngine, seeds: np.ndarray, decisions: int):
    """Games of ``seeds`` after ``decisions`` decisions of random bots in every seat."""
    state = engine.init(seeds)
    lineup = [RandomBot(engine, s) for s in range(engine.players)]
    for _ in range(decisions):
        live = ~state.done
        actions = np.full(state.size, -1)
        for seat in range(engine.players):
            movers = live & (state.to_move == seat)
            actions[movers] = lineup[seat].act(state, movers)[movers]
        engine.step(state, actions)
        state.decisions[live] += 1
    return state


def test_greedy_beats_random_with_seats_rotated(cfg):
    engine = ReforestEngine(cfg, 2)
    wins = games = 0
    for greedy_seat in (0, 1):
        lineup = [bots.GreedyBot(engine, s, cfg.weights("greedy")) if s == greedy_seat else RandomBot(engine, s)
                  for s in range(2)]
        state, _ = play_batch(engine, lineup, game_seeds(greedy_seat, np.arange(60)), cfg.max_turns)
        rank = engine.results(state).rank
        wins += int((rank[:, greedy_seat] == 1).sum())
        games += state.size
    assert wins / games > 0.8


def test_evaluation_reads_the_same_from_a_snapshot(cfg):
    engine = ReforestEngine(cfg, 3)
    state = random_midgame(engine, game_seeds(4, np.arange(6)), 120)
    weights = cfg.weights("greedy")
    for me in range(3):
        batched = bots.evaluate(engine, state, np.full(state.size, me), weights)
        for game in range(state.size):
            assert batched[game] == reference_bots.evaluate(cfg, engine.snapshot(state, game), me, weights)


@pytest.mark.parametrize("players,kind", [(1, "greedy"), (2, "greedy"), (3, "random"), (4, "random")])
def test_reference_bots_play_the_same_games(cfg, players, kind):
    reference = pytest.importorskip("sims.reforest.reference")
    engine = ReforestEngine(cfg, players)
    batched_kind = {"greedy": bots.GreedyBot, "random": RandomBot}[kind]
    reference_kind = {"greedy": reference_bots.ReferenceGreedyBot, "random": reference_bots.ReferenceRandomBot}[kind]
    seeds = game_seeds(30 + players, np.arange(2 if kind == "greedy" else 6))
    lineup = [batched_kind(engine, s, cfg.weights("greedy")) for s in range(players)]
    state, _ = play_batch(engine, lineup, seeds, cfg.max_turns)
    for index, seed in enumerate(seeds):
        game = reference.ReforestGame(cfg, players, int(seed))
        play_reference(game, [reference_kind(s, cfg.weights("greedy")) for s in range(players)], int(seed),
                       cfg.max_turns)
        assert game.snapshot() == engine.snapshot(state, index)


def test_planner_rollout_kernel_values_as_the_shared_rollout(cfg):
    """The planner's one-kernel rollout gives every branch the worth the shared (numpy) rollout loop gives."""
    engine = ReforestEngine(cfg, 3)
    state = random_midgame(engine, game_seeds(8, np.arange(5)), 60)
    planner = bots.PlannerBot(engine, 1, cfg.weights("greedy"))
    start_turn = state.turn.copy()
    kernel = planner.roll_out(branch_games(state, np.arange(state.size)), start_turn)
    shared = RolloutPlanner.roll_out(planner, branch_games(state, np.arange(state.size)), start_turn)
    assert np.array_equal(kernel, shared)
    assert np.unique(kernel).size > 1


@pytest.mark.parametrize("players,extra", [(3, {}), (2, {"samples": 2.0, "prune": 0.5, "candidates": 3.0}),
                                           (1, {"depth": 1.0})])
def test_compiled_plan_chooses_as_the_shared_plan(cfg, players, extra):
    """The planner's one-kernel plan (greedy scoring, kept candidates, their turns, reshuffles, rollouts, the
    best worth) chooses in every game what the shared plan of RolloutPlanner chooses, with prune and samples."""
    engine = ReforestEngine(cfg, players)
    state = random_midgame(engine, game_seeds(20 + players, np.arange(48)), 90)
    differs = 0
    for seat in range(players):
        planner = bots.PlannerBot(engine, seat, cfg.weights("planner") | extra)
        active = state.to_move == seat
        compiled = planner.act(state, active)
        assert np.array_equal(compiled, RolloutPlanner.act(planner, state, active))
        assert (compiled[active & ~state.done] >= 0).all()
        differs += int((compiled != bots.GreedyBot.act(planner, state, active)).sum())
    assert differs > 0  # the rollouts change some of greedy's choices


def test_restore_game_undoes_any_candidate_turn(cfg):
    """The greedy scratch copy, played to the end of a candidate's turn (round ends included), is put back to the
    game it was copied from: every field but the stats, which no play reads."""
    engine = ReforestEngine(cfg, 3)
    state = random_midgame(engine, game_seeds(12, np.arange(32)), 180)
    source = engine.arrays(state)
    rounds_ended = 0
    near_round_end = state.deck_end - state.deck_top <= 3  # where a turn may end a round
    for game in np.flatnonzero(~state.done & (near_round_end | (np.arange(state.size) < 4))):
        scratch = engine.branch(state, np.array([game]))
        for action in engine.legal_pairs(state, np.array([game]))[1]:
            engine.step(scratch, np.array([action]))
            scratch.decisions += 1
            engine.finish_turns(scratch, np.zeros(1, dtype=np.int64), state.turn[[game]])
            rounds_ended += int(scratch.rounds_ended[0] != state.rounds_ended[game])
            kernels.restore_game(source, game, engine.arrays(scratch), 0)
            for name in kernels.Arrays._fields:
                if name != "stats":
                    assert np.array_equal(getattr(scratch, name)[0], getattr(state, name)[game]), name
    assert rounds_ended > 0  # the whole-game copy back is exercised too


def test_copy_game_over_another_game_equals_it_everywhere(cfg):
    """copy_game copies only the stack levels below the larger size and the energy of spaces with energy on
    either side (kernels.copy_region): copied over any other game, at any stage, every array equals the source's
    (fails if a stack or energy row that differs is skipped)."""
    engine = ReforestEngine(cfg, 3)
    early = random_midgame(engine, game_seeds(21, np.arange(6)), 30)
    late = random_midgame(engine, game_seeds(22, np.arange(6)), 240)
    assert late.stored.sum() > 0 and (late.stack_size > early.stack_size.max()).any()
    for source_state, target_state in ((early, late), (late, early), (late, late)):
        source = engine.arrays(source_state)
        for game in range(source_state.size):
            target = engine.branch(target_state, np.arange(target_state.size))
            slot = (game + 1) % target.size
            copy_game(source, game, engine.arrays(target), slot)
            for name in kernels.Arrays._fields:
                assert np.array_equal(getattr(target, name)[slot], getattr(source_state, name)[game]), name


def test_a_turns_later_decision_values_its_lowest_action_as_the_chosen_one_before(cfg):
    """The rollouts' known value (greedy_choice): after greedy's choice, at the next decision of the same turn the
    lowest legal action's value (its play-out to the end of the turn) is the value the choice had."""
    engine = ReforestEngine(cfg, 3)
    state = random_midgame(engine, game_seeds(14, np.arange(64)), 60)
    checked = 0
    for _ in range(6):
        seat = np.bincount(state.to_move[~state.done], minlength=3).argmax()
        greedy = bots.GreedyBot(engine, int(seat))
        rows = np.flatnonzero(~state.done & (state.to_move == seat))
        chosen, games, actions, values, _ = greedy.greedy_choices(state, rows, keep_scores=True)
        turn = state.turn.copy()
        step = np.full(state.size, -1)
        step[rows] = chosen
        engine.step(state, step)
        state.decisions[rows] += 1
        later = rows[(state.turn[rows] == turn[rows]) & ~state.done[rows]]
        _, games_after, actions_after, values_after, _ = greedy.greedy_choices(state, later, keep_scores=True)
        for game in np.unique(games_after):
            before = (games == game) & (actions == step[game])
            if before.any():  # its choice was scored
                assert values_after[games_after == game][0] == values[before][0]
                checked += 1
    assert checked > 20


def test_restore_game_undoes_a_play_out_from_earlier_in_the_turn(cfg):
    """The rollouts' reuse (greedy_choice): a scratch copy played out from an earlier decision of the turn is put
    back to the game as it is now, when no round ended since; every field but the stats."""
    engine = ReforestEngine(cfg, 3)
    state = random_midgame(engine, game_seeds(15, np.arange(48)), 120)
    restored = 0
    for game in np.flatnonzero(~state.done):
        legal = engine.legal_pairs(state, np.array([game]))[1]
        now = engine.branch(state, np.array([game]))
        engine.step(now, legal[-1:])
        now.decisions += 1
        if now.done[0] or now.turn[0] != state.turn[game] or now.resets[0] != state.resets[game]:
            continue
        scratch = engine.branch(state, np.array([game]))
        engine.step(scratch, legal[:1])
        scratch.decisions += 1
        engine.finish_turns(scratch, np.zeros(1, dtype=np.int64), state.turn[[game]])
        kernels.restore_game(engine.arrays(now), 0, engine.arrays(scratch), 0)
        for name in kernels.Arrays._fields:
            if name != "stats":
                assert np.array_equal(getattr(scratch, name), getattr(now, name)), name
        restored += 1
    assert restored > 10


@pytest.mark.parametrize("prune, expected", [(np.nan, [1, 3, 4]), (1.5, [3, 4])])
def test_kept_candidates_are_the_best_in_ascending_order(prune, expected):
    """The best three scored actions (values 5, 4, 3 at indices 3, 4, 1) kept by index, ascending; a prune of 1.5
    drops the one 2 below the best."""
    values = np.array([0.1, 3.0, 2.0, 5.0, 4.0])
    noises = np.zeros(values.size)
    keep = np.full(values.size, -1, dtype=np.int64)
    kept = bot_kernels.kept_candidates(values, noises, values.size, 3, prune, keep)
    assert keep[:kept].tolist() == expected
