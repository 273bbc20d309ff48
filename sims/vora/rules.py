"""Vora, batched: N games as per-kind bitboards, advanced with numpy.

Meadow layout (default 5x5), bit ``row * N + col``; sides ``N=0, E=1, S=2, W=3``::

                  N (side 0)
              0   1   2   3   4
    W         5   6   7   8   9      E
    (side 3) 10  11  12  13  14  (side 1)
             15  16  17  18  19
             20  21  22  23  24
                  S (side 2)

``state.meadow[g, k]`` is the bitboard of the cells of game ``g`` holding a
cube of kind ``k`` (uint32 when the meadow has at most 32 cells, else uint64:
``Geometry.board``; flag words of legal actions are always uint64); the
kinds' boards never overlap and an empty cell is in none of them. The array
is stored kind-major (Fortran order), and the pure functions below take its
transpose ``kinds[k, g]``: a reduction over the kinds then runs over
contiguous rows, which numpy does about eight times faster
(subsets of games are taken with ``kinds.take(rows, axis=1)``, which keeps
that layout; ``kinds[:, rows]`` would not). Farms are counts
``farms[g, seat, kind]``; the bag is the setup shuffle as kinds in draw order
(``bag[g, i]``) with a pointer to the next cube.

Every main action is one row of per-action tables (``Geometry._action_tables``):
a line shift for pushes, then two bit toggles, the farm cube spent and gained,
the fall side and the seat that takes a fallen cube; so a batch of mixed
actions is applied with the same dozen array operations.

A step applies one decision and then resolves everything that needs no
decision (collections, falls, cascades, refill and the next seat), stopping at
the next decision. The resolution is a loop over *stages* of the games still
resolving (COMBOS -> FALL -> COLLECT -> ... -> END), each stage run on the
subset of games in it, until every game waits for a decision or has finished
its turn. Rules follow ``sims/vora/config.py``'s docstring; the pure functions
below (``apply_main``, ``formations``, ``has_formation``, ``fall``) work on any
number of meadows so bots reuse them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sims.core.engine import BatchedEngine, BatchedState, GameResults, Trace
from sims.core.rng import shuffle_order
from sims.vora.config import (
    ACTION_SPECIALS,
    BLOCKS,
    DIRECTIONS,
    MAX_PLAYERS,
    OPPOSITE,
    PHASES,
    SIDES,
    VoraConfig,
)

U64 = np.uint64
ONE = U64(1)
ZERO = U64(0)
END_REASONS = ("", "bag_empty", "stall")
MAIN, RECIPIENT, EXTRA, BIG = range(4)
# Block codes, in action-number order (config.BLOCKS).
PUSH, DOUBLE, DEVOUR, WOLF, PICK_UP, FLY_SWAP, DIG, RECIPIENT_BLOCK, PICK, STEAL = range(len(BLOCKS))
# Resolution stages of a game inside one step (never stored between steps).
DONE, COLLECT, COMBOS, FALL, FALL_THEN_END, END = range(6)
# Per-seat counters reported as record columns (the reference's names).
STAT_NAMES = ("collected", "extras", "bigs", "picks", "steals", "stolen", "pushes", "received") + tuple(
    f"special_{name}" for name in ACTION_SPECIALS)
(COLLECTED, EXTRAS, BIGS, PICKS, STEALS, STOLEN, PUSHES, RECEIVED, SP_DOUBLE, SP_DEVOUR, SP_WOLF, SP_PICK_UP,
 SP_FLY_SWAP, SP_DIG) = range(len(STAT_NAMES))


# Rows of Geometry.act_int and Geometry.act_word.
(ACT_PROBE, ACT_FAR2, ACT_T1_KIND, ACT_SPEND, ACT_GAIN_PROBE, ACT_GAIN_FIXED, ACT_TAKER, ACT_ASKS, ACT_STAGE,
 ACT_FALL_SIDE, ACT_WOLF_CELL, ACT_STAT, ACT_BLOCK, ACT_IS_PUSH) = range(14)
WORD_LINEMASK, WORD_KEEP, WORD_LEFT, WORD_RIGHT, WORD_T1_BITS, WORD_T2_BITS = range(6)


def columns(kinds: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``kinds[:, rows]`` of kind-major meadows ``[K, B]`` (``rows`` ascending, no repeats): no copy if all."""
    return kinds if rows.size == kinds.shape[1] else kinds.take(rows, axis=1)


def store(kinds: np.ndarray, rows: np.ndarray, values: np.ndarray) -> None:
    """``kinds[:, rows] = values`` for ascending ``rows`` without repeats."""
    if rows.size == kinds.shape[1]:
        np.copyto(kinds, values)
    else:  # kind by kind: numpy's one-index assignment is about three times faster than kinds[:, rows]
        for kind in range(kinds.shape[0]):
            kinds[kind][rows] = values[kind]


def flat(array: np.ndarray) -> np.ndarray:
    """A 1-D view of a contiguous array (writes go to the array; raises rather than copy)."""
    return np.reshape(array, -1, copy=False)


def _bits(cells) -> np.uint64:
    value = 0
    for cell in cells:
        value |= 1 << int(cell)
    return U64(value)


def popcount(board: np.ndarray) -> np.ndarray:
    return np.bitwise_count(board)


