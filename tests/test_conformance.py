"""One conformance test every game runs, for every player count it supports.

Random play on the batched engine: a game not over always has a legal
action, bots only choose legal actions, finished games stay untouched, the
engine's invariants (pieces conserved and the like) hold after every step, a
game's own ``choose_uniform`` picks what the contract's default picks, every
game ends (or stalls at the cap; only a stall goes unranked), results have the documented shapes, and the
reference engine replays each trace to the same end.
"""

from __future__ import annotations

import numpy as np
import pytest

from sims.core.choice import choose_uniform
from sims.core.engine import STALL, BatchedEngine
from sims.core.play import batched_bots, replay_on_reference, resolve_bot
from sims.core.rng import game_seeds
from sims.registry import get_game, shipped_game_names

CASES = [(name, players) for name in shipped_game_names() for players in get_game(name).player_counts]


@pytest.mark.parametrize("name, players", CASES)
def test_random_play_keeps_the_engine_contract(name, players):
    game = get_game(name)
    config = game.load_config()
    engine = game.batched(config, players)
    seats = game.seats(players)
    choices = [resolve_bot(game, config, "random")] * seats
    bots = batched_bots(game, engine, choices)
    seeds = game_seeds(5, np.arange(64))
    cap = game.max_turns(config)
    state = engine.init(seeds)
    trace = []
    while True:
        capped = ~state.done & (state.turn >= cap)
        if capped.any():
            engine.stall(state, capped)
        active = ~state.done
        if not active.any():
            break
        mask = engine.legal_mask(state)
        assert mask.shape == (len(seeds), engine.num_actions) and mask.dtype == bool
        assert mask[active].any(axis=1).all(), "a game not over has no legal action"
        assert not mask[~active].any(), "a finished game has legal actions"
        if type(engine).choose_uniform is not BatchedEngine.choose_uniform:
            rows = np.flatnonzero(active)
            for u in (0.0, 0.37, 0.999999):  # a game's faster choice picks what the contract default picks
                u_rows = np.full(rows.size, u)
                assert np.array_equal(engine.choose_uniform(state, rows, u_rows), choose_uniform(mask[rows], u_rows))
        actions = np.full(len(seeds), -1, dtype=np.int64)
        for seat in np.unique(state.to_move[active]):
            movers = active & (state.to_move == seat)
            actions[movers] = bots[int(seat)].act(state, movers)[movers]
        assert mask[np.nonzero(active)[0], actions[active]].all(), "a bot chose an illegal action"
        finished_turns = state.turn[~active].copy()
        trace.append(actions)
        engine.step(state, actions)
        state.decisions[active] += 1
        assert np.array_equal(state.turn[~active], finished_turns), "a finished game moved"
        for name, holds in engine.invariants(state).items():
            assert holds.all(), f"invariant broken: {name}"

    results = engine.results(state)
    assert state.done.all()
    assert results.score.shape == results.rank.shape == (len(seeds), seats)
    ended = np.array(engine.end_reasons)[results.end]
    assert (ended != "").all() and STALL in engine.end_reasons
    stalled = ended == STALL  # every other end, blocked included (nobody could move), is scored and ranked
    assert (results.rank[stalled] == 0).all() and (results.rank[~stalled] >= 1).all()
    if seats > 1:  # a solitaire game may be lost: rank 2 of 1, no first place
        assert (results.rank[~stalled] == 1).any(axis=1).all(), "every finished game has a first place"
    else:
        assert np.isin(results.rank[~stalled], [1, 2]).all(), "a solitaire game is won (1) or lost (2)"
    for column in results.seat_columns.values():
        assert column.shape == (len(seeds), seats)

    actions = np.stack(trace, axis=1)
    for i, seed in enumerate(seeds[:16]):
        row = actions[i]
        reference, problem, _ = replay_on_reference(
            game.reference(config, players, int(seed)), [int(a) for a in row[row >= 0]], None, cap)
        assert problem is None, problem
        assert reference.snapshot() == engine.snapshot(state, i)
        assert reference.result()["end"] == ended[i]
