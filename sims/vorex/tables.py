"""Vorex's precomputed tables: the board geometry and the per-tile tables of a config, built once.

:class:`Board` holds the hex geometry (neighbours with sentinel columns and the
per-placement tables the placement kernels of :mod:`sims.vorex.kernels` read);
:class:`TileTables` the tiles' shapes, hex kinds, costs, values and the
payment tables. The batched engine (:mod:`sims.vorex.rules`) builds both
once; nothing here changes during a game. The bit helpers pack and read the
bit sets these tables and the engine's kept arrays use.
"""

from __future__ import annotations

import numpy as np

from sims.vorex.config import ARID, DIRECTIONS, HEX_KINDS, POINTS, ROTATIONS, TILE_HEXES, VorexConfig, rotate
from sims.vorex.kernels import FIRST_PRODUCTION, LAST_PRODUCTION

# one in the lane of each resource (light, mushroom, water, insect) of a production word, as int16 counts in memory
PRODUCTION_LANES = np.array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1], dtype=np.int16).view(np.uint64)


def pack_bits(mask: np.ndarray) -> np.ndarray:
    """uint64 ``[n, ceil(K / 64)]`` from bool ``[n, K]``: bit j % 64 of word j // 64 is ``mask[:, j]``."""
    n, K = mask.shape
    packed = np.zeros((n, -(-K // 64) * 8), dtype=np.uint8)
    packed[:, :-(-K // 8)] = np.packbits(mask, axis=1, bitorder="little")
    return packed.view("<u8")


def unpack_words(words: np.ndarray, size: int) -> np.ndarray:
    """bool ``[..., size]`` from uint64 ``[..., k]``: bit j % 64 of word j // 64."""
    bits = np.unpackbits(np.ascontiguousarray(words).view(np.uint8), axis=-1, bitorder="little")
    return bits[..., :size].view(bool)


def nonzero2(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.nonzero`` of a 2-d mask (same pairs, same order), through the flat indices: several times faster."""
    return np.divmod(np.flatnonzero(mask), max(mask.shape[1], 1))


def count6(found: np.ndarray) -> np.ndarray:
    """int8 ``[m]``: the True entries of each row of bool ``[m, 6]`` (a row-wise sum, without numpy's slow reduction
    over a short axis)."""
    as_int = found.view(np.int8)
    return as_int[:, 0] + as_int[:, 1] + as_int[:, 2] + as_int[:, 3] + as_int[:, 4] + as_int[:, 5]


def production_totals(flower: np.ndarray, kind: np.ndarray, group: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """uint64 ``[n, H+2]``: the batched state's ``production`` of games ``rows`` (at each group label, the group's
    flowers on production stumps by resource, :data:`PRODUCTION_LANES`) computed from the flowers and groups."""
    W = flower.shape[1]
    i, h = nonzero2(flower[rows] >= 0)
    kinds = kind[rows[i], h].astype(np.int64)
    production = (kinds >= FIRST_PRODUCTION) & (kinds <= LAST_PRODUCTION)
    i, h, resource = i[production], h[production], kinds[production] - FIRST_PRODUCTION
    key = (i * W + group[rows[i], h].astype(np.int64)) * 4 + resource
    totals = np.bincount(key, minlength=rows.size * W * 4).astype(np.int16)
    return totals.view(np.uint64).reshape(rows.size, W)


def group_labels(flower: np.ndarray, neighbours_ext: np.ndarray) -> np.ndarray:
    """int ``[n, H+2]``: a group label per flower hex of ``flower`` ``[n, H+2]`` (the smallest hex of its 6-connected
    same-seat group), -1 elsewhere; ``neighbours_ext`` ``[H+2, 6]``."""
    big = 1 << 14
    label = np.where(flower >= 0, np.arange(flower.shape[1])[None, :], big)
    while True:
        around = np.where(flower[:, neighbours_ext] == flower[:, :, None], label[:, neighbours_ext], big).min(axis=2)
        new = np.where(flower >= 0, np.minimum(label, around), big)
        if (new == label).all():
            break
        label = new
    return np.where(flower >= 0, label, -1)


def _boundary_walk(cells: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The hexes facing each boundary edge of a tile, in cyclic order around it (repeats kept)."""
    members = set(cells)

    def step(c, d):
        return (c[0] + DIRECTIONS[d][0], c[1] + DIRECTIONS[d][1])

    edges = [(c, d) for c in cells for d in range(6) if step(c, d) not in members]
    start = edges[0]
    walk, current = [], start
    while True:
        cell, d = current
        walk.append(step(cell, d))
        turn = step(cell, (d + 1) % 6)
        current = (cell, (d + 1) % 6) if turn not in members else (turn, (d - 1) % 6)
        if current == start:
            break
    if len(walk) != len(edges):
        raise AssertionError("a tile's boundary is not a single cycle")
    return walk



class Board:
    """Geometry tables of a config: neighbours and the per-placement tables, with sentinel columns.

    Hex arrays of a game get two extra columns: ``OPEN`` (= H, an empty hex
    outside the window) and ``SHUT`` (= H + 1, a covered hex), so -1 entries
    of the tables index a harmless sentinel.
    """

    def __init__(self, config: VorexConfig):
        H, P = config.window, config.playable
        self.H, self.P, self.OPEN, self.SHUT = H, P, H, H + 1
        self.centre = config.centre
        nb = config.neighbours.astype(np.int64)
        self.neighbours = np.where(nb < 0, self.OPEN, nb)  # [H, 6]
        ext = np.full((H + 2, 6), self.OPEN, dtype=np.int64)
        ext[:H] = self.neighbours
        self.neighbours_ext = ext
        self.neighbours_by_direction = np.ascontiguousarray(self.neighbours.T)  # [6, H]
        self.playable_mask = np.zeros(H + 2, dtype=bool)
        self.playable_mask[:P] = True

        shapes = list(config.shapes.values())
        S, K = len(shapes), ROTATIONS
        cells = config.placement_cells.astype(np.int64).reshape(S, P * K, TILE_HEXES)
        self.cells = np.where(cells < 0, self.SHUT, cells)  # [S, P*6, 4]
        self.covers_centre = (cells == self.centre).any(axis=2)
        walks, distinct = {}, {}
        for s, offsets in enumerate(shapes):
            for k in range(K):
                rotated = [rotate(o, k) for o in offsets]
                walk = _boundary_walk(rotated)
                walks[s, k] = [hex_ for i, hex_ in enumerate(walk) if hex_ != walk[i - 1]]  # each visit once
                distinct[s, k] = sorted(set(walks[s, k]))
        L = max(len(w) for w in walks.values())
        M = max(len(d) for d in distinct.values())
        self.boundary = np.full((S, P * K, L), self.OPEN, dtype=np.int64)
        self.boundary_touch = np.zeros((S, K, L), dtype=np.int64)  # tile cells next to each boundary hex
        self.around = np.full((S, P * K, M), self.SHUT, dtype=np.int64)
        self.around_touch = np.full((S, P * K, M), -1, dtype=np.int8)  # tile cells next to each around hex
        # around_cell_bits[s, k, j]: bit i set iff tile hex i of rotation k touches around hex j (any anchor)
        self.around_cell_bits = np.zeros((S, K, M), dtype=np.uint8)
        for s, offsets in enumerate(shapes):
            for k in range(K):
                rotated = [rotate(o, k) for o in offsets]
                for j, (hq, hr) in enumerate(distinct[s, k]):
                    self.around_cell_bits[s, k, j] = sum(1 << i for i, (cq, cr) in enumerate(rotated)
                                                         if (hq - cq, hr - cr) in DIRECTIONS)
        number = config.hex_number
        for s, offsets in enumerate(shapes):
            for k in range(K):
                rotated = [rotate(o, k) for o in offsets]
                walk, near = walks[s, k], distinct[s, k]
                walk = walk + [walk[-1]] * (L - len(walk))  # a repeat changes nothing
                self.boundary_touch[s, k] = [sum((hq + eq, hr + er) in rotated for eq, er in DIRECTIONS)
                                             for hq, hr in walk]
                for a in range(P):
                    q, r = config.hex_coords[a]
                    p = a * K + k
                    if (cells[s, p] < 0).any():
                        continue
                    tile_hexes = {(q + dq, r + dr) for dq, dr in rotated}
                    self.boundary[s, p] = [number.get((q + dq, r + dr), self.OPEN) for dq, dr in walk]
                    for j, (dq, dr) in enumerate(near):
                        hq, hr = q + dq, r + dr
                        self.around[s, p, j] = number.get((hq, hr), self.OPEN)
                        self.around_touch[s, p, j] = sum((hq + eq, hr + er) in tile_hexes for eq, er in DIRECTIONS)
        # around_nb[s, p]: the 6 neighbours of each around hex of placement p, flat [M * 6] (int16)
        self.around_nb = self.neighbours_ext[self.around].reshape(S, P * K, M * 6).astype(np.int16)
        self.place_rows = -(-self.cells.shape[1] // 64) * 64  # placements, padded to whole words
        self._grid(config, shapes, [[walks[s, k] + [walks[s, k][-1]] * (L - len(walks[s, k])) for k in range(K)]
                                     for s in range(S)])
        # around_shift[s, k, j]: the grid shift of around hex j of rotation k from the anchor, as in around[s, p, j];
        # around_touches[s, k, j]: the tile cells next to it (0: no hex j)
        self.around_shift = np.zeros((S, K, M), dtype=np.int64)
        self.around_touches = np.zeros((S, K, M), dtype=np.int64)
        for s, offsets in enumerate(shapes):
            for k in range(K):
                rotated = [rotate(o, k) for o in offsets]
                for j, (dq, dr) in enumerate(distinct[s, k]):
                    self.around_shift[s, k, j] = dr * self.grid_cols + dq
                    self.around_touches[s, k, j] = sum((dq + eq, dr + er) in rotated for eq, er in DIRECTIONS)
        # the cell shifts, then the symmetric rotations' columns (in one array: the kernels are passed fewer)
        self.shifts = np.concatenate([self.cell_shift, self.same_rotation[:, :, None], self.same_shift[:, :, None]],
                                     axis=2)
        # what the placement kernels read: playable hexes, neighbours, cells, boundary walks and their touches,
        # the placements covering the centre and the grid (_grid, _lanes)
        self.place_tables = (P, self.neighbours_ext, self.cells, self.boundary, self.boundary_touch,
                             self.covers_centre, self.grid_hex, self.hex_grid, self.shifts, self.boundary_shift,
                             self.playable_lanes, self.direction_shift)

    def _grid(self, config: VorexConfig, shapes: list, walks: list) -> None:
        """The window on a rectangle of axial coordinates, each row padded on one side by as many columns as a
        tile's cells reach across from its anchor, so each cell and boundary hex of a (shape, rotation) is a fixed
        shift of grid positions from its anchor (a cell off the window lands on a padding column, never on another
        row's hex; a placement on the playable hexes has its boundary on the window): ``grid_hex [G]`` (the hex at
        each position, -1 outside the window), ``hex_grid [H+2]`` (each hex's position; sentinels -1),
        ``cell_shift [shapes, 6, 4]`` and ``boundary_shift [shapes, 6, L]`` (``walks [s][k]``: the boundary walk's
        hexes relative to the anchor, as ``boundary``)."""
        rotated = [[rotate(o, k) for o in offsets] for offsets in shapes for k in range(ROTATIONS)]
        reach = max(abs(dq) for cells in rotated for dq, _ in cells)
        qs, rs = zip(*config.hex_coords)
        cols = max(qs) - min(qs) + 1 + reach
        self.grid_cols = cols
        rows = max(rs) - min(rs) + 1
        self.grid_hex = np.full(rows * cols, -1, dtype=np.int64)
        self.hex_grid = np.full(self.H + 2, -1, dtype=np.int64)
        for h, (q, r) in enumerate(config.hex_coords):
            position = (r - min(rs)) * cols + q - min(qs) + reach
            self.grid_hex[position] = h
            self.hex_grid[h] = position

        def hex_at(positions: np.ndarray) -> np.ndarray:
            inside = (positions >= 0) & (positions < self.grid_hex.size)
            return np.where(inside, self.grid_hex[np.where(inside, positions, 0)], -1)

        self.cell_shift = np.array([[dr * cols + dq for dq, dr in cells] for cells in rotated],
                                   dtype=np.int64).reshape(len(shapes), ROTATIONS, TILE_HEXES)
        self.boundary_shift = np.array([[[dr * cols + dq for dq, dr in walk] for walk in by_shape]
                                        for by_shape in walks], dtype=np.int64)
        placed = self.boundary.reshape(len(shapes), self.P, ROTATIONS, -1).transpose(1, 0, 2, 3)
        found = hex_at(self.hex_grid[:self.P, None, None, None] + self.boundary_shift[None])
        valid = (self.cells.reshape(len(shapes), self.P, ROTATIONS, TILE_HEXES).transpose(1, 0, 2, 3)
                 < self.SHUT).all(axis=3)
        if not (np.where(found < 0, self.OPEN, found) == placed)[valid].all():
            raise AssertionError("grid shifts disagree with the boundary walks")
        # the shifts name the placement tables' cells wherever a placement lies on the playable hexes
        anchors = self.hex_grid[:self.P, None, None, None] + self.cell_shift[None]  # [P, S, K, 4]
        on_grid = hex_at(anchors)
        tables = self.cells.reshape(len(shapes), self.P, ROTATIONS, TILE_HEXES).transpose(1, 0, 2, 3)
        playable = (tables < self.P).all(axis=3)
        if (np.diff(self.hex_grid[:self.P]) <= 0).any():
            raise AssertionError("playable hexes are numbered row by row")  # the kernels scan hex_grid[0] to [P-1]
        on_playable = ((on_grid >= 0) & (on_grid < self.P)).all(axis=3)
        if not (on_grid == tables)[playable].all() or on_playable[~playable].any():
            raise AssertionError("grid shifts disagree with the placement tables")
        self._same_rotations(tables, playable)
        self._lanes()

    def _same_rotations(self, tables: np.ndarray, playable: np.ndarray) -> None:
        """A shape's rotation that covers the same hexes as an earlier one from another anchor (a symmetric shape):
        ``same_rotation [shapes, 6]`` (that earlier rotation, -1: none) and ``same_shift [shapes, 6]`` (the grid
        shift from an anchor to the earlier rotation's anchor), so its placements are legal where the earlier
        rotation's are, read shifted. Only where the anchor is one of the tile's cells (then each of the two
        placements lies on the playable hexes exactly when the other does: ``tables [P, shapes, 6, 4]`` and
        ``playable`` from :meth:`_grid`, checked)."""
        shapes = self.cell_shift.shape[0]
        self.same_rotation = np.full((shapes, ROTATIONS), -1, dtype=np.int64)
        self.same_shift = np.zeros((shapes, ROTATIONS), dtype=np.int64)
        for s in range(shapes):
            if not (self.cell_shift[s] == 0).any(axis=1).all():
                continue
            for k in range(ROTATIONS):
                for k0 in range(k):
                    d = self.cell_shift[s, k].min() - self.cell_shift[s, k0].min()
                    if sorted(self.cell_shift[s, k]) == sorted(self.cell_shift[s, k0] + d):
                        self.same_rotation[s, k], self.same_shift[s, k] = k0, d
                        break
        for s, k in zip(*np.nonzero(self.same_rotation >= 0)):
            k0 = self.same_rotation[s, k]
            moved = self.grid_hex[self.hex_grid[:self.P] + self.same_shift[s, k]]  # the earlier rotation's anchors
            anchor = (moved >= 0) & (moved < self.P)
            if not np.array_equal(playable[:, s, k], anchor & playable[np.where(anchor, moved, 0), s, k0]):
                raise AssertionError("a symmetric rotation's placements disagree with the placement tables")
            on = np.nonzero(playable[:, s, k])[0]
            if not np.array_equal(np.sort(tables[on, s, k], axis=1), np.sort(tables[moved[on], s, k0], axis=1)):
                raise AssertionError("a symmetric rotation covers other hexes than the placement tables say")

    def _lanes(self) -> None:
        """The grid as bitboards padded by zero words, so a word read any cell or boundary shift away stays in the
        array: ``playable_lanes`` (bit x % 64 of word pad + x // 64 for grid position x: a playable hex; pad:
        the words before the grid, as many after it) and ``direction_shift [6]`` (a neighbour's grid shift)."""
        words = -(-self.grid_hex.size // 64)
        pad = max(np.abs(self.boundary_shift).max(), np.abs(self.cell_shift).max(), np.abs(self.same_shift).max()) // 64 + 2
        self.playable_lanes = np.zeros(words + 2 * pad, dtype=np.uint64)
        x = self.hex_grid[:self.P]
        np.bitwise_or.at(self.playable_lanes, pad + x // 64, np.left_shift(np.uint64(1), (x % 64).astype(np.uint64)))
        self.direction_shift = np.array([dr * self.grid_cols + dq for dq, dr in DIRECTIONS], dtype=np.int64)


class TileTables:
    """The tiles' tables of a config: shape, hex kinds, costs, values, beetles, level and stumps of each
    tile, each cell's aridity as bits and the stump category of each hex kind."""

    def __init__(self, config: VorexConfig):
        self.tile_shape = config.tile_shape.astype(np.int64)
        self.tile_kind = config.tile_hex_kind.astype(np.int8)
        self.tile_cost = config.tile_hex_cost.astype(np.int16)
        self.tile_value = config.tile_hex_value.astype(np.int16)
        self.tile_beetles = config.tile_beetles.astype(np.int16)
        self.tile_level = config.tile_level.astype(np.int64)
        self.tile_count = len(config.tiles)
        self.tile_stumps = (self.tile_kind > ARID).sum(axis=1).astype(np.int64)  # stumps of each tile
        self.arid_cells = ((self.tile_kind == ARID) @ (1 << np.arange(TILE_HEXES))).astype(np.int64)  # bit c: cell c
        # A hex's stump category: 0 none/arid, 1 production, 2 action, 3 points (index by kind + 1).
        category = np.zeros(len(HEX_KINDS) + 1, dtype=np.int8)
        for kind, name in enumerate(HEX_KINDS):
            category[kind + 1] = (1 if FIRST_PRODUCTION <= kind <= LAST_PRODUCTION else
                                  2 if name in ("bloom", "draw", "expand") else 3 if kind == POINTS else 0)
        self.category = category