class Geometry:
    """Tables computed once per config and player count: lines, shifts, masks, action groups.

    A *line* ``sl = side * N + line`` is entered from ``side``; its cells are
    listed from that side's edge inwards (``line_cells[sl, 0]`` is the edge
    cell). Legal actions are gathered in *groups* of at most 64 consecutive
    action numbers, one uint64 of flags each, in ascending action order::

        group                 count  first action             flag bit
        push of kind k        K      push + k*4N              side*N + line
        double                1      double                   side*N + line
        devour                1      devour                   cell
        wolf                  1      wolf                     side*N + line
        pick_up               1      pick_up                  cell
        fly_swap from duck d  C      fly_swap + d*C           target cell
        dig from mole m       C      dig + m*8                direction
        recipient             1      recipient                seat
        pick                  1      pick                     cell
        steal                 1      steal                    seat*K + kind
    """

    def __init__(self, config: VoraConfig, players: int):
        if players not in config.seats:
            raise ValueError(f"Vora's config has no seats for {players} players")
        n, c, k = config.size, config.cells, config.num_kinds
        self.config, self.players = config, players
        self.n, self.c, self.k = n, c, k
        # meadow bitboards: half the memory traffic in uint32 when the cells fit
        board = np.uint32 if c <= 32 else np.uint64
        self.board = board
        self.full = board((1 << c) - 1)
        self.cell_bit = (ONE << np.arange(c, dtype=np.uint64)).astype(board)
        row, col = np.divmod(np.arange(c), n)
        self.not_last_col = board(_bits(np.nonzero(col < n - 1)[0]))
        self.not_first_col = board(_bits(np.nonzero(col > 0)[0]))

        # lines entered from a side, cells from the edge inwards
        lines = 4 * n
        self.lines = lines
        line_cells = np.zeros((lines, n), dtype=np.int64)
        for side in range(4):
            for line in range(n):
                for i in range(n):
                    r, q = {0: (i, line), 1: (line, n - 1 - i), 2: (n - 1 - i, line), 3: (line, i)}[side]
                    line_cells[side * n + line, i] = r * n + q
        self.line_cells = line_cells
        self.line_side = np.repeat(np.arange(4), n)
        self.line_mask = np.array([_bits(cells) for cells in line_cells], dtype=board)
        self.edge_cell = line_cells[:, 0]
        self.edge_bit = self.cell_bit[line_cells[:, 0]]
        self.second_bit = self.cell_bit[line_cells[:, 1]]
        self.far_cell = line_cells[:, n - 1]
        self.far2_cell = line_cells[:, n - 2]
        self.far_bit = self.cell_bit[self.far_cell]
        self.far2_bit = self.cell_bit[self.far2_cell]
        # one step away from the entry side as (left shift, right shift): N +n, E -1, S -n, W +1
        away = {0: (n, 0), 1: (0, 1), 2: (0, n), 3: (1, 0)}
        self.away_left = np.array([away[self.line_side[sl]][0] for sl in range(lines)], dtype=board)
        self.away_right = np.array([away[self.line_side[sl]][1] for sl in range(lines)], dtype=board)
        # one step towards a fall side f, and the cells that can take that step
        towards = {0: (0, n), 1: (1, 0), 2: (n, 0), 3: (0, 1)}
        self.fall_left = np.array([towards[f][0] for f in range(4)], dtype=board)
        self.fall_right = np.array([towards[f][1] for f in range(4)], dtype=board)
        self.fall_canmove = np.array([_bits(np.nonzero(row > 0)[0]), _bits(np.nonzero(col < n - 1)[0]),
                                      _bits(np.nonzero(row < n - 1)[0]), _bits(np.nonzero(col > 0)[0])],
                                     dtype=board)
        # runs: cells where a run of min_line may start, per direction
        length = config.min_line
        self.run_length = length
        self.h_start = board(_bits(np.nonzero(col <= n - length)[0]))
        self.v_start = board(_bits(np.nonzero(row <= n - length)[0]))

        # seats and sides
        self.seat_side = np.array(config.seats[players], dtype=np.int64)
        self.side_seat = np.full(4, -1, dtype=np.int64)
        for seat, side in enumerate(self.seat_side):
            self.side_seat[side] = seat
        self.opposite = np.array(OPPOSITE, dtype=np.int64)
        # pushes whose cubes fall on the pusher's own side or an unseated side (always allowed, forbidden rule)
        all_lines = (1 << lines) - 1
        self.all_lines = U64(all_lines)
        safe = []
        for seat in range(players):
            bits = 0
            for sl in range(lines):
                fall_side = OPPOSITE[self.line_side[sl]]
                if fall_side == self.seat_side[seat] or self.side_seat[fall_side] < 0:
                    bits |= 1 << sl
            safe.append(bits)
        self.safe_lines = np.array(safe, dtype=np.uint64)
        # the other lines, which need a collection to be pushed with a last cube: as many for every seat
        self.unsafe_lines = np.array([[sl for sl in range(lines) if not bits >> sl & 1] for bits in safe],
                                     dtype=np.int64).reshape(players, -1)
        self.all_seats = U64((1 << players) - 1)

        # dig: neighbour of each cell in each direction (-1 off the meadow), and the valid directions
        self.dig_target = np.full((c, 8), -1, dtype=np.int64)
        dig_dirs = np.zeros(c, dtype=np.uint64)
        for cell in range(c):
            for d, (dr, dc) in enumerate(DIRECTIONS):
                r, q = row[cell] + dr, col[cell] + dc
                if 0 <= r < n and 0 <= q < n:
                    self.dig_target[cell, d] = r * n + q
                    dig_dirs[cell] |= ONE << U64(d)
        self.dig_dirs = dig_dirs

        # kinds and specials
        self.kind_count = np.array([kind.count for kind in config.kinds], dtype=np.int64)
        self.animal = np.array([kind.animal for kind in config.kinds], dtype=bool)
        self.pig = config.kind_with("double_push")
        self.crow = config.kind_with("devour")
        self.wolf = config.kind_with("wolf")
        self.ladybug = config.kind_with("pick_up")
        self.duck = config.kind_with("fly_swap")
        self.mole = config.kind_with("dig")
        self.grazer = config.kind_with("grazer")
        self.liquid = config.kind_with("liquid")
        self.pasture = config.kind_with("pasture")
        self.total = config.total_cubes
        self.cube_kind = np.array(config.cube_kinds(), dtype=np.int8)
        # family score of a count, for every count a farm can hold
        top = int(self.kind_count.max()) + 1
        score = np.zeros(top + 1, dtype=np.float64)
        for count in range(top + 1):
            for threshold, points in zip(config.thresholds, config.points):
                if count >= threshold:
                    score[count] = points
        self.count_score = score

        # action groups
        offsets = config.offsets
        self.offsets = offsets
        self.block_starts = np.array([offsets[b] for b in BLOCKS], dtype=np.int64)
        self.g_push = 0
        self.g_double = k
        self.g_devour = k + 1
        self.g_wolf = k + 2
        self.g_pick_up = k + 3
        self.g_fly = k + 4
        self.g_dig = k + 4 + c
        self.g_recipient = k + 4 + 2 * c
        self.g_pick = self.g_recipient + 1
        self.g_steal = self.g_recipient + 2
        self.groups = self.g_steal + 1
        base = np.zeros(self.groups, dtype=np.int64)
        width = np.zeros(self.groups, dtype=np.int64)
        base[:k] = offsets["push"] + np.arange(k) * lines
        width[:k] = lines
        base[self.g_double], width[self.g_double] = offsets["double"], lines
        base[self.g_devour], width[self.g_devour] = offsets["devour"], c
        base[self.g_wolf], width[self.g_wolf] = offsets["wolf"], lines
        base[self.g_pick_up], width[self.g_pick_up] = offsets["pick_up"], c
        base[self.g_fly:self.g_fly + c] = offsets["fly_swap"] + np.arange(c) * c
        width[self.g_fly:self.g_fly + c] = c
        base[self.g_dig:self.g_dig + c] = offsets["dig"] + np.arange(c) * 8
        width[self.g_dig:self.g_dig + c] = 8
        base[self.g_recipient], width[self.g_recipient] = offsets["recipient"], MAX_PLAYERS
        base[self.g_pick], width[self.g_pick] = offsets["pick"], c
        base[self.g_steal], width[self.g_steal] = offsets["steal"], MAX_PLAYERS * k
        self.group_base, self.group_width = base, width
        self.flag_shifts = np.arange(int(width.max()), dtype=np.uint64)  # the bits a group's word may hold
        self.action_block = np.searchsorted(self.block_starts, np.arange(config.num_actions), side="right") - 1
        # steal flags of each seat's farm kinds: bit seat*K + kind
        self.steal_shift = (np.arange(MAX_PLAYERS)[:, None] * k + np.arange(k)[None, :]).astype(np.uint64)
        self.kind_bit = ONE << np.arange(k, dtype=np.uint64)
        self.kind_weights = (1 << np.arange(k)).astype(np.float32)  # farm kinds present -> bits, by a product
        self.ones_k = np.ones(k, dtype=np.float32)  # farm totals, by a product
        # cells by number of dig directions (corner 3, side 5, inside 8), and edge cells by lines (corners: 2)
        dig_count = np.bitwise_count(dig_dirs).astype(np.int64)
        self.dig_count = dig_count
        # digs of the moles in one meadow row, by row and row pattern (bit q: a mole on column q): how many,
        # and the j-th of them as dig code cell * 8 + direction, moles in column order, directions ascending
        self.dig_row_total = np.zeros((n, 1 << n), dtype=np.int64)
        self.dig_row_code = np.zeros((n, 1 << n, 8 * n), dtype=np.int64)
        for r in range(n):
            for pattern in range(1 << n):
                codes = [(r * n + q) * 8 + d for q in range(n) if pattern >> q & 1
                         for d in range(8) if self.dig_target[r * n + q, d] >= 0]
                self.dig_row_total[r, pattern] = len(codes)
                self.dig_row_code[r, pattern, :len(codes)] = codes
        self.row_shift = (np.arange(n) * n).astype(board)
        self.dig_row_first = np.arange(n) << n  # row r's first entry in the tables, flattened
        self.dig_classes = [(int(count), board(_bits(np.nonzero(dig_count == count)[0])))
                            for count in np.unique(dig_count)]
        edge_lines = np.bincount(self.edge_cell, minlength=c)
        self.border = board(_bits(np.nonzero(edge_lines >= 1)[0]))
        self.corners = board(_bits(np.nonzero(edge_lines >= 2)[0]))
        self.animal_kinds = np.nonzero(self.animal)[0]
        self.plant_kinds = np.nonzero(~self.animal)[0]
        self._action_tables(offsets)
        # first action and stride of the first field of each main block (push: kind, fly_swap: duck)
        self.main_block_base = np.array([offsets[b] for b in BLOCKS[:DIG + 1]], dtype=np.int64)
        self.main_block_stride = np.array([lines, 1, 1, 1, 1, c, 8], dtype=np.int64)

    def _action_tables(self, offsets) -> None:
        """Per main action: what it does to the meadow and the farms (see :func:`apply_main`)."""
        c, lines = self.c, self.lines
        count = offsets["recipient"]
        self.main_actions = count
        block = np.searchsorted(self.block_starts, np.arange(count), side="right") - 1
        within = np.arange(count) - self.block_starts[block]
        self.act_block = block
        line = np.zeros(count, dtype=np.int64)
        board = self.board
        keep = np.zeros(count, dtype=board)
        linemask = np.zeros(count, dtype=board)
        left = np.zeros(count, dtype=board)
        right = np.zeros(count, dtype=board)
        t1_kind = np.zeros(count, dtype=np.int64)
        t1_bits = np.zeros(count, dtype=board)
        t2_bits = np.zeros(count, dtype=board)
        probe = np.zeros(count, dtype=np.int64)
        far2 = np.full(count, -1, dtype=np.int64)
        spend = np.full(count, -1, dtype=np.int64)
        gain_probe = np.zeros(count, dtype=bool)
        gain_fixed = np.full(count, -1, dtype=np.int64)
        fall_side = np.full(count, -1, dtype=np.int64)
        stage = np.full(count, COLLECT, dtype=np.int8)
        stat = np.zeros(count, dtype=np.int64)
        wolf_cell = np.full(count, -1, dtype=np.int64)
        for a in range(count):
            b, w = int(block[a]), int(within[a])
            if b in (PUSH, DOUBLE):
                kind, sl = divmod(w, lines) if b == PUSH else (self.pig, w)
                steps = 1 if b == PUSH else 2
                line[a] = sl
                linemask[a] = self.line_mask[sl]
                keep[a] = self.line_mask[sl] & ~self.far_bit[sl] & ~(self.far2_bit[sl] if steps == 2 else board(0))
                left[a] = self.away_left[sl] * board(steps)
                right[a] = self.away_right[sl] * board(steps)
                t1_kind[a] = kind
                t1_bits[a] = self.edge_bit[sl] if steps == 1 else self.second_bit[sl]
                probe[a] = self.far_cell[sl]
                far2[a] = self.far2_cell[sl] if steps == 2 else -1
                spend[a] = kind
                fall_side[a] = OPPOSITE[self.line_side[sl]]
                stat[a] = PUSHES if b == PUSH else SP_DOUBLE
            elif b in (DEVOUR, WOLF):
                cell = w if b == DEVOUR else int(self.edge_cell[w])
                hunter = self.crow if b == DEVOUR else self.wolf
                t1_kind[a], t1_bits[a] = hunter, self.cell_bit[cell]
                probe[a], t2_bits[a] = cell, self.cell_bit[cell]
                spend[a], gain_probe[a] = hunter, True
                if b == WOLF:
                    fall_side[a] = OPPOSITE[self.line_side[w]]
                    wolf_cell[a] = cell
                stat[a] = SP_DEVOUR if b == DEVOUR else SP_WOLF
            elif b == PICK_UP:
                t1_kind[a], t1_bits[a] = self.ladybug, self.cell_bit[w]
                probe[a] = w
                gain_fixed[a] = self.ladybug
                stage[a] = FALL_THEN_END
                stat[a] = SP_PICK_UP
            else:
                if b == FLY_SWAP:
                    cell, target = divmod(w, c)
                    mover, stat[a] = self.duck, SP_FLY_SWAP
                else:
                    cell, direction = divmod(w, 8)
                    target = max(int(self.dig_target[cell, direction]), 0)
                    mover, stat[a] = self.mole, SP_DIG
                both = self.cell_bit[cell] | self.cell_bit[target]
                t1_kind[a], t1_bits[a] = mover, both
                probe[a], t2_bits[a] = target, both
        self.act_line, self.act_keep, self.act_linemask = line, keep, linemask
        self.act_left, self.act_right = left, right
        self.act_t1_kind, self.act_t1_bits, self.act_t2_bits = np.maximum(t1_kind, 0), t1_bits, t2_bits
        self.act_probe, self.act_far2 = probe, far2
        self.act_spend, self.act_gain_probe, self.act_gain_fixed = spend, gain_probe, gain_fixed
        self.act_fall_side, self.act_stage, self.act_stat, self.act_wolf_cell = fall_side, stage, stat, wolf_cell
        taker = np.where(fall_side >= 0, self.side_seat[np.maximum(fall_side, 0)], -1)
        self.act_is_push = np.isin(block, (PUSH, DOUBLE))
        self.act_taker = np.where(self.act_is_push, taker, -1)
        self.act_asks = self.act_is_push & (self.act_taker < 0)  # falls on an unseated side: RECIPIENT
        # the same tables packed, one row per field (ACT_* and WORD_*), so one take serves a batch of actions
        self.act_int = np.stack([self.act_probe, self.act_far2, self.act_t1_kind, spend, gain_probe, gain_fixed,
                                 self.act_taker, self.act_asks, stage, fall_side, wolf_cell, stat, block,
                                 self.act_is_push]).astype(np.int64)
        self.act_word = np.stack([linemask, keep, left, right, t1_bits, t2_bits])
        # act_int with one row per action: taking whole rows and transposing is faster than taking columns
        self.act_int_rows = np.ascontiguousarray(self.act_int.T)
        # where the turn's falls go, by action and active seat (actions without a side of their own: the seat's)
        self.act_fall_by_seat = np.where(fall_side[:, None] >= 0, fall_side[:, None],
                                         self.seat_side[None, :]).astype(np.int8).reshape(-1)

    # --- small helpers ------------------------------------------------------

    def occupied(self, kinds: np.ndarray) -> np.ndarray:
        """Occupied cells of kind-major meadows ``[K, ...]``."""
        return np.bitwise_or.reduce(kinds, axis=0)

    def union(self, kinds: np.ndarray, chosen: np.ndarray) -> np.ndarray:
        """Cells of meadows ``kinds[K, ...]`` holding a cube of one of the kinds ``chosen``."""
        if len(chosen) == 0:
            return np.zeros(kinds.shape[1:], dtype=self.board)
        found = kinds[chosen[0]].copy()
        for kind in chosen[1:]:
            found |= kinds[kind]
        return found

    def orthogonal_dilate(self, board: np.ndarray) -> np.ndarray:
        n = self.n
        return (board | ((board & self.not_last_col) << 1) | ((board & self.not_first_col) >> 1)
                | ((board << n) & self.full) | (board >> n))

    def scores(self, farms: np.ndarray) -> np.ndarray:
        """Family score of each farm ``[..., K]`` -> ``[...]``: kinds summed in kind order, as float64."""
        per_kind = np.moveaxis(self.count_score.take(np.minimum(farms, len(self.count_score) - 1)), -1, 0)
        total = np.zeros(farms.shape[:-1], dtype=np.float64)
        for kind in range(self.k):
            total += per_kind[kind]
        return total


