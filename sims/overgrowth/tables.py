"""Overgrowth's precomputed geometry: masks, placements and the track of one config, built once.

:class:`Geometry` holds the config's tables as numpy values (the batched
engine and its events read them); :class:`Tables` is the same as plain arrays
of fixed dtypes and numbers, what the compiled kernels of ``kernels.py`` take.
Bit ``row * columns + col`` of a uint64 is a cell, as everywhere in the game.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sims.core.grid import KING, ORTHOGONAL, Grid
from sims.overgrowth.config import ACTION_KINDS, OvergrowthConfig

U64 = np.uint64


class Geometry:
    """Tables computed once per config (rules §1.1 board, §1.2 shaded areas, §1.4 track, §4 placements)."""

    def __init__(self, config: OvergrowthConfig):
        self.config = config
        self.grid = Grid(config.rows, config.columns)
        self.cells = config.cells
        self.placements = config.placements
        self.area = np.array([self.grid.mask_of(divmod(c, config.columns) for c in cells)
                              for cells in config.shaded], dtype=np.uint64)
        bits = np.zeros(self.placements, dtype=np.uint64)
        for p in range(self.placements):
            for cell in config.placement_cells(p):
                bits[p] |= U64(1) << U64(cell)
        self.placement_bits = bits
        self.placement_size = np.array([len(config.placement_cells(p)) for p in range(self.placements)])
        self.pair_of_left_cell = np.full(self.cells, -1, dtype=np.int64)
        for row in range(config.rows):
            for col in range(config.columns - 1):
                self.pair_of_left_cell[row * config.columns + col] = config.pair_placement(row, col)
        self.not_last_column = self.grid.mask_of(
            (r, c) for r in range(config.rows) for c in range(config.columns - 1))
        self.track_kind = np.array([ACTION_KINDS.index(k) for k in config.track], dtype=np.int8)
        self.moves = np.array(config.moves, dtype=np.int64)
        self.slots = len(config.moves) + 1
        track = len(config.track)
        # bit kind of reach[i, j]: a move of the marker on space i lands on that kind, the other marker on j
        self.reach = np.zeros((track, track), dtype=np.int64)
        for i in range(track):
            for j in range(track):
                for steps in config.moves:
                    if (i + steps) % track != j:
                        self.reach[i, j] |= 1 << int(self.track_kind[(i + steps) % track])
        self.connection = ORTHOGONAL if config.orthogonal_connection else KING
        self.cast_offsets = [(dr * config.cast_distance, dc * config.cast_distance) for dr, dc in KING]
        self.far = self.cells + 1

    def pairs_in_one_area(self) -> np.uint64:
        """Left cells of pairs whose both cells lie in the same shaded area."""
        both = U64(0)
        for area in self.area:
            both |= area & (area >> U64(1)) & self.not_last_column
        return both


class Tables(NamedTuple):
    """What the kernels need of an Overgrowth config, as numpy arrays and numbers."""

    # uint64: full board, cells that may step right, may step left, areas 0 and 1, columns (a shift),
    # cells not in the last column, left cells of pairs inside one area
    boards: np.ndarray
    side_cells: np.ndarray  # uint64 [4]: per orthogonal step, the cells that may take it
    side_shifts: np.ndarray  # int64 [4]: and the bit shift it is (negative: right)
    cast_cells: np.ndarray  # uint64 [8]: the same for each cast step (no cells if it leaves the board)
    cast_shifts: np.ndarray  # int64 [8]
    moves: np.ndarray  # int64 [slots - 1]
    track_kind: np.ndarray  # int64 [track spaces]: kind code of each space
    reach: np.ndarray  # int64 [track spaces, track spaces]: the kinds (bits) a move from space i lands on, other on j
    placement_bits: np.ndarray  # uint64 [placements]
    placement_size: np.ndarray  # int64 [placements]
    pair_of_left_cell: np.ndarray  # int64 [cells]: pair placement with that left cell, -1 in the last column
    overgrow_sides: int
    king: bool  # connection by the 8 neighbours (else the 4 orthogonal ones)
    far: int  # the distance of an impossible connection
    pass_action: int


def _steps(grid, steps) -> tuple[np.ndarray, np.ndarray]:
    """For each ``(dr, dc)`` step of ``Grid.shift``: the cells whose column stays on the board, and the shift."""
    cells = [grid.shift(grid.full, 0, -dc) if abs(dr) < grid.rows else 0 for dr, dc in steps]
    return (np.array(cells, dtype=np.uint64), np.array([dr * grid.columns + dc for dr, dc in steps], dtype=np.int64))


def make_tables(geo: Geometry) -> Tables:
    """:class:`Tables` of a :class:`Geometry`."""
    grid = geo.grid
    boards = np.array([grid.full, grid.shift(grid.full, 0, -1), grid.shift(grid.full, 0, 1), geo.area[0],
                       geo.area[1], grid.columns, geo.not_last_column, geo.pairs_in_one_area()], dtype=np.uint64)
    return Tables(
        boards=boards,
        side_cells=_steps(grid, ORTHOGONAL)[0],
        side_shifts=_steps(grid, ORTHOGONAL)[1],
        cast_cells=_steps(grid, geo.cast_offsets)[0],
        cast_shifts=_steps(grid, geo.cast_offsets)[1],
        moves=np.ascontiguousarray(geo.moves, dtype=np.int64),
        track_kind=np.ascontiguousarray(geo.track_kind, dtype=np.int64),
        reach=np.ascontiguousarray(geo.reach, dtype=np.int64),
        placement_bits=np.ascontiguousarray(geo.placement_bits, dtype=np.uint64),
        placement_size=np.ascontiguousarray(geo.placement_size, dtype=np.int64),
        pair_of_left_cell=np.ascontiguousarray(geo.pair_of_left_cell, dtype=np.int64),
        overgrow_sides=int(geo.config.overgrow_sides),
        king=geo.connection is KING,
        far=int(geo.far),
        pass_action=int(geo.config.pass_action),
    )
