"""The shared batched helpers: bitboard grids and choosing among legal actions."""

from __future__ import annotations

import numpy as np
import pytest

from sims.core.choice import (
    choose_best,
    choose_uniform,
    choose_weighted,
    kth_legal,
    legal_set_hash,
    legal_set_hash_of,
    top_per_group,
    top_per_group_by_sort,
)
from sims.core.grid import KING, ORTHOGONAL, Grid, kth_set_bit, lowest_bit_index, popcount

U64 = np.uint64


def board(grid: Grid, picture: str) -> np.ndarray:
    """A one-element bitboard from rows of ``#`` (set) and ``.``."""
    rows = picture.split()
    return np.array([grid.mask_of((r, c) for r, row in enumerate(rows) for c, s in enumerate(row) if s == "#")])


def picture(grid: Grid, bits: np.ndarray) -> str:
    flags = grid.to_cells(bits)[0]
    return " ".join("".join("#" if flags[r * grid.columns + c] else "." for c in range(grid.columns))
                    for r in range(grid.rows))


def test_shift_drops_stones_that_leave_the_board():
    grid = Grid(3, 4)
    stones = board(grid, "#..# .... ...#")
    assert picture(grid, grid.shift(stones, 0, 1)) == ".#.. .... ...."
    assert picture(grid, grid.shift(stones, 1, -1)) == ".... ..#. ...."
    assert picture(grid, grid.shift(stones, -1, 0)) == ".... ...# ...."


def test_dilate_king_and_orthogonal():
    grid = Grid(3, 3)
    centre = board(grid, "... .#. ...")
    assert picture(grid, grid.dilate(centre, KING)) == "### ### ###"
    assert picture(grid, grid.dilate(centre, ORTHOGONAL)) == ".#. ### .#."
    corner = board(grid, "#.. ... ...")
    assert picture(grid, grid.neighbours(corner, KING)) == ".#. ##. ..."


def test_flood_follows_connections_inside_a_region():
    grid = Grid(4, 4)
    region = board(grid, "##.. .#.. ..#. ...#")
    seed = board(grid, "#... .... .... ....")
    assert picture(grid, grid.flood(seed, region, KING)) == "##.. .#.. ..#. ...#"
    assert picture(grid, grid.flood(seed, region, ORTHOGONAL)) == "##.. .#.. .... ...."


def test_connects_between_two_sides():
    grid = Grid(4, 4)
    top, bottom = grid.mask_of((0, c) for c in range(4)), grid.mask_of((3, c) for c in range(4))
    diagonal = board(grid, "#... .#.. ..#. ...#")
    assert grid.connects(diagonal, top, bottom, KING).tolist() == [True]
    assert grid.connects(diagonal, top, bottom, ORTHOGONAL).tolist() == [False]


def test_count_at_least_counts_layers_per_cell():
    grid = Grid(1, 4)
    layers = [board(grid, "##.."), board(grid, "#.#."), board(grid, "#..#")]
    assert picture(grid, grid.count_at_least(layers, 2)) == "#..."
    assert picture(grid, grid.count_at_least(layers, 1)) == "####"
    assert picture(grid, grid.count_at_least(layers, 3)) == "#..."


def test_cells_round_trip_and_bit_helpers():
    grid = Grid(8, 8)
    rng = np.random.default_rng(3)
    values = rng.integers(0, 2**63, size=50, dtype=np.uint64) * U64(2) + rng.integers(0, 2, 50).astype(np.uint64)
    assert np.array_equal(grid.from_cells(grid.to_cells(values)), values)
    for value in values[:10]:
        bits = [i for i in range(64) if (int(value) >> i) & 1]
        assert popcount(np.array([value]))[0] == len(bits)
        assert lowest_bit_index(np.array([value]))[0] == (bits[0] if bits else 64)
        k = np.arange(len(bits))
        assert kth_set_bit(np.full(len(bits), value), k).tolist() == bits