# NTH_IN_16[w, r]: position of the r-th set bit of the 16-bit word w; POP_16[w]: its set bits.
POP_16 = np.bitwise_count(np.arange(1 << 16, dtype=np.uint16)).astype(np.int64)
NTH_IN_16 = np.zeros((1 << 16, 16), dtype=np.int8)
for _bit in range(16):
    _words = np.nonzero((np.arange(1 << 16) >> _bit) & 1)[0]
    NTH_IN_16[_words, POP_16[_words & ((1 << _bit) - 1)]] = _bit


NTH_FLAT = NTH_IN_16.reshape(-1)  # NTH_FLAT[w * 16 + r] == NTH_IN_16[w, r]


def nth_bit(words: np.ndarray, k: np.ndarray, width: int = 64) -> np.ndarray:
    """Position of the ``k``-th (0-based) set bit of each uint64 word (``k`` below its popcount).

    ``width``: the words' bits all lie below it (16 or 32 take one or two table look-ups).
    Where ``k`` is not below the popcount the result is some position (never an error).
    """
    words = np.asarray(words, dtype=np.uint64)
    k = np.asarray(k, dtype=np.int64)
    low = (words & U64(0xFFFF)).astype(np.intp)
    if width <= 16:
        return NTH_FLAT.take((low << 4) | (k & 15)).astype(np.int64)
    if width <= 32:
        high = (words >> U64(16)).astype(np.intp)
        count = POP_16.take(low)
        upper = k >= count
        rank = np.where(upper, k - count, k) & 15
        word = np.where(upper, high, low)
        return NTH_FLAT.take((word << 4) | rank).astype(np.int64) + (upper << 4)
    position = np.zeros(words.shape, dtype=np.int64)
    done = np.zeros(words.shape, dtype=bool)
    for start in range(0, 64, 16):
        chunk = ((words >> U64(start)) & U64(0xFFFF)).astype(np.intp)
        count = POP_16.take(chunk)
        here = ~done & (k < count)
        position = np.where(here, start + NTH_FLAT.take((chunk << 4) | (k & 15)), position)
        done |= here
        k = k - np.where(done, 0, count)
        if np.count_nonzero(done) == done.size:
            break
    return position


