"""Vorex bots: greedy beats random; batched and reference bots choose the same actions."""

from __future__ import annotations

import numpy as np
import pytest

from sims.core.bots import RandomBot
from sims.core.choice import ScoredBot
from sims.core.planner import branch_games
from sims.core.rng import game_seeds
from sims.vorex import bots, config, reference_bots
from sims.vorex.rules import BONUS_BLOOM, BONUS_EXPAND, SETUP, VorexEngine

CONFIG = config.load()
GREEDY = CONFIG.bot_weights["greedy"]
_ENGINES: dict[int, VorexEngine] = {}


def engine_for(players: int) -> VorexEngine:
    if players not in _ENGINES:
        _ENGINES[players] = VorexEngine(CONFIG, players)
    return _ENGINES[players]


def play(engine: VorexEngine, seat_bots, seeds):
    """Play to the end; returns the final state and each game's actions."""
    state = engine.init(seeds)
    trace = [[] for _ in range(state.size)]
    while not state.done.all():
        actions = np.full(state.size, -1)
        for seat, bot in enumerate(seat_bots):
            movers = ~state.done & (state.to_move == seat)
            if movers.any():
                actions[movers] = bot.act(state, movers)[movers]
        for game in np.nonzero(~state.done)[0]:
            trace[game].append(int(actions[game]))
        active = ~state.done
        engine.step(state, actions)
        state.decisions[active] += 1
    return state, trace


def test_greedy_beats_random_with_seats_rotated():
    engine = engine_for(2)
    seeds = game_seeds(31, np.arange(16))
    wins = games = 0
    for greedy_seat in (0, 1):
        seat_bots = [RandomBot(engine, 0), RandomBot(engine, 1)]
        seat_bots[greedy_seat] = bots.GreedyBot(engine, greedy_seat, GREEDY)
        state, _ = play(engine, seat_bots, seeds)
        rank = engine.results(state).rank
        finished = rank[:, greedy_seat] > 0
        wins += int((rank[finished, greedy_seat] == 1).sum())
        games += int(finished.sum())
    assert games >= 24
    assert wins / games >= 0.75


def reference_game(players: int, seed: int):
    reference = pytest.importorskip("sims.vorex.reference")
    return reference.VorexGame(CONFIG, players, seed)


@pytest.mark.parametrize("players", [1, 2, 4])
def test_random_bots_choose_as_the_reference_ones(players):
    engine = engine_for(players)
    seeds = game_seeds(41, np.arange(3))
    _, trace = play(engine, [RandomBot(engine, seat) for seat in range(engine.players)], seeds)
    for game, seed in enumerate(seeds):
        ref = reference_game(players, int(seed))
        seat_bots = [reference_bots.ReferenceRandomBot(seat) for seat in range(engine.players)]
        actions = []
        while not ref.done:
            action = seat_bots[ref.to_move].act(ref, int(seed))
            actions.append(action)
            ref.apply(action)
            ref.decisions += 1
        assert actions == trace[game]


def test_greedy_bots_choose_as_the_reference_ones_in_a_solo_game():
    engine = engine_for(1)
    seed = game_seeds(43, np.arange(1))
    _, trace = play(engine, [bots.GreedyBot(engine, 0, GREEDY), bots.GreedyBot(engine, 1, GREEDY)], seed)
    ref = reference_game(1, int(seed[0]))
    seat_bots = [reference_bots.ReferenceGreedyBot(0, GREEDY), reference_bots.ReferenceGreedyBot(1, GREEDY)]
    actions = []
    while not ref.done:
        action = seat_bots[ref.to_move].act(ref, int(seed[0]))
        actions.append(action)
        ref.apply(action)
        ref.decisions += 1
    assert actions == trace[0]


def test_greedy_bots_choose_as_the_reference_ones_on_two_player_positions():
    """Positions of random games with few legal actions (blooms, draws, bonuses): the same greedy choice."""
    engine = engine_for(2)
    seeds = game_seeds(47, np.arange(2))
    _, trace = play(engine, [RandomBot(engine, 0), RandomBot(engine, 1)], seeds)
    compared = 0
    for game, seed in enumerate(seeds):
        state = engine.init(seeds[game:game + 1])
        ref = reference_game(2, int(seed))
        for action in trace[game]:
            legal = engine.legal_mask(state)[0]
            if legal.sum() <= 40:
                mover = int(state.to_move[0])
                mine = bots.GreedyBot(engine, mover, GREEDY).act(state, np.ones(1, bool))[0]
                theirs = reference_bots.ReferenceGreedyBot(mover, GREEDY).act(ref, int(seed))
                assert mine == theirs
                compared += 1
            engine.step(state, np.array([action]))
            state.decisions += 1
            ref.apply(action)
            ref.decisions += 1
    assert compared >= 20


