"""The compiled scalar helpers of sims.core.kernels give exactly the numbers of sims.core.rng and sims.core.grid."""

import numpy as np
from numba import njit

from sims.core import grid, rng
from sims.core.kernels import kth_set_bit, lowest_bit_index, noise, noise_stream, popcount


@njit
def _noise_table(seeds, key, counters, slots):
    out = np.empty((seeds.shape[0], slots))
    for i in range(seeds.shape[0]):
        stream = noise_stream(seeds[i], key, counters[i])
        for slot in range(slots):
            out[i, slot] = noise(stream, slot)
    return out


def test_noise_equals_rng_uniforms_bit_for_bit():
    seeds = rng.game_seeds(11, np.arange(40))
    counters = np.arange(40, dtype=np.int64) * 977
    for purpose in ("bot/0", "bot/2", "deck"):
        expected = np.stack([rng.uniforms(seeds[i:i + 1], purpose, counters[i], 9)[0] for i in range(40)])
        got = _noise_table(seeds, rng.purpose_key(purpose), counters, 9)
        assert np.array_equal(got, expected)


def test_noise_from_python_scalars():
    stream = noise_stream(np.uint64(7), rng.purpose_key("bot/0"), 3)
    assert noise(stream, 5) == float(rng.uniforms_at(np.uint64(7), "bot/0", 3, 5))


def test_bit_helpers_match_numpy_helpers():
    boards = rng.random_bits(np.arange(200, dtype=np.uint64), "boards", 0, 1)[:, 0]
    boards[:3] = [0, 1, 1 << 63]
    counts = grid.popcount(boards)
    assert [popcount(b) for b in boards] == counts.tolist()
    for board, count in zip(boards[1:], counts[1:]):
        for k in (0, count // 2, count - 1):
            assert kth_set_bit(board, k) == grid.kth_set_bit(np.array([board]), np.array([k]))[0]
        assert kth_set_bit(board, count) == -1
        assert lowest_bit_index(board) == grid.lowest_bit_index(np.array([board]))[0]
    assert kth_set_bit(np.uint64(0), 0) == -1


def test_seat_uniforms_with_the_play_loops_dtypes_equal_each_seats_stream():
    """Games pass ``to_move`` as int8 and ``decisions`` as int32 (the compiled kernel takes them as they are)."""
    seeds = rng.game_seeds(5, np.arange(30))
    seats = (np.arange(30) % 3).astype(np.int8)
    counters = (np.arange(30) * 13).astype(np.int32)
    expected = [rng.uniforms(seeds[i:i + 1], f"plan/{seats[i]}", int(counters[i]))[0, 0] for i in range(30)]
    assert rng.seat_uniforms(seeds, seats, counters, prefix="plan").tolist() == expected
    assert rng.seat_uniforms(seeds[:3], seats[:3], 4).tolist() == [
        rng.uniforms(seeds[i:i + 1], f"bot/{seats[i]}", 4)[0, 0] for i in range(3)]
    assert rng.seat_uniforms(seeds[:0], seats[:0], counters[:0]).shape == (0,)