def kind_at(kinds: np.ndarray, cell: np.ndarray) -> np.ndarray:
    """Kind of the cube on ``cell`` of each meadow ``kinds[K, n]`` (-1 if empty)."""
    one = kinds.dtype.type(1)
    hits = ((kinds & (one << np.asarray(cell, dtype=kinds.dtype))) != 0).astype(np.float32)
    numbers = np.arange(1, kinds.shape[0] + 1, dtype=np.float32)  # kind + 1; a product of 0/1 flags is exact
    found = numbers @ hits if hits.ndim == 2 else np.tensordot(numbers, hits, axes=1)
    return found.astype(np.int64) - 1


def apply_main(geo: Geometry, kinds: np.ndarray, actions: np.ndarray):
    """Meadows ``[K, n]`` after main ``actions`` (no legality check), and the kinds the actions met.

    Returns ``(kinds, probe, second)``: ``probe`` is the kind on the action's
    probed cell before it (the cube that falls out of a push, the animal
    devoured, the cube a duck or mole swaps with), ``second`` the second cube
    out of a double push (-1 otherwise). Every main action is a line shift
    (pushes only) plus two toggles: the action's own kind on its cells, and the
    probed kind on its cells (a swap of equal kinds toggles twice: no change).
    """
    return _apply(geo, kinds, actions, _take_ints(geo, actions))


def pushed_meadows(geo: Geometry, kinds: np.ndarray, actions: np.ndarray) -> np.ndarray:
    """Meadows ``[K, n]`` after push or double push ``actions``: :func:`apply_main`'s meadows, nothing else."""
    words = geo.act_word.take(actions, axis=1)
    moved = (kinds & ~words[WORD_LINEMASK]) | (((kinds & words[WORD_KEEP]) << words[WORD_LEFT])
                                               >> words[WORD_RIGHT])
    flat(moved)[geo.act_t1_kind[actions] * actions.size + np.arange(actions.size)] ^= words[WORD_T1_BITS]
    return moved


def _take_ints(geo: Geometry, actions: np.ndarray) -> np.ndarray:
    """``geo.act_int[:, actions]``, contiguous."""
    return np.ascontiguousarray(geo.act_int_rows.take(actions, axis=0).T)


def _apply(geo: Geometry, kinds: np.ndarray, actions: np.ndarray, ints: np.ndarray):
    """:func:`apply_main` with the actions' rows of ``geo.act_int`` already taken (``ints[F, n]``)."""
    size = actions.size
    words = geo.act_word.take(actions, axis=1)
    probe = kind_at(kinds, ints[ACT_PROBE])
    second = np.full(size, -1, dtype=np.int64)
    far2 = ints[ACT_FAR2]
    doubles = (far2 >= 0).nonzero()[0]
    if doubles.size:
        second[doubles] = kind_at(kinds.take(doubles, axis=1), far2[doubles])
    moved = (kinds & ~words[WORD_LINEMASK]) | (((kinds & words[WORD_KEEP]) << words[WORD_LEFT])
                                               >> words[WORD_RIGHT])
    cells = flat(moved)
    index = np.arange(size)
    cells[ints[ACT_T1_KIND] * size + index] ^= words[WORD_T1_BITS]
    cells[np.maximum(probe, 0) * size + index] ^= np.where(probe >= 0, words[WORD_T2_BITS], 0)
    return moved, probe, second


def _run_starts(geo: Geometry, kinds: np.ndarray):
    """Cells where a horizontal / vertical run of ``min_line`` of one kind starts, per kind."""
    n, length = geo.n, geo.run_length
    h = kinds & geo.h_start
    v = kinds & geo.v_start
    for i in range(1, length):
        h &= kinds >> i
        v &= kinds >> i * n
    return h, v


def _runs(geo: Geometry, kinds: np.ndarray, starts=None):
    """Cells in horizontal and vertical runs of at least ``min_line`` of one kind, per kind.

    ``starts``: the ``(h, v)`` of :func:`_run_starts`, if already known.
    """
    n, length = geo.n, geo.run_length
    h, v = _run_starts(geo, kinds) if starts is None else starts
    across, down = h.copy(), v.copy()
    for i in range(1, length):
        across |= h << i
        down |= v << i * n
    return across, down


def _liquid_groups(geo: Geometry, water: np.ndarray, core: np.ndarray | None = None) -> np.ndarray:
    """Cells of ``water`` boards in orthogonally connected groups of at least ``min_group``.

    ``core``: :func:`_liquid_core` of these boards, if already known.
    """
    if core is None:
        core = _liquid_core(geo, water)
    if geo.config.min_group == 3 and np.count_nonzero(core):
        return water & (core | geo.orthogonal_dilate(core))
    return core


def _liquid_core(geo: Geometry, water: np.ndarray) -> np.ndarray:
    """Cells telling the liquid groups of ``water`` boards: non-zero exactly where some group is big enough.

    With ``min_group`` 3 the cells with two neighbours in the water (every group of 3+ has one,
    every cell of it is one or next to one: :func:`_liquid_groups` grows them); otherwise the groups.
    """
    size = geo.config.min_group
    n = geo.n
    if size <= 1:
        return water
    east = (water & geo.not_last_col) << 1
    west = (water & geo.not_first_col) >> 1
    south = (water << n) & geo.full
    north = water >> n
    if size == 2:
        return water & (east | west | south | north)
    if size == 3:
        # a group of 3+ always has a cell with 2 neighbours in it; every cell is one or next to one
        return ((east & west) | ((east | west) & (south | north)) | (south & north)) & water
    links_h = water & (water >> 1) & geo.not_last_col
    links_v = water & (water >> n)
    found = np.zeros_like(water)
    remaining = water.copy()
    while True:
        if not np.count_nonzero(remaining):
            return found
        seed = remaining & (~remaining + 1)
        group = _flood(geo, seed, links_h, links_v)
        found |= np.where(popcount(group) >= size, group, 0)
        remaining &= ~group


def _flood(geo: Geometry, seed: np.ndarray, links_h: np.ndarray, links_v: np.ndarray) -> np.ndarray:
    """Cells reached from ``seed`` through links (bit c of ``links_h``: c joined to c+1; ``links_v``: c to c+N)."""
    n = geo.n
    region = seed
    while True:
        grown = (region | ((region & links_h) << 1) | ((region >> 1) & links_h)
                 | ((region & links_v) << n) | ((region >> n) & links_v))
        if not np.count_nonzero(grown != region):
            return region
        region = grown


def formation_parts(geo: Geometry, kinds: np.ndarray):
    """``(found [n], parts)``: does each meadow ``kinds[K, n]`` hold anything to collect, and the
    run starts and liquid group cores that tell it (``parts``, for :func:`formations`)."""
    h, v = _run_starts(geo, kinds)
    starts = h | v
    core = None
    if geo.liquid >= 0:
        core = _liquid_core(geo, kinds[geo.liquid])
        starts[geo.liquid] = core
    return geo.occupied(starts) != 0, (h, v, core)


def has_formation(geo: Geometry, kinds: np.ndarray) -> np.ndarray:
    """bool ``[n]``: does each meadow ``kinds[K, n]`` hold anything to collect?"""
    return formation_parts(geo, kinds)[0]


def formations(geo: Geometry, kinds: np.ndarray, parts=None):
    """What a collection takes from meadows ``kinds[K, n]``.

    Returns ``(collected [K, n], extras [n], bigs [n])``: the cells collected
    per kind (runs, liquid groups, grazed pasture) and the combos earned, one
    per formation (runs joined by shared cubes; a liquid group) by its size.
    ``parts``: :func:`formation_parts` of these meadows, if already known.
    """
    across, down = _runs(geo, kinds, None if parts is None else parts[:2])
    n = geo.n
    collected = across | down
    links_h = across & (across >> 1) & geo.not_last_col
    links_v = down & (down >> n)
    if geo.liquid >= 0:
        water = _liquid_groups(geo, kinds[geo.liquid], None if parts is None else parts[2])
        collected[geo.liquid] = water
        links_h[geo.liquid] = water & (water >> 1) & geo.not_last_col
        links_v[geo.liquid] = water & (water >> n)
    shaped = np.bitwise_or.reduce(collected, axis=0)
    if geo.grazer >= 0 and geo.pasture >= 0 and geo.grazer != geo.liquid and np.count_nonzero(collected[geo.grazer]):
        collected[geo.pasture] |= geo.orthogonal_dilate(collected[geo.grazer]) & kinds[geo.pasture]
    size = kinds.shape[1]
    extras = np.zeros(size, dtype=np.int64)
    bigs = np.zeros(size, dtype=np.int64)
    cfg = geo.config
    rows = (popcount(shaped) >= cfg.extra_size).nonzero()[0]
    if rows.size:
        remaining = shaped[rows]
        lh = np.bitwise_or.reduce(links_h.take(rows, axis=1), axis=0)
        lv = np.bitwise_or.reduce(links_v.take(rows, axis=1), axis=0)
        sub_extra = np.zeros(rows.size, dtype=np.int64)
        sub_big = np.zeros(rows.size, dtype=np.int64)
        while True:
            live = popcount(remaining) >= cfg.extra_size
            if not np.count_nonzero(live):
                break
            seed = np.where(live, remaining & (~remaining + 1), 0)
            group = _flood(geo, seed, lh, lv)
            grown = popcount(group)
            sub_big += grown >= cfg.big_size
            sub_extra += (grown >= cfg.extra_size) & (grown < cfg.big_size)
            remaining &= ~group
        extras[rows] = sub_extra
        bigs[rows] = sub_big
    return collected, extras, bigs


