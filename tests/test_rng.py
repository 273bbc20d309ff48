"""Random streams are per game: they never depend on the batch a game is played in."""

import numpy as np

from sims.core.rng import game_seeds, uniform_one, uniforms


def test_random_streams_do_not_depend_on_batch_size():
    seeds = game_seeds(42, np.arange(100))
    counters = np.arange(100) % 7
    together = uniforms(seeds, "dice", counters, slots=3)
    alone = np.concatenate([uniforms(seeds[i : i + 1], "dice", counters[i : i + 1], slots=3) for i in range(100)])
    assert np.array_equal(together, alone)
    assert uniform_one(int(seeds[17]), "dice", int(counters[17]), 3) == together[17].tolist()


def test_game_seeds_depend_on_the_deal_only():
    assert np.array_equal(game_seeds(5, np.arange(10))[3:7], game_seeds(5, np.arange(3, 7)))
    assert len(set(game_seeds(5, np.arange(1000)).tolist())) == 1000


def test_seat_uniforms_equal_each_seats_own_stream():
    from sims.core.rng import seat_uniforms

    seeds = game_seeds(3, np.arange(40))
    seats = np.arange(40) % 4
    counter = np.arange(40) * 7
    expected = [uniforms(seeds[i:i + 1], f"bot/{seats[i]}", counter[i])[0, 0] for i in range(40)]
    assert seat_uniforms(seeds, seats, counter).tolist() == expected