def test_uniform_choice_is_the_kth_legal_in_ascending_order():
    mask = np.array([[False, True, True, False, True], [False] * 5])
    assert kth_legal(mask, np.array([2, 0])).tolist() == [4, -1]
    assert choose_uniform(mask, np.array([0.0, 0.5])).tolist() == [1, -1]
    assert choose_uniform(mask, np.array([0.999, 0.5])).tolist() == [4, -1]
    assert choose_uniform(mask, np.array([0.5, 0.5])).tolist() == [2, -1]


def test_weighted_choice_follows_cumulative_weights():
    weights = np.array([[0.0, 1.0, 3.0], [0.0, 0.0, 0.0]])
    assert choose_weighted(weights, np.array([0.2, 0.5])).tolist() == [1, -1]
    assert choose_weighted(weights, np.array([0.3, 0.5])).tolist() == [2, -1]


def test_best_choice_breaks_ties_by_noise_among_legal_only():
    scores = np.array([[1.0, 5.0, 5.0, 9.0]])
    mask = np.array([[True, True, True, False]])
    assert choose_best(scores, mask, np.array([[0.9, 0.1, 0.2, 0.99]])).tolist() == [2]


def test_top_per_group_ranks_by_keys_within_each_group():
    group = np.array([0, 0, 0, 1, 1, 2])
    primary = np.array([1.0, 3.0, 3.0, 2.0, 5.0, 0.0])
    secondary = np.array([0.5, 0.1, 0.7, 0.0, 0.0, 0.0])
    assert top_per_group(group, primary, secondary).tolist() == [2, 4, 5]
    assert top_per_group(group, primary, secondary, k=2).tolist() == [2, 1, 4, 3, 5]


def test_top_per_group_ranks_exact_ties_later_first_and_nan_highest():
    group = np.array([4, 4, 4, 4, 9, 9])
    primary = np.array([2.0, np.nan, 2.0, -np.inf, -0.0, 0.0])
    secondary = np.array([0.5, 0.0, 0.5, 1.0, 0.3, 0.3])
    assert top_per_group(group, primary, secondary, k=3).tolist() == [1, 2, 0, 5, 4]


def test_top_per_group_compiled_pass_equals_the_sort_on_random_ties():
    rng = np.random.default_rng(3)
    for _ in range(400):
        n = int(rng.integers(0, 30))
        group = np.sort(rng.integers(0, 5, n))
        keys = [rng.integers(0, 3, n).astype(np.float64) for _ in range(int(rng.integers(1, 4)))]
        for key in keys:
            key[rng.random(n) < 0.15] = np.nan
            key[rng.random(n) < 0.15] = -np.inf
        for k in (1, 2, 4):
            assert top_per_group(group, *keys, k=k).tolist() == top_per_group_by_sort(group, *keys, k=k).tolist()


def test_top_per_group_sorts_groups_given_out_of_order():
    group = np.array([2, 0, 2, 0])
    value = np.array([1.0, 1.0, 3.0, 0.0])
    assert top_per_group(group, value, k=2).tolist() == [1, 3, 2, 0]


@pytest.mark.parametrize("legal", [[], [3], [0, 5, 9, 17]])
def test_legal_set_hash_is_the_same_for_mask_and_list(legal):
    mask = np.zeros((1, 20), dtype=bool)
    mask[0, legal] = True
    assert int(legal_set_hash(mask)[0]) == legal_set_hash_of(legal)


def test_best_per_game_takes_the_highest_key_then_the_next_then_the_first():
    from sims.core.choice import best_per_game

    games = np.array([0, 0, 0, 2, 2, 5])
    value = np.array([1.0, 3.0, 3.0, 0.0, 0.0, -1.0])
    noise = np.array([0.5, 0.1, 0.9, 0.2, 0.2, 0.0])
    assert best_per_game(games, value, noise).tolist() == [2, 3, 5]
    assert best_per_game(games, value).tolist() == [1, 3, 5]
    assert best_per_game(np.zeros(0, dtype=np.int64), np.zeros(0)).tolist() == []