def fall(geo: Geometry, kinds: np.ndarray, fall_side: np.ndarray, fixed: np.ndarray) -> np.ndarray:
    """Meadows ``kinds[K, n]`` with every cube slid towards ``fall_side`` to close the gaps.

    ``fixed`` is a bitboard per meadow of a cell that does not move (the wolf).
    Every round moves each cube whose next cell is empty by one step; N-1 rounds
    compact any line.
    """
    left = geo.fall_left[fall_side]
    right = geo.fall_right[fall_side]
    can_move = geo.fall_canmove[fall_side] & ~fixed
    occupied = geo.occupied(kinds)
    for _ in range(geo.n - 1):
        empty = geo.full & ~occupied
        sources = ((empty << right) >> left) & can_move & occupied
        if not np.count_nonzero(sources):
            break
        kinds = (kinds & ~sources) | (((kinds & sources) << left) >> right)
        occupied = (occupied & ~sources) | ((sources << left) >> right)
    return kinds


@dataclass
class VoraState(BatchedState):
    meadow: np.ndarray  # Geometry.board [B, K]: cells of each kind, stored kind-major (Fortran order)
    farms: np.ndarray  # int16 [B, P, K]
    bag: np.ndarray  # int8 [B, total]: kinds in draw order (the setup shuffle)
    bag_pointer: np.ndarray  # int32 [B]: next cube to draw
    phase: np.ndarray  # int8 [B]: MAIN, RECIPIENT, EXTRA, BIG
    fallen: np.ndarray  # int8 [B, 2]: kinds awaiting a RECIPIENT decision, in order (-1 none)
    extra_left: np.ndarray  # int16 [B]: EXTRA decisions still due from the last collection
    big_left: np.ndarray  # int16 [B]: BIG decisions still due
    fall_side: np.ndarray  # int8 [B]: where this turn's falls go
    wolf_cell: np.ndarray  # int8 [B]: the wolf fixed this turn, -1 if none
    stats: np.ndarray  # int32 [B, P, len(STAT_NAMES)]
    event_log: list  # per step: (seat, phase, block, kind, collected, extras, bigs, victim) arrays [B]
    logging: bool = True  # branches of the bots skip the event log


