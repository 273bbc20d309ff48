"""Batched square-grid helpers on uint64 bitboards (boards of at most 64 cells).

Cell ``(row, col)`` is bit ``row * columns + col``::

    row 0:  0  1  2 ...  W-1
    row 1:  W W+1 ...   2W-1
    ...

Every function takes and returns uint64 arrays of any shape (one board per
element), so the same code serves ``[B]`` boards and ``[B, candidates]``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sims.core.directions import DIAGONAL, KING, ORTHOGONAL  # noqa: F401 (the grid's step tables)

U64 = np.uint64


@dataclass(frozen=True)
class Grid:
    """Geometry of a ``rows x columns`` board with shift masks precomputed."""

    rows: int
    columns: int
    full: np.uint64 = field(init=False)
    _column_masks: tuple = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.rows * self.columns > 64:
            raise ValueError("a bitboard grid holds at most 64 cells")
        full = U64((1 << (self.rows * self.columns)) - 1) if self.rows * self.columns < 64 else U64(2**64 - 1)
        object.__setattr__(self, "full", full)
        # keep[dc]: cells whose column stays on the board after moving dc columns
        keep = {}
        for dc in range(-self.columns + 1, self.columns):
            bits = 0
            for r in range(self.rows):
                for c in range(self.columns):
                    if 0 <= c + dc < self.columns:
                        bits |= 1 << (r * self.columns + c)
            keep[dc] = U64(bits)
        object.__setattr__(self, "_column_masks", keep)

    @property
    def cells(self) -> int:
        return self.rows * self.columns

    def bit(self, row: int, col: int) -> np.uint64:
        return U64(1 << (row * self.columns + col))

    def mask_of(self, cells) -> np.uint64:
        """Bitboard of an iterable of ``(row, col)`` cells."""
        bits = 0
        for r, c in cells:
            bits |= 1 << (r * self.columns + c)
        return U64(bits)

    def shift(self, board: np.ndarray, dr: int, dc: int) -> np.ndarray:
        """Move every stone ``dr`` rows down and ``dc`` columns right; stones leaving the board vanish."""
        if abs(dc) >= self.columns or abs(dr) >= self.rows:
            return np.zeros_like(board)
        moved = board & self._column_masks[dc]
        offset = dr * self.columns + dc
        moved = moved << U64(offset) if offset >= 0 else moved >> U64(-offset)
        return moved & self.full

    def dilate(self, board: np.ndarray, directions=KING) -> np.ndarray:
        """``board`` plus every cell one step away in ``directions``."""
        if directions is KING:  # a row step then a column step: 4 shifts instead of 8
            wide = board | self.shift(board, 0, 1) | self.shift(board, 0, -1)
            return wide | self.shift(wide, 1, 0) | self.shift(wide, -1, 0)
        out = board.copy()
        for dr, dc in directions:
            out |= self.shift(board, dr, dc)
        return out

    def neighbours(self, board: np.ndarray, directions=KING) -> np.ndarray:
        """Cells one step from ``board`` in ``directions``, excluding ``board`` itself."""
        return self.dilate(board, directions) & ~board

    def flood(self, seed: np.ndarray, within: np.ndarray, directions=KING) -> np.ndarray:
        """Cells of ``within`` connected to ``seed & within`` by steps in ``directions``."""
        region = seed & within
        while True:
            grown = self.dilate(region, directions) & within
            if np.array_equal(grown, region):
                return region
            region = grown

    def connects(self, stones: np.ndarray, side_a: np.ndarray, side_b: np.ndarray, directions=KING) -> np.ndarray:
        """bool: do ``stones`` form a chain from a cell of ``side_a`` to a cell of ``side_b``?"""
        reached = self.flood(stones & side_a, stones, directions)
        return (reached & side_b) != 0

    def count_at_least(self, layers: list[np.ndarray], k: int) -> np.ndarray:
        """Cells set in at least ``k`` of the bitboards ``layers`` (bit-sliced counter)."""
        # at_least[j] holds cells seen in at least j+1 layers so far
        at_least = [np.zeros_like(layers[0]) for _ in range(k)]
        for layer in layers:
            for j in range(k - 1, 0, -1):
                at_least[j] |= at_least[j - 1] & layer
            at_least[0] |= layer
        return at_least[k - 1]

    def to_cells(self, board: np.ndarray) -> np.ndarray:
        """bool ``[..., cells]``: the bitboard expanded to one flag per cell."""
        shifts = np.arange(self.cells, dtype=np.uint64)
        return ((np.asarray(board)[..., None] >> shifts) & U64(1)).astype(bool)

    def from_cells(self, flags: np.ndarray) -> np.ndarray:
        """Inverse of :meth:`to_cells`."""
        weights = U64(1) << np.arange(self.cells, dtype=np.uint64)
        return np.bitwise_or.reduce(np.where(flags, weights, U64(0)), axis=-1)


def popcount(board: np.ndarray) -> np.ndarray:
    """Number of set bits of each element, as int64."""
    return np.bitwise_count(board).astype(np.int64)


def kth_set_bit(board: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Index of the ``k``-th (0-based) set bit of each element; undefined if ``k >= popcount``."""
    board = np.asarray(board, dtype=np.uint64)
    k = np.asarray(k, dtype=np.int64).copy()
    position = np.zeros(board.shape, dtype=np.int64)
    for width in (32, 16, 8, 4, 2, 1):
        low = (board >> position.astype(np.uint64)) & U64((1 << width) - 1)
        count = np.bitwise_count(low).astype(np.int64)
        upper = k >= count
        k -= np.where(upper, count, 0)
        position += np.where(upper, width, 0)
    return position


def lowest_bit_index(board: np.ndarray) -> np.ndarray:
    """Index of the lowest set bit (64 for an empty board)."""
    board = np.asarray(board, dtype=np.uint64)
    isolated = board & (~board + U64(1))
    return np.where(board == 0, 64, np.bitwise_count(isolated - U64(1)).astype(np.int64))
