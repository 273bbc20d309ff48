"""Vora's precomputed tables: the geometry of the meadow, the action groups and what every main action does.

:class:`Geometry` is computed once per config and player count, in numpy, and
handed to the compiled kernels of :mod:`sims.vora.kernels` as a
:class:`kernels.Tables` (``Geometry.tables``). The batched engine
(:mod:`sims.vora.rules`) holds one; nothing here changes during a game.
"""

from __future__ import annotations

import numpy as np

from sims.vora import kernels
from sims.vora.config import BLOCKS, DIRECTIONS, MAX_PLAYERS, OPPOSITE, VoraConfig
from sims.vora.kernels import (
    COLLECT,
    DEVOUR,
    DOUBLE,
    FALL_THEN_END,
    FLY_SWAP,
    PICK_UP,
    PUSH,
    PUSHES,
    SP_DEVOUR,
    SP_DIG,
    SP_DOUBLE,
    SP_FLY_SWAP,
    SP_PICK_UP,
    SP_WOLF,
    WOLF,
)

U64 = np.uint64
ONE = U64(1)


def _bits(cells) -> np.uint64:
    value = 0
    for cell in cells:
        value |= 1 << int(cell)
    return U64(value)


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
        decline               1      decline                  0
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
        self.g_decline = self.g_recipient + 3
        self.groups = self.g_decline + 1
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
        base[self.g_decline], width[self.g_decline] = offsets["decline"], 1
        self.group_base, self.group_width = base, width
        self.flag_shifts = np.arange(int(width.max()), dtype=np.uint64)  # the bits a group's word may hold
        self.action_block = np.searchsorted(self.block_starts, np.arange(config.num_actions), side="right") - 1
        self._action_tables(offsets)
        self.tables = self._kernel_tables()

    def _action_tables(self, offsets) -> None:
        """Per main action: what it does to the meadow and the farms (see :func:`kernels.main_action`)."""
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

    def _kernel_tables(self) -> kernels.Tables:
        """The tables of :mod:`sims.vora.kernels`, in fixed dtypes."""
        offsets = self.offsets
        scalars = [0] * kernels.SCALARS
        for slot, value in ((kernels.I_N, self.n), (kernels.I_C, self.c), (kernels.I_K, self.k),
                            (kernels.I_P, self.players), (kernels.I_LINES, self.lines), (kernels.I_PIG, self.pig),
                            (kernels.I_CROW, self.crow), (kernels.I_WOLF, self.wolf),
                            (kernels.I_LADYBUG, self.ladybug), (kernels.I_DUCK, self.duck),
                            (kernels.I_MOLE, self.mole), (kernels.I_GRAZER, self.grazer),
                            (kernels.I_LIQUID, self.liquid), (kernels.I_PASTURE, self.pasture),
                            (kernels.I_MIN_LINE, self.run_length), (kernels.I_MIN_GROUP, self.config.min_group),
                            (kernels.I_EXTRA, self.config.extra_size), (kernels.I_BIG, self.config.big_size),
                            (kernels.I_TOTAL, self.total), (kernels.I_MAIN_ACTIONS, self.main_actions),
                            (kernels.I_GROUPS, self.groups), (kernels.I_G_DOUBLE, self.g_double),
                            (kernels.I_G_DEVOUR, self.g_devour), (kernels.I_G_WOLF, self.g_wolf),
                            (kernels.I_G_PICK_UP, self.g_pick_up), (kernels.I_G_FLY, self.g_fly),
                            (kernels.I_G_DIG, self.g_dig), (kernels.I_G_RECIPIENT, self.g_recipient),
                            (kernels.I_G_PICK, self.g_pick), (kernels.I_G_STEAL, self.g_steal), (kernels.I_G_DECLINE, self.g_decline),
                            (kernels.I_PUSH_BASE, offsets["push"]), (kernels.I_DOUBLE_BASE, offsets["double"]),
                            (kernels.W_FULL, self.full), (kernels.W_NOT_LAST_COL, self.not_last_col),
                            (kernels.W_NOT_FIRST_COL, self.not_first_col), (kernels.W_H_START, self.h_start),
                            (kernels.W_V_START, self.v_start), (kernels.W_ALL_LINES, self.all_lines),
                            (kernels.W_ALL_SEATS, self.all_seats)):
            scalars[slot] = value
        for side in range(4):
            scalars[kernels.FALL_LEFT + side] = self.fall_left[side]
            scalars[kernels.FALL_RIGHT + side] = self.fall_right[side]
            scalars[kernels.FALL_CANMOVE + side] = self.fall_canmove[side]
        # uint64 masks as int64 of the same bits: one integer type (a kind index is -1 when no kind has the special)
        scalars = np.array([np.array(value, dtype=np.uint64).view(np.int64) if value >= 0 else value
                            for value in scalars], dtype=np.int64)

        def u64(values):
            return np.ascontiguousarray(values, dtype=np.uint64)

        def i64(values):
            return np.ascontiguousarray(values, dtype=np.int64)

        return kernels.Tables(
            g=scalars, act_int=i64(self.act_int_rows), act_word=u64(self.act_word.T),
            act_fall=i64(self.act_fall_by_seat.reshape(-1, self.players)), cell_bit=u64(self.cell_bit),
            edge_cell=i64(self.edge_cell), safe_lines=u64(self.safe_lines), unsafe_lines=i64(self.unsafe_lines),
            dig_dirs=u64(self.dig_dirs), animal=np.ascontiguousarray(self.animal, dtype=np.bool_),
            count_score=np.ascontiguousarray(self.count_score, dtype=np.float64),
            action_block=i64(self.action_block), block_starts=i64(self.block_starts),
            group_base=i64(self.group_base))

    # --- small helpers ------------------------------------------------------

    def occupied(self, kinds: np.ndarray) -> np.ndarray:
        """Occupied cells of kind-major meadows ``[K, ...]``."""
        return np.bitwise_or.reduce(kinds, axis=0)

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
