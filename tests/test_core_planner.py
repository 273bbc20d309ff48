"""The shared rollout planner (sims.core.planner) on the toy dice race."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from sims.core.choice import ScoredBot
from sims.core.engine import take_games
from sims.core.play import BotChoice, batched_bots, play_batch, resolve_bot
from sims.registry import get_game
from sims.core.planner import RolloutPlanner, better_half, reshuffle_unseen
from sims.core.rng import game_seeds, purpose_key, uniforms
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


def test_prune_keeps_the_candidates_near_greedy_best(engine):
    """The leap is worth 7 to greedy, the roll 5: pruned at 0 (rollouts only break greedy's ties) or 1.9 the
    planner keeps the leap alone and walks into the trap; at 2 it keeps the roll and avoids it."""
    state = trap_position(engine)
    for prune, choice in ((0.0, LEAP), (1.9, LEAP), (2.0, ROLL)):
        assert PositionPlanner(engine, 0, {"prune": prune}).act(state, np.array([True]))[0] == choice


def test_a_weight_of_the_player_count_replaces_the_plain_one(engine):
    assert PositionPlanner(engine, 0, {"samples": 2, "samples_2p": 5}).sample_count == 5
    assert PositionPlanner(engine, 0, {"samples": 2, "samples_3p": 5}).sample_count == 2
    assert PositionPlanner(engine, 0, {"candidates_2p": 1}).act(trap_position(engine), np.array([True]))[0] == LEAP


class TurnsPlanner(PositionPlanner):
    at_horizon = RolloutPlanner.at_horizon


def test_the_turns_weight_stops_rollouts_after_that_many_turns(engine):
    state = engine.init(game_seeds(2, np.arange(4)))
    state.turn[:] = [10, 11, 12, 13]
    start = np.full(4, 10)
    assert TurnsPlanner(engine, 0, {"turns": 2}).at_horizon(state, start).tolist() == [False, False, True, True]
    assert TurnsPlanner(engine, 0, {"turns": 1}).at_horizon(state, start).tolist() == [False, True, True, True]
    with pytest.raises(NotImplementedError):
        TurnsPlanner(engine, 0).at_horizon(state, start)


def test_choices_do_not_depend_on_the_batch(engine):
    state = engine.init(game_seeds(3, np.arange(64)))
    for step in range(6):  # spread the games out
        engine.step(state, ProgressGreedy(engine, 0).act(state, ~state.done) if step % 2 == 0
                    else np.full(state.size, STEP))
        state.decisions += 1
    movers = state.to_move == 0
    together = PositionPlanner(engine, 0).act(state, movers)
    for game in range(state.size):
        alone = PositionPlanner(engine, 0).act(take_games(state, np.array([game])), movers[game:game + 1])
        assert alone[0] == together[game]
    assert movers.all() and (together >= 0).all()


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


# ---------------------------------------------------------------- several rollouts per candidate


class DicePlanner(PositionPlanner):
    """The future dice are hidden: each sample's rollout rolls them from its own stream (``plan/<seat>/dice``)."""

    def hide_unseen(self, branch):
        branch.seeds = game_seeds(int(purpose_key(self.plan_stream("dice")) % 2**31), branch.seeds % 2**31)


def next_rolls(engine: RaceEngine, planner: DicePlanner, state: RaceState, samples: int) -> list[int]:
    """The opponent's die in each sample's rollout of ``state`` (the turn after the planner's)."""
    rolls = []
    for planner.sample in range(samples):
        branch = take_games(state, np.array([0]))
        planner.hide_unseen(branch)
        rolls.append(int(engine._roll(branch.seeds, branch.turn + 1)[0]))
    planner.sample = 0
    return rolls


def test_sample_zero_draws_from_the_streams_of_one_sample(engine):
    planner = PositionPlanner(engine, 1, {"samples": 3})
    assert planner.plan_stream("bag") == "plan/1/bag"
    assert [bot.stream for bot in planner.rollout_bots()] == ["plan/1/0", "plan/1/1"]
    planner.sample = 2
    assert planner.plan_stream("bag") == "plan/1/bag/s2"
    assert [bot.stream for bot in planner.rollout_bots()] == ["plan/1/0/s2", "plan/1/1/s2"]


def test_every_sample_reshuffles_and_rolls_out(engine):
    state = trap_position(engine)
    planner = PositionPlanner(engine, 0, {"samples": 4})
    planner.act(state, np.array([True]))
    assert planner.hidden_calls == 4 and planner.sample == 0


def test_averaged_samples_choose_the_move_best_on_average(engine):
    """Seat 0 on 3 with a 2, seat 1 on 5, the opponent's die hidden. The leap to 7 is sent home only by a 1
    (the opponent leaps 2 x 1 onto it), the roll to 5 (sending the opponent home) only by a 5: on average the
    leap keeps more. One sample that rolls a 1 takes the roll; eight samples take the leap."""
    state = trap_position(engine)
    one = DicePlanner(engine, 0)
    for seed in game_seeds(1, np.arange(200)):
        state.seeds[0] = seed
        rolls = next_rolls(engine, DicePlanner(engine, 0), state, 8)
        if rolls[0] == 1 and rolls.count(1) + rolls.count(5) <= 3:
            break
    assert rolls[0] == 1
    assert one.act(state, np.array([True]))[0] == ROLL
    assert DicePlanner(engine, 0, {"samples": 8}).act(state, np.array([True]))[0] == LEAP


@pytest.mark.parametrize("weights", [{"samples": 3}, {"samples": 2, "explore": 0.5}, {"halving": 1, "samples": 2}])
def test_sampled_choices_do_not_depend_on_the_batch(engine, weights):
    state = engine.init(game_seeds(4, np.arange(48)))
    state.turn[:] = 10
    state.position[:, 0] = 2 + np.arange(48) % 7
    state.position[:, 1] = state.position[:, 0] + 1 + np.arange(48) % 4  # within reach of a bump
    movers = np.arange(48) % 5 > 0
    together = DicePlanner(engine, 0, weights).act(state, movers)
    halves = [DicePlanner(engine, 0, weights).act(take_games(state, rows), movers[rows])
              for rows in (np.arange(0, 48, 2), np.arange(1, 48, 2))]
    assert (together[0::2] == halves[0]).all() and (together[1::2] == halves[1]).all()
    assert (together[movers] >= 0).all() and (together[~movers] == -1).all()
    assert (together != DicePlanner(engine, 0).act(state, movers)).any()  # the samples changed some choice


def test_better_half_keeps_the_best_half_rounded_up_of_each_group():
    groups = np.array([2, 0, 0, 2, 0, 1, 2, 0, 2])
    worth = np.array([1.0, 5.0, 3.0, 4.0, 3.0, 0.0, 4.0, 1.0, 2.0])
    noise = np.array([0.0, 0.0, 0.2, 0.1, 0.9, 0.0, 0.5, 0.0, 0.0])
    # group 0: 5, 3 (0.9), 3 (0.2), 1 -> two kept; group 1 alone -> kept; group 2: 4 (0.5), 4 (0.1), 2, 1 -> two
    assert better_half(groups, worth, noise).tolist() == [False, True, False, True, True, True, True, False, False]
    assert better_half(np.array([0, 0, 0]), np.array([1.0, 2.0, 3.0])).tolist() == [False, True, True]


class CountingPlanner(DicePlanner):
    """Counts the rollouts each sample plays."""

    def roll_out(self, branch, start_turn):
        self.rollouts = getattr(self, "rollouts", []) + [(self.sample, branch.size)]
        return super().roll_out(branch, start_turn)


def test_halving_gives_the_better_half_twice_the_rollouts_each_round(engine):
    """Three candidates (leap, roll, step) with one rollout each (sample 0), then the better two with samples 1
    and 2, then one is left; with ``samples`` 2: two rollouts each, then four for the better two."""
    state = trap_position(engine)
    planner = CountingPlanner(engine, 0, {"halving": 1, "candidates": 3})
    choice = planner.act(state, np.array([True]))[0]
    assert planner.rollouts == [(0, 3), (1, 2), (2, 2)] and planner.sample == 0
    assert choice in (LEAP, ROLL)
    planner = CountingPlanner(engine, 0, {"halving": 1, "candidates": 3, "samples": 2})
    planner.act(state, np.array([True]))
    assert planner.rollouts == [(0, 3), (1, 3), (2, 2), (3, 2), (4, 2), (5, 2)]
    assert PositionPlanner(engine, 0, {"halving": 1, "candidates": 3}).act(state, np.array([True]))[0] == ROLL
    assert PositionPlanner(engine, 0, {"halving": 1, "candidates": 1}).act(state, np.array([True]))[0] == LEAP


class ReplyCountingPlanner(CountingPlanner):
    """Also counts the 2-ply evaluations: (sample, candidates, replies)."""

    def reply_worth(self, branch, start_turn, replies=None):
        self.two_ply = getattr(self, "two_ply", []) + [(self.sample, branch.size, replies)]
        return super().reply_worth(branch, start_turn, replies)


def test_final_replies_make_the_last_two_candidates_a_2_ply_final(engine):
    """Three candidates rolled out once, then the better two each with two 2-ply samples (2 replies)."""
    state = trap_position(engine)
    planner = ReplyCountingPlanner(engine, 0, {"halving": 1, "candidates": 3, "final_replies": 2})
    assert planner.act(state, np.array([True]))[0] in (LEAP, ROLL)
    assert planner.two_ply == [(1, 2, 2), (2, 2, 2)] and planner.rollouts[0] == (0, 3)
    plain = ReplyCountingPlanner(engine, 0, {"halving": 1, "candidates": 3})
    plain.act(state, np.array([True]))
    assert not hasattr(plain, "two_ply")


def test_explore_plays_random_legal_moves_in_the_rollouts(engine):
    state = engine.init(game_seeds(6, np.arange(32)))
    planner = PositionPlanner(engine, 0, {"explore": 1.0})
    branch = take_games(state, np.arange(32))
    replies = np.full(32, -1, dtype=np.int64)
    planner._explore(branch, np.ones(32, dtype=bool), replies)
    assert engine.legal_mask(branch)[np.arange(32), replies].all()
    assert len(set(replies.tolist())) > 1
    none = np.full(32, -1, dtype=np.int64)
    PositionPlanner(engine, 0, {"explore": 0.0})._explore(branch, np.ones(32, dtype=bool), none)
    assert (none == -1).all()


@pytest.mark.parametrize("name, players, weights", [
    ("overgrowth", 2, {"samples": 2, "replies": 2, "explore": 0.2}),
    ("vora", 3, {"samples": 2, "replies": 2, "candidates": 3}),
    ("vora", 2, {"halving": 1, "candidates": 4}),
])
def test_a_sampled_planner_plays_the_same_games_in_any_batch(name, players, weights):
    """A few turns of real games with the game's own rollouts (Vora's compiled): one batch, or two."""
    game = get_game(name)
    config = game.load_config()
    engine = game.batched(config, players)
    planner = dict(resolve_bot(game, config, "planner").weights) | weights
    lineup = [BotChoice("strong", "planner", planner)] + [resolve_bot(game, config, "greedy")] * (players - 1)
    seeds = game_seeds(9, np.arange(4))

    def actions(rows: np.ndarray) -> np.ndarray:
        return play_batch(engine, batched_bots(game, engine, lineup), seeds[rows], max_turns=6)[1].actions

    together = actions(np.arange(4))
    for rows in (np.array([0, 3]), np.array([2, 1])):
        apart = actions(rows)
        steps = apart.shape[1]
        assert (together[rows, :steps] == apart).all() and (together[rows, steps:] == -1).all()
