"""``ReferenceBot.explain``: the candidates a bot weighs, best first; the first is the action it plays."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sims.core.play import batched_bots, play_batch, reference_bots, resolve_bot, seat_labels
from sims.core.rng import game_seeds, uniform_one
from sims.registry import get_game

GAMES = ["overgrowth", "vora", "vorex", "reforest"]


def explained_game(name: str, labels: list[str], seed: int, decisions: int = 40):
    """The first ``decisions`` decisions of a batched game, each with its reference explanation:
    (bot, legal actions, explain, action played, decision number, game seed)."""
    game = get_game(name)
    config = game.load_config()
    choices = [resolve_bot(game, config, label) for label in seat_labels(game, 2, labels)]
    engine = game.batched(config, 2)
    game_seed = int(game_seeds(seed, np.arange(1))[0])
    max_turns = game.max_turns(config)
    _, trace = play_batch(engine, batched_bots(game, engine, choices), np.array([game_seed], np.uint64), max_turns)
    bots = reference_bots(game, choices)
    reference = game.reference(config, 2, game_seed)
    for action in trace.game_actions(0)[:decisions]:
        if reference.turn >= max_turns:
            break
        bot = bots[reference.to_move]
        yield bot, reference.legal_actions(), bot.explain(reference, game_seed), action, reference.decisions, game_seed
        reference.apply(action)
        reference.decisions += 1


@pytest.mark.parametrize("name", GAMES)
def test_the_first_candidate_is_the_action_the_batched_greedy_bot_played(name):
    valued = 0
    for bot, legal, ranked, action, decision, seed in explained_game(name, ["greedy", "random"], seed=3):
        assert ranked[0][0] == action
        if bot.explains == "chance":
            assert [a for a, _ in ranked][1:] == [a for a in legal if a != action]
            assert all(chance == 1 / len(legal) for _, chance in ranked)
            continue
        if len(legal) == 1:
            assert len(ranked) == 1 and math.isnan(ranked[0][1])
            continue
        valued += 1
        assert sorted(a for a, _ in ranked) == legal
        noise = uniform_one(seed, f"bot/{bot.seat}", decision, slots=bot_slots(name))
        keys = [(value, noise[a]) for a, value in ranked]
        assert keys == sorted(keys, reverse=True)  # best first: value, then the tie-break noise
    assert valued >= 5


def bot_slots(name: str) -> int:
    return get_game(name).load_config().num_actions


def test_a_bot_without_a_ranking_says_so():
    from sims.core.engine import ReferenceBot

    class Plain(ReferenceBot):
        def act(self, game, seed):
            return game.legal_actions()[0]

    assert Plain(0).explain(None, 0) is None


def test_the_overgrowth_greedy_bot_ranks_the_immediate_win_first_and_losing_moves_below():
    from sims.overgrowth.reference_bots import WIN_SCORE, ReferenceGreedyBot
    from tests.test_overgrowth_bots import win_in_one

    config, game = win_in_one()
    ranked = ReferenceGreedyBot(0, config.bot_weights["greedy"]).explain(game, 1)
    wins = [a for a, value in ranked if value == WIN_SCORE]
    assert wins and [a for a, _ in ranked[:len(wins)]] == wins and all(v < WIN_SCORE for _, v in ranked[len(wins):])
    after = game.clone()
    after.apply(ranked[0][0])
    assert after.done and after.winner == 0