class VoraEngine(BatchedEngine):
    """The batched Vora engine for one player count."""

    end_reasons = END_REASONS

    def __init__(self, config: VoraConfig, players: int):
        self.config = config
        self.players = players
        self.geo = Geometry(config, players)
        self.num_actions = config.num_actions

    # --- setup ------------------------------------------------------------------

    def init(self, seeds: np.ndarray) -> VoraState:
        geo, cfg = self.geo, self.config
        seeds = np.asarray(seeds, dtype=np.uint64)
        size, players, k = len(seeds), self.players, geo.k
        bag = np.zeros((size, geo.total), dtype=np.int8)
        pending = np.arange(size)
        for attempt in range(cfg.max_setup_attempts):
            order = shuffle_order(seeds[pending], "bag", attempt, geo.total)
            kinds = geo.cube_kind[order]
            bag[pending] = kinds
            clear = ~has_formation(geo, self.meadow_of_cells(kinds[:, : geo.c]).T)
            pending = pending[~clear]
            if pending.size == 0:
                break
        farms = np.zeros((size, players, k), dtype=np.int16)
        pointer = geo.c
        rows = np.arange(size)
        for seat in range(players):
            for _ in range(cfg.farm_size(seat)):
                np.add.at(farms, (rows, seat, bag[:, pointer].astype(np.int64)), 1)
                pointer += 1
        return VoraState(
            seeds=seeds,
            done=np.zeros(size, dtype=bool),
            to_move=np.zeros(size, dtype=np.int8),
            turn=np.zeros(size, dtype=np.int32),
            end=np.zeros(size, dtype=np.int8),
            decisions=np.zeros(size, dtype=np.int32),
            meadow=self.meadow_of_cells(bag[:, : geo.c]),
            farms=farms,
            bag=bag,
            bag_pointer=np.full(size, pointer, dtype=np.int32),
            phase=np.zeros(size, dtype=np.int8),
            fallen=np.full((size, 2), -1, dtype=np.int8),
            extra_left=np.zeros(size, dtype=np.int16),
            big_left=np.zeros(size, dtype=np.int16),
            fall_side=np.zeros(size, dtype=np.int8),
            wolf_cell=np.full(size, -1, dtype=np.int8),
            stats=np.zeros((size, players, len(STAT_NAMES)), dtype=np.int32),
            event_log=[],
        )

    def meadow_of_cells(self, cells: np.ndarray) -> np.ndarray:
        """Per-kind bitboards ``[n, K]`` (kind-major storage) from kinds per cell ``[n, C]`` (-1 empty)."""
        geo = self.geo
        flags = cells[None, :, :] == np.arange(geo.k, dtype=cells.dtype)[:, None, None]
        packed = np.packbits(flags, axis=2, bitorder="little")  # [K, n, bytes]: cell c is bit c
        words = np.zeros(packed.shape[:2] + (8,), dtype=np.uint8)
        words[:, :, :packed.shape[2]] = packed
        return words.view("<u8")[:, :, 0].astype(geo.board).T

    def cells_of_meadow(self, meadow: np.ndarray) -> np.ndarray:
        """Kinds per cell ``[n, C]`` (-1 empty) from per-kind bitboards ``[n, K]``."""
        geo = self.geo
        flags = ((meadow[:, :, None] >> np.arange(geo.c, dtype=np.uint64)) & ONE).astype(bool)
        return np.where(flags.any(axis=1), np.argmax(flags, axis=1), -1)

    def branch(self, state: VoraState, rows: np.ndarray) -> VoraState:
        """Copies of games ``rows`` for bots to play on: no bag (turns end without refill), no counters, no log."""
        size = rows.size
        return VoraState(
            seeds=state.seeds.take(rows), done=state.done.take(rows), to_move=state.to_move.take(rows),
            turn=state.turn.take(rows), end=state.end.take(rows), decisions=state.decisions.take(rows),
            meadow=self.kinds(state).take(rows, axis=1).T, farms=state.farms.take(rows, axis=0),
            bag=np.zeros((size, 0), dtype=np.int8),
            bag_pointer=state.bag_pointer.take(rows), phase=state.phase.take(rows),
            fallen=state.fallen.take(rows, axis=0), extra_left=state.extra_left.take(rows),
            big_left=state.big_left.take(rows), fall_side=state.fall_side.take(rows),
            wolf_cell=state.wolf_cell.take(rows), stats=np.zeros((size, self.players, len(STAT_NAMES)), dtype=np.int32),
            event_log=[], logging=False)

    @staticmethod
    def kinds(state: VoraState) -> np.ndarray:
        """The meadows as ``kinds[K, B]``: a view of kind-major storage, else a contiguous copy (read only)."""
        if state.meadow.flags.f_contiguous:
            return state.meadow.T
        return np.ascontiguousarray(state.meadow.T)

    def farms_of(self, state: VoraState, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """``state.farms[rows, seats]`` (one seat per game), through a flat index."""
        return state.farms.reshape(-1, self.geo.k).take(rows * self.players + seats, axis=0)

    def farm_totals(self, farm: np.ndarray) -> np.ndarray:
        """Cubes in each farm ``[n, K]`` (a float32 product: exact below 2**24 cubes)."""
        return farm.astype(np.float32) @ self.geo.ones_k

    def kinds_present(self, farm: np.ndarray) -> np.ndarray:
        """uint64 per farm ``[n, K]``: bit ``kind`` set where the farm holds that kind."""
        return ((farm >= 1).astype(np.float32) @ self.geo.kind_weights).astype(np.uint64)

    # --- legal actions ------------------------------------------------------------

    def legal_groups(self, state: VoraState, rows: np.ndarray) -> np.ndarray:
        """uint64 ``[len(rows), groups]``: legal action flags of games ``rows`` (see :class:`Geometry`)."""
        geo = self.geo
        groups = np.zeros((rows.size, geo.groups), dtype=np.uint64)
        if rows.size == 0:
            return groups
        kinds = self.kinds(state)
        phase = state.phase[rows]
        live = ~state.done[rows]
        me = state.to_move[rows].astype(np.int64)
        main = (live & (phase == MAIN)).nonzero()[0]
        if main.size:
            groups[main] = self._main_groups(state, rows[main], me[main])
        chosen = (live & (phase == RECIPIENT)).nonzero()[0]
        if chosen.size:
            groups[chosen, geo.g_recipient] = self.recipient_flags(state, rows[chosen], me[chosen])
        chosen = (live & ((phase == EXTRA) | (phase == BIG))).nonzero()[0]
        if chosen.size:
            r = rows[chosen]
            groups[chosen, geo.g_pick] = geo.occupied(kinds.take(r, axis=1))
            big = phase[chosen] == BIG
            if np.count_nonzero(big):
                groups[chosen[big], geo.g_steal] = self.steal_flags(state, r[big], me[chosen][big])
        return groups

    def recipient_flags(self, state: VoraState, rows: np.ndarray, me: np.ndarray) -> np.ndarray:
        """uint64 per game: the seats that may get the fallen cube (bit seat); forbidden rule applied."""
        geo = self.geo
        word = np.full(rows.size, geo.all_seats, dtype=np.uint64)
        last = (self.farm_totals(self.farms_of(state, rows, me)) == 0) & (state.fallen[:, 1][rows] < 0)
        if np.count_nonzero(last):
            stuck = np.zeros(rows.size, dtype=bool)
            stuck[last] = ~has_formation(geo, self.kinds(state).take(rows[last], axis=1))
            word = np.where(stuck, ONE << me.astype(np.uint64), word)
        return word

    def steal_flags(self, state: VoraState, rows: np.ndarray, me: np.ndarray) -> np.ndarray:
        """uint64 per game: the steals open to ``me`` (bit seat*K + kind), never a victim's last cube."""
        geo = self.geo
        farms = state.farms.take(rows, axis=0)  # [n, P, K]
        players = farms.shape[1]
        victim = (farms.sum(axis=2) >= 2) & (np.arange(players)[None, :] != me[:, None])
        flags = (farms >= 1) & victim[:, :, None]
        return np.where(flags, ONE << geo.steal_shift[:players], ZERO).sum(axis=(1, 2), dtype=np.uint64)

    def _main_groups(self, state: VoraState, rows: np.ndarray, me: np.ndarray) -> np.ndarray:
        geo = self.geo
        k, c = geo.k, geo.c
        groups = np.zeros((rows.size, geo.groups), dtype=np.uint64)
        farm = state.farms[rows, me]  # [n, K]
        kinds = self.kinds(state).take(rows, axis=1)
        has = farm >= 1
        groups[:, :k] = np.where(has, geo.all_lines, ZERO)
        if geo.pig >= 0:
            groups[:, geo.g_double] = np.where(has[:, geo.pig], geo.all_lines, ZERO)
        last = (farm.sum(axis=1) == 1).nonzero()[0]
        if last.size:
            single, double = self.last_cube_pushes(kinds.take(last, axis=1), farm[last], me[last])
            groups[last, np.argmax(farm[last], axis=1)] = single
            if geo.pig >= 0:
                groups[last, geo.g_double] &= double
        animals = np.bitwise_or.reduce(kinds[geo.animal_kinds], axis=0)
        if geo.crow >= 0:
            groups[:, geo.g_devour] = np.where(has[:, geo.crow], animals, ZERO)
        if geo.wolf >= 0:
            groups[:, geo.g_wolf] = np.where(has[:, geo.wolf], self.wolf_lines(animals), ZERO)
        if geo.ladybug >= 0:
            groups[:, geo.g_pick_up] = kinds[geo.ladybug]
        if geo.duck >= 0:
            ducks = kinds[geo.duck]
            plants = np.bitwise_or.reduce(kinds[geo.plant_kinds], axis=0)
            flags = ((ducks[:, None] >> np.arange(c, dtype=np.uint64)) & ONE).astype(bool)
            # any non-animal cube but the duck itself (other ducks too, if ducks are not animals)
            groups[:, geo.g_fly:geo.g_fly + c] = np.where(flags, plants[:, None] & ~geo.cell_bit, ZERO)
        if geo.mole >= 0:
            moles = kinds[geo.mole]
            flags = ((moles[:, None] >> np.arange(c, dtype=np.uint64)) & ONE).astype(bool)
            groups[:, geo.g_dig:geo.g_dig + c] = np.where(flags, geo.dig_dirs[None, :], ZERO)
        return groups

    def wolf_lines(self, animals: np.ndarray) -> np.ndarray:
        """uint64 per meadow: the lines (bit side*N + line) whose edge cell holds an animal."""
        geo = self.geo
        edge = (animals[:, None] >> geo.edge_cell.astype(np.uint64)[None, :]) & ONE
        return (edge << np.arange(geo.lines, dtype=np.uint64)[None, :]).sum(axis=1, dtype=np.uint64)

    def last_cube_pushes(self, kinds: np.ndarray, farm: np.ndarray, me: np.ndarray):
        """Lines open to a push of a last farm cube (bit side*N + line), as a single and as a double push.

        Only onto your own or an unseated side, or when the push makes something to
        collect; ``kinds[K, m]`` are the meadows, ``farm[m, K]`` the one-cube farms.
        The double word is meaningful only where that cube is the pig.
        """
        geo = self.geo
        kind = np.argmax(farm, axis=1)
        single = geo.safe_lines[me]
        double = single.copy()
        unsafe = geo.unsafe_lines[me]  # [m, U]
        if unsafe.shape[1] == 0:
            return single, double
        offsets = self.config.offsets
        single = single | self._collecting_lines(kinds, offsets["push"] + kind * geo.lines, unsafe)
        pigs = (kind == geo.pig).nonzero()[0]
        if pigs.size:
            double[pigs] |= self._collecting_lines(kinds.take(pigs, axis=1),
                                                   np.full(pigs.size, offsets["double"]), unsafe[pigs])
        return single, double

    def _collecting_lines(self, kinds: np.ndarray, first: np.ndarray, lines: np.ndarray) -> np.ndarray:
        """uint64 per meadow: which of ``lines[m, U]`` (bit = line) a push ``first + line`` makes collect."""
        actions = (first[:, None] + lines).reshape(-1)
        pushed = pushed_meadows(self.geo, np.repeat(kinds, lines.shape[1], axis=1), actions)
        collects = has_formation(self.geo, pushed).reshape(lines.shape)
        return np.where(collects, ONE << lines.astype(np.uint64), ZERO).sum(axis=1, dtype=np.uint64)

    def legal_mask(self, state: VoraState) -> np.ndarray:
        groups = self.legal_groups(state, np.arange(state.size))
        return self.expand(groups)

    def expand(self, groups: np.ndarray) -> np.ndarray:
        """bool ``[n, num_actions]`` from legal groups ``[n, groups]``."""
        geo = self.geo
        mask = np.zeros((groups.shape[0], self.num_actions), dtype=bool)
        game, group = groups.nonzero()
        if game.size == 0:
            return mask
        flags = ((groups[game, group][:, None] >> geo.flag_shifts) & ONE).astype(bool)
        pair, bit = flags.nonzero()
        mask[game[pair], geo.group_base[group[pair]] + bit] = True
        return mask

    def legal_pairs(self, state: VoraState, rows: np.ndarray):
        """Every legal (game, action) of games ``rows``, ascending: flat arrays ``game`` and ``action``."""
        geo = self.geo
        groups = self.legal_groups(state, rows)
        index, group = groups.nonzero()
        words = groups.reshape(-1)[index * geo.groups + group]
        flags = ((words[:, None] >> geo.flag_shifts) & ONE).astype(bool)
        pair, bit = flags.nonzero()
        return rows[index[pair]], geo.group_base[group[pair]] + bit

    # --- step ------------------------------------------------------------------------

    def step(self, state: VoraState, actions: np.ndarray) -> None:
        self.advance(state, actions, refill=True)

    def advance(self, state: VoraState, actions: np.ndarray, refill: bool = True) -> None:
        """Apply one decision per live game and resolve until the next decision.

        ``refill=False`` (bots' branches) ends turns without drawing from the bag.
        """
        geo = self.geo
        if not state.meadow.flags.f_contiguous:  # copies made by take_games: back to kind-major storage
            state.meadow = np.asfortranarray(state.meadow)
        rows = (~state.done).nonzero()[0]
        size = state.size
        log = None
        if state.logging:
            log = {
                "seat": np.where(state.done, -1, state.to_move).astype(np.int8, copy=False),
                "phase": np.where(state.done, -1, state.phase).astype(np.int8, copy=False),
                "block": np.full(size, -1, dtype=np.int8),
                "kind": np.full(size, -1, dtype=np.int8),
                "collected": np.zeros(size, dtype=np.int16),
                "extras": np.zeros(size, dtype=np.int8),
                "bigs": np.zeros(size, dtype=np.int8),
                "victim": np.full(size, -1, dtype=np.int8),
            }
        if rows.size == 0:
            if log is not None:
                state.event_log.append(log)
            return
        action = np.asarray(actions, dtype=np.int64)[rows]
        stage = np.full(rows.size, DONE, dtype=np.int8)
        block = geo.action_block.take(action)
        if log is not None:
            log["block"][rows] = block
        main = action < geo.main_actions
        if np.count_nonzero(main) == main.size:
            self._main(state, rows, action, stage, slice(None), log)
        else:
            if np.count_nonzero(main):
                where = main.nonzero()[0]
                self._main(state, rows[where], action[where], stage, where, log)
            within = action - geo.block_starts[block]
            chosen = block == RECIPIENT_BLOCK
            if np.count_nonzero(chosen):
                self._recipient(state, rows[chosen], within[chosen], stage, chosen.nonzero()[0], log)
            chosen = block >= PICK
            if np.count_nonzero(chosen):
                self._combo(state, rows[chosen], block[chosen], within[chosen], stage, chosen.nonzero()[0], log)
        busy = (stage != DONE).nonzero()[0]
        self._resolve(state, rows[busy], stage[busy], refill, log)
        if log is not None:
            state.event_log.append(log)

    def _main(self, state, rows, action, stage, where, log) -> None:
        """Main actions of games ``rows``, all at once through the per-action tables."""
        geo = self.geo
        k, players, stat_count = geo.k, self.players, len(STAT_NAMES)
        kinds = state.meadow.T
        ints = _take_ints(geo, action)
        me = state.to_move[rows].astype(np.int64)
        moved, probe, second = _apply(geo, columns(kinds, rows), action, ints)
        store(kinds, rows, moved)
        farms, stats = flat(state.farms), flat(state.stats)
        mine = rows * players + me
        spend = ints[ACT_SPEND]
        paid = spend >= 0
        farms[(mine * k + spend)[paid]] -= 1
        gain = np.where(ints[ACT_GAIN_PROBE] != 0, probe, ints[ACT_GAIN_FIXED])
        got = gain >= 0
        farms[(mine * k + gain)[got]] += 1
        taker = ints[ACT_TAKER]
        given = (taker >= 0).nonzero()[0]
        if given.size:
            theirs = rows[given] * players + taker[given]
            farms[theirs * k + probe[given] % k] += 1
            stats[theirs * stat_count + RECEIVED] += 1
            two = second[given] >= 0
            if np.count_nonzero(two):
                farms[(theirs * k + second[given])[two]] += 1
                stats[theirs[two] * stat_count + RECEIVED] += 1
        asks = ints[ACT_ASKS] != 0
        sub = ints[ACT_STAGE]
        if np.count_nonzero(asks):
            ra = rows[asks]
            state.fallen[:, 0][ra] = probe[asks]  # a column, then one index: numpy's fast path
            state.fallen[:, 1][ra] = second[asks]
            state.phase[ra] = RECIPIENT
            sub = np.where(asks, DONE, sub)
        state.fall_side[rows] = geo.act_fall_by_seat.take(action * players + me)
        state.wolf_cell[rows] = ints[ACT_WOLF_CELL]
        stats[mine * stat_count + ints[ACT_STAT]] += 1
        stage[where] = sub
        if log is not None:  # the block is logged by advance
            moved = np.where(ints[ACT_IS_PUSH] != 0, ints[ACT_T1_KIND], probe)
            log["kind"][rows] = np.where(ints[ACT_BLOCK] == PICK_UP, geo.ladybug, moved)

    def _recipient(self, state, rows, within, stage, where, log) -> None:
        seat = within
        first, second = state.fallen[:, 0], state.fallen[:, 1]
        kind = first[rows].astype(np.int64)
        theirs = rows * self.players + seat
        flat(state.farms)[theirs * self.geo.k + kind] += 1
        flat(state.stats)[theirs * len(STAT_NAMES) + RECEIVED] += 1
        after = second[rows]
        first[rows] = after
        second[rows] = -1
        finished = after < 0
        state.phase[rows[finished]] = MAIN
        stage[where[finished]] = COLLECT
        if log is not None:
            log["kind"][rows] = kind
            log["victim"][rows] = seat

    def _combo(self, state, rows, block, within, stage, where, log) -> None:
        geo = self.geo
        k, players, stat_count = geo.k, self.players, len(STAT_NAMES)
        kinds = state.meadow.T
        farms, stats = flat(state.farms), flat(state.stats)
        me = state.to_move[rows].astype(np.int64)
        mine = rows * players + me
        is_pick = block == PICK
        kind = np.zeros(rows.size, dtype=np.int64)
        if np.count_nonzero(is_pick):
            r, cell = rows[is_pick], within[is_pick]
            kind[is_pick] = kind_at(kinds.take(r, axis=1), cell)
            kinds[kind[is_pick], r] &= ~geo.cell_bit[cell]
            stats[mine[is_pick] * stat_count + PICKS] += 1
        steal = ~is_pick
        victim = np.full(rows.size, -1, dtype=np.int64)
        if np.count_nonzero(steal):
            r = rows[steal]
            victim[steal], kind[steal] = np.divmod(within[steal], k)
            theirs = r * players + victim[steal]
            farms[theirs * k + kind[steal]] -= 1
            stats[mine[steal] * stat_count + STEALS] += 1
            stats[theirs * stat_count + STOLEN] += 1
        farms[mine * k + kind % k] += 1
        extra = state.phase[rows] == EXTRA
        state.extra_left[rows[extra]] -= 1
        state.big_left[rows[~extra]] -= 1
        state.phase[rows] = MAIN
        stage[where] = COMBOS
        if log is not None:
            log["kind"][rows] = kind
            log["victim"][rows] = victim

    # --- resolution ------------------------------------------------------------------

    def _resolve(self, state, rows, stage, refill, log) -> None:
        geo = self.geo
        kinds = state.meadow.T
        turn_over = None  # bool [B]: games whose turn ended in this step
        while rows.size:
            chosen = (stage == COMBOS).nonzero()[0]
            if chosen.size:
                r = rows[chosen]
                occupied = geo.occupied(columns(kinds, r)) != 0
                due = state.extra_left[r] > 0
                to_extra = due & occupied
                state.extra_left[r[due & ~occupied]] = 0
                due = (state.big_left[r] > 0) & ~to_extra
                can = occupied.copy()
                ask = due & ~occupied
                if np.count_nonzero(ask):
                    me = state.to_move[r[ask]].astype(np.int64)
                    can[ask] = self.steal_flags(state, r[ask], me) != 0
                to_big = due & can
                state.big_left[r[due & ~can]] = 0
                state.phase[r[to_extra]] = EXTRA
                state.phase[r[to_big]] = BIG
                stage[chosen] = np.where(to_extra | to_big, DONE, FALL)
            chosen = ((stage == FALL) | (stage == FALL_THEN_END)).nonzero()[0]
            if chosen.size:
                r = rows[chosen]
                sub = columns(kinds, r)
                wolf = state.wolf_cell[r].astype(np.int64)
                fixed = geo.board(0)  # the bit of a wolf placed this turn and still in the meadow
                if np.count_nonzero(wolf >= 0):
                    occupied = geo.occupied(sub)
                    present = (wolf >= 0) & (((occupied >> np.maximum(wolf, 0).astype(geo.board)) & 1) == 1)
                    state.wolf_cell[r[~present]] = -1
                    fixed = np.where(present, geo.cell_bit[np.maximum(wolf, 0)], 0)
                store(kinds, r, fall(geo, sub, state.fall_side[r].astype(np.int64), fixed))
                stage[chosen] = np.where(stage[chosen] == FALL, COLLECT, END)
            chosen = (stage == COLLECT).nonzero()[0]
            if chosen.size:
                r = rows[chosen]
                sub = columns(kinds, r)
                found, (h, v, core) = formation_parts(geo, sub)
                stage[chosen[~found]] = END
                if np.count_nonzero(found):
                    found = found.nonzero()[0]
                    where = chosen[found]
                    rg = rows[where]
                    sub = sub.take(found, axis=1)
                    parts = (h.take(found, axis=1), v.take(found, axis=1),
                             None if core is None else core[found])
                    collected, extras, bigs = formations(geo, sub, parts)
                    counts = popcount(collected).astype(np.int16).T  # [n, K]
                    total = counts.sum(axis=1)
                    mine = rg * self.players + state.to_move[rg].astype(np.int64)
                    np.reshape(state.farms, (-1, geo.k), copy=False)[mine] += counts
                    store(kinds, rg, sub & ~collected)
                    state.extra_left[rg] = extras
                    state.big_left[rg] = bigs
                    stats = flat(state.stats)
                    mine *= len(STAT_NAMES)
                    stats[mine + COLLECTED] += total
                    stats[mine + EXTRAS] += extras.astype(np.int32)
                    stats[mine + BIGS] += bigs.astype(np.int32)
                    if log is not None:
                        log["collected"][rg] += total
                        log["extras"][rg] += extras.astype(np.int8)
                        log["bigs"][rg] += bigs.astype(np.int8)
                    stage[where] = COMBOS
            ended = stage == END
            if np.count_nonzero(ended):
                if turn_over is None:
                    turn_over = np.zeros(state.size, dtype=bool)
                turn_over[rows[ended]] = True
                stage[ended] = DONE
            busy = stage != DONE
            rows, stage = rows[busy], stage[busy]
        if turn_over is not None:  # turns end together: nothing of one game's turn end touches another's
            self._end_turn(state, turn_over.nonzero()[0], refill)

    def _end_turn(self, state, rows, refill) -> None:
        geo = self.geo
        kinds = state.meadow.T
        if refill:
            empty = geo.full & ~geo.occupied(columns(kinds, rows))
            count = popcount(empty).astype(np.int64)
            gaps = count.nonzero()[0]
            if gaps.size:
                r, empty, count = rows[gaps], empty[gaps], count[gaps]
                pointer = state.bag_pointer[r].astype(np.int64)
                placed = np.minimum(count, geo.total - pointer)
                # the empty cells as (game, cell) pairs, cells ascending within a game
                cells = np.unpackbits(empty.astype("<u8").view(np.uint8).reshape(-1, 8), axis=1, count=geo.c,
                                      bitorder="little")
                game, cell = np.divmod(cells.reshape(-1).nonzero()[0], geo.c)
                rank = np.arange(game.size) - (np.cumsum(count) - count)[game]
                fill = rank < placed[game]
                game, cell = game[fill], cell[fill]
                drawn = state.bag.reshape(-1)[(r * geo.total + pointer)[game] + rank[fill]].astype(np.intp)
                np.bitwise_or.at(flat(kinds), drawn * state.size + r[game], geo.cell_bit[cell])
                state.bag_pointer[r] = pointer + placed
                ended = r[placed < count]
                state.done[ended] = True
                state.end[ended] = END_REASONS.index("bag_empty")
        state.phase[rows] = MAIN
        state.wolf_cell[rows] = -1
        state.extra_left[rows] = 0
        state.big_left[rows] = 0
        state.turn[rows] += 1
        state.to_move[rows] = (state.to_move[rows] + 1) % self.players

    # --- outcome ------------------------------------------------------------------------

    def results(self, state: VoraState) -> GameResults:
        geo = self.geo
        score = geo.scores(state.farms.astype(np.int64))
        higher = (score[:, None, :] > score[:, :, None]).sum(axis=2)
        finished = state.end == END_REASONS.index("bag_empty")
        rank = np.where(finished[:, None], 1 + higher, 0).astype(np.int8)
        seat_columns = {f"farm_{name}": state.farms[:, :, i].astype(np.int64)
                        for i, name in enumerate(self.config.kind_names)}
        for i, name in enumerate(STAT_NAMES):
            seat_columns[name] = state.stats[:, :, i].astype(np.int64)
        return GameResults(score=score, rank=rank, end=state.end.copy(), turns=state.turn.copy(),
                           seat_columns=seat_columns)

    def invariants(self, state: VoraState) -> dict[str, np.ndarray]:
        geo = self.geo
        size = state.size
        meadow = state.meadow
        occupied = geo.occupied(meadow.T)
        overlap = popcount(meadow).sum(axis=1) != popcount(occupied)
        in_bag = np.zeros((size, geo.k), dtype=np.int64)
        left = np.arange(geo.total)[None, :] >= state.bag_pointer[:, None]
        for kind in range(geo.k):
            in_bag[:, kind] = ((state.bag == kind) & left).sum(axis=1)
        pending = np.zeros((size, geo.k), dtype=np.int64)
        for slot in range(2):
            has = state.fallen[:, slot] >= 0
            np.add.at(pending, (has.nonzero()[0], state.fallen[has, slot].astype(np.int64)), 1)
        held = popcount(meadow).astype(np.int64) + state.farms.sum(axis=1) + in_bag + pending
        farms_ok = (state.farms.sum(axis=2) >= 1).all(axis=1) | (state.phase == RECIPIENT)
        full = (occupied == geo.full) | state.done | (state.phase != MAIN)
        return {
            "cubes conserved, kind by kind": (held == geo.kind_count[None, :]).all(axis=1),
            "one cube a cell": ~overlap & ((occupied & ~geo.full) == 0),
            "no farm below zero": (state.farms >= 0).all(axis=(1, 2)),
            "every farm holds a cube between actions": farms_ok,
            "the meadow is full at a main decision": full,
        }

    def events(self, state: VoraState, trace: Trace) -> dict[str, np.ndarray] | None:
        """One row per decision: seat, phase, action block, the cube kind it moved, and what followed.

        ``collected``, ``extras``, ``bigs``: cubes collected and combos earned
        while resolving the decision; ``victim``: the seat robbed by a steal (or
        the seat given a fallen cube by a recipient decision).
        """
        if not state.event_log:
            return None
        stacked = {key: np.stack([entry[key] for entry in state.event_log], axis=1) for key in state.event_log[0]}
        games, steps = (stacked["block"] >= 0).nonzero()
        block_names = np.array(BLOCKS)
        phase_names = np.array(PHASES)
        kind_names = np.array(("",) + self.config.kind_names)
        return {
            "game": games.astype(np.int64),
            "decision": steps.astype(np.int32),
            "seat": stacked["seat"][games, steps],
            "phase": phase_names[stacked["phase"][games, steps]],
            "action": trace.actions[games, steps].astype(np.int32),
            "block": block_names[stacked["block"][games, steps]],
            "kind": kind_names[stacked["kind"][games, steps].astype(np.int64) + 1],
            "collected": stacked["collected"][games, steps],
            "extras": stacked["extras"][games, steps],
            "bigs": stacked["bigs"][games, steps],
            "victim": stacked["victim"][games, steps],
        }

    def snapshot(self, state: VoraState, game: int) -> dict:
        cells = self.cells_of_meadow(state.meadow[game:game + 1])[0]
        return {
            "meadow": [int(x) for x in cells],
            "farms": [[int(x) for x in farm] for farm in state.farms[game]],
            "bag_pointer": int(state.bag_pointer[game]),
            "turn": int(state.turn[game]),
            "phase": PHASES[int(state.phase[game])],
            "end": END_REASONS[int(state.end[game])],
        }

    def describe_action(self, action: int) -> str:
        block, fields = self.config.decode(int(action))
        names = self.config.kind_names
        if block == "push":
            return f"push {names[fields[0]]} from {SIDES[fields[1]]} into line {fields[2]}"
        if block in ("double", "wolf"):
            return f"{block} from {SIDES[fields[0]]} into line {fields[1]}"
        if block == "steal":
            return f"steal {names[fields[1]]} from seat {fields[0]}"
        return f"{block} {' '.join(map(str, fields))}"