def test_planner_plays_legal_actions():
    engine = engine_for(2)
    state = engine.init(game_seeds(53, np.arange(3)))
    planner = bots.PlannerBot(engine, 0, CONFIG.bot_weights["planner"])
    other = RandomBot(engine, 1)
    for _ in range(12):
        actions = np.where(state.to_move == 0, planner.act(state, state.to_move == 0),
                           other.act(state, state.to_move == 1))
        mask = engine.legal_mask(state)
        live = ~state.done
        assert mask[live, actions[live]].all()
        engine.step(state, actions)
        state.decisions[live] += 1


@pytest.mark.parametrize("players, green", [(1, None), (3, None), (3, "G1"), (2, "G3"), (2, "G4")])
def test_action_values_match_played_actions_and_the_choice(players, green):
    """Positions of random games (setup included): the kernel's value of every legal action (blooms, placements,
    draws, declines) equals the evaluation after playing it on a copy, and greedy's one-call choice is the best
    of its scored actions. These deals draw G2 and G5; ``green`` replays them under the green objectives whose
    change the kernel counts without playing the placement (random play reads no objective)."""
    engine = engine_for(players)
    seeds = game_seeds(59, np.arange(2))
    _, trace = play(engine, [RandomBot(engine, seat) for seat in range(engine.players)], seeds)
    state = engine.init(seeds)
    if green is not None:
        state.green[:] = config.GREEN.index(green)
    checked = {"place": 0, "setup": 0, "bloom": 0, "draw": 0, "decline": 0}
    for step in range(max(len(t) for t in trace)):
        actions = np.array([t[step] if step < len(t) else -1 for t in trace])
        if step % 3 == 0 or np.isin(state.phase, (SETUP, BONUS_EXPAND, BONUS_BLOOM)).any():
            for seat in range(engine.players):
                movers = ~state.done & (state.to_move == seat)
                if not movers.any():
                    continue
                greedy = bots.GreedyBot(engine, seat, GREEDY)
                games, acts, value, _ = greedy.scored_actions(state, movers)
                assert np.array_equal(games * engine.num_actions + acts,
                                      np.flatnonzero(engine.legal_mask(state) & movers[:, None]))
                after = branch_games(state, games)
                movers_after = after.to_move.astype(np.int64)
                engine.step(after, acts)
                assert np.array_equal(value, bots.evaluate(engine, after, movers_after, GREEDY))
                assert np.array_equal(greedy.act(state, movers), ScoredBot.act(greedy, state, movers))
                off = engine.offsets
                checked["bloom"] += int((acts < off["place"]).sum())
                checked["place"] += int(((acts >= off["place"]) & (acts < off["draw"])).sum())
                checked["setup"] += int((state.phase[games] == SETUP).sum())
                checked["draw"] += int((acts == engine.config.draw_action).sum())
                checked["decline"] += int((acts == engine.config.decline_action).sum())
        active = ~state.done
        engine.step(state, actions)
        state.decisions[active] += 1
    assert checked["place"] >= 500 and checked["setup"] >= 100, checked
    assert checked["bloom"] >= 100 and checked["draw"] >= 10, checked
    assert checked["decline"] >= (1 if players > 1 else 0), checked  # these solo deals reach no bonus decision


class BothRollouts:
    """A planner that plays its compiled rollouts' choice after checking that the Python loop's is the same."""

    def __init__(self, planner: bots.PlannerBot):
        self.planner, self.compared = planner, 0

    def act(self, state, active):
        self.planner.compiled = True
        chosen = self.planner.act(state, active)
        self.planner.compiled = False
        assert np.array_equal(chosen, self.planner.act(state, active))
        self.compared += int((active & ~state.done).sum())
        return chosen


@pytest.mark.parametrize("players,samples", [(1, 1), (2, 2), (3, 1)])
def test_compiled_rollouts_choose_as_the_python_loop(players, samples):
    """The planner's rollouts in one kernel (bot_kernels.roll_out) pick what the shared Python loop picks, from
    setup to the end: every decision of seat 0 over 12 deals, the other seats greedy."""
    engine = engine_for(players)
    weights = {**CONFIG.bot_weights["planner"], "samples": float(samples)}
    checked = BothRollouts(bots.PlannerBot(engine, 0, weights))
    greedy = [bots.GreedyBot(engine, seat, GREEDY) for seat in range(1, engine.players)]
    play(engine, [checked, *greedy], game_seeds(7, np.arange(12)))
    assert checked.compared > 100
