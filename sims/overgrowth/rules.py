"""Overgrowth, batched: N games as uint64 bitboards, advanced with numpy.

Board layout (default 7x7), bit ``row * columns + col``; seat 0 sits at row 0,
seat 1 at the last row; ``:`` marks the shaded areas::

     0  1 :2 :3 :4  5  6      <- seat 0's home row
     7  8  9 10 11 12 13
    ...
    42 43:44:45:46 47 48      <- seat 1's home row

The position of the player to move is written from that player's view:
``own`` and ``opp`` stones, ``marker_me`` / ``marker_opp`` track spaces,
``supply`` (flowers left) and ``home_area`` (the shaded area on the first turn, else 0).
The pure functions below work on arrays of any shape, so bots reuse them on
hypothetical positions (``[games, candidates]``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sims.core.engine import BatchedEngine, BatchedState, GameResults, Trace
from sims.core.grid import KING, ORTHOGONAL, Grid, popcount
from sims.overgrowth.config import ACTION_KINDS, OvergrowthConfig

U64 = np.uint64
END_REASONS = ("", "connection", "flowers", "stall")
# kind codes: the four track actions, then the first-turn placement and the pass
OVERGROW, GROW, CAST, SPREAD, FIRST, PASS = range(6)
KIND_NAMES = ACTION_KINDS + ("first", "pass")
NO_WINNER, TIE = -1, 2
FAR = np.int16(-1)


class Geometry:
    """Tables computed once per config: masks, placements, the track."""

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
        self.connection = ORTHOGONAL if config.orthogonal_connection else KING
        self.cast_offsets = [(dr * config.cast_distance, dc * config.cast_distance) for dr, dc in KING]
        self.far = self.cells + 1

    def blocked_areas(self, own: np.ndarray) -> np.ndarray:
        """Shaded cells where ``own`` may place nothing more: areas already holding one of its flowers."""
        blocked = np.zeros_like(own)
        for area in self.area:
            blocked |= np.where((own & area) != 0, area, U64(0))
        return blocked

    def pairs_in_one_area(self) -> np.uint64:
        """Left cells of pairs whose both cells lie in the same shaded area."""
        both = U64(0)
        for area in self.area:
            both |= area & (area >> U64(1)) & self.not_last_column
        return both


def placement_targets(geo: Geometry, own: np.ndarray, opp: np.ndarray, supply: np.ndarray):
    """Legal placements of each action kind: ``singles[..., 4]`` and spread ``pairs[...]`` (left cells)."""
    grid = geo.grid
    empty = ~(own | opp) & grid.full
    allowed = ~geo.blocked_areas(own) & np.where(supply >= 1, grid.full, U64(0))
    sides = [grid.shift(own, dr, dc) for dr, dc in ORTHOGONAL]
    overgrow = opp & grid.count_at_least(sides, geo.config.overgrow_sides) & allowed
    grow = grid.neighbours(own, KING) & empty & allowed
    cast = np.zeros_like(own)
    for dr, dc in geo.cast_offsets:
        cast |= grid.shift(own, dr, dc)
    cast &= empty & allowed
    touching = grid.neighbours(own, ORTHOGONAL)
    spread = touching & empty & allowed
    free = empty & allowed
    pairs = free & (free >> U64(1)) & geo.not_last_column & (touching | (touching >> U64(1)))
    pairs &= ~geo.pairs_in_one_area() & np.where(supply >= 2, grid.full, U64(0))
    return np.stack([overgrow, grow, cast, spread], axis=-1), pairs


def landing_spaces(geo: Geometry, marker_me: np.ndarray, marker_opp: np.ndarray):
    """For each move slot: landing space ``[..., S]`` and whether it is free of the other marker."""
    track = len(geo.track_kind)
    landing = (np.asarray(marker_me)[..., None] + geo.moves) % track
    return landing, landing != np.asarray(marker_opp)[..., None]


def slot_options(geo: Geometry, own, opp, marker_me, marker_opp, supply, home_area):
    """Legal placements per slot: ``singles[..., slots]``, ``pairs[..., slots]``.

    ``home_area`` is the mover's shaded area on its first turn and 0 after it;
    slot 0 (the first-turn placement) is open only then, the move slots only after.
    """
    first = home_area != 0
    kinds, pairs = placement_targets(geo, own, opp, supply)
    landing, usable = landing_spaces(geo, marker_me, marker_opp)
    kind = geo.track_kind[landing].astype(np.int64)
    later = ~first[..., None] & usable
    singles_moved = np.where(later, np.take_along_axis(kinds, kind, axis=-1), U64(0))
    pairs_moved = np.where(later & (kind == SPREAD), pairs[..., None], U64(0))
    first_cells = home_area & ~(own | opp)
    singles = np.concatenate([first_cells[..., None], singles_moved], axis=-1)
    pairs_all = np.concatenate([np.zeros_like(pairs)[..., None], pairs_moved], axis=-1)
    return singles, pairs_all


def pass_move(geo: Geometry, marker_me: np.ndarray, marker_opp: np.ndarray) -> np.ndarray:
    """Where a passing marker goes: the smallest allowed move not ending on the other marker."""
    landing, usable = landing_spaces(geo, marker_me, marker_opp)
    has = usable.any(axis=-1)
    first_usable = np.argmax(usable, axis=-1)
    chosen = np.take_along_axis(landing, first_usable[..., None], axis=-1)[..., 0]
    return np.where(has, chosen, marker_me)


def connected(geo: Geometry, own: np.ndarray) -> np.ndarray:
    """bool: ``own`` stones join the two shaded areas."""
    candidates = ((own & geo.area[0]) != 0) & ((own & geo.area[1]) != 0)
    result = np.zeros(own.shape, dtype=bool)
    if candidates.any():
        subset = own[candidates]
        result[candidates] = geo.grid.connects(subset, geo.area[0], geo.area[1], geo.connection)
    return result


@dataclass
class Outcome:
    """What one action does to the mover's position."""

    own: np.ndarray
    opp: np.ndarray
    marker: np.ndarray
    supply: np.ndarray
    kind: np.ndarray  # kind code
    placed: np.ndarray  # flowers placed
    captured: np.ndarray  # opponent flowers overgrown


def apply_action(geo: Geometry, own, opp, marker_me, marker_opp, supply, actions) -> Outcome:
    """The mover's position after ``actions`` (arrays of any common shape); no legality check."""
    actions = np.asarray(actions, dtype=np.int64)
    is_pass = actions == geo.config.pass_action
    slot, placement = np.divmod(np.where(is_pass, 0, actions), geo.placements)
    move = geo.moves[np.maximum(slot - 1, 0)]
    landing = (marker_me + move) % len(geo.track_kind)
    marker = np.where(is_pass, pass_move(geo, marker_me, marker_opp), np.where(slot == 0, marker_me, landing))
    kind = np.where(is_pass, PASS, np.where(slot == 0, FIRST, geo.track_kind[landing]))
    bits = np.where(is_pass, U64(0), geo.placement_bits[placement])
    captured = np.where(kind == OVERGROW, 1, 0)
    placed = np.where(is_pass, 0, geo.placement_size[placement])
    return Outcome(
        own=own | bits,
        opp=opp & ~bits,
        marker=marker,
        supply=supply - placed,
        kind=kind,
        placed=placed,
        captured=captured,
    )


def expand_options(geo: Geometry, singles: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """bool ``[B, num_actions]`` from per-slot placement bitboards ``[B, slots]``."""
    size = singles.shape[0]
    mask = np.zeros((size, geo.config.num_actions), dtype=bool)
    single_flags = geo.grid.to_cells(singles)  # [B, slots, cells]
    pair_flags = geo.grid.to_cells(pairs)
    pair_cells = np.nonzero(geo.pair_of_left_cell >= 0)[0]
    per_slot = np.zeros((size, geo.slots, geo.placements), dtype=bool)
    per_slot[:, :, : geo.cells] = single_flags
    per_slot[:, :, geo.pair_of_left_cell[pair_cells]] = pair_flags[:, :, pair_cells]
    mask[:, : geo.slots * geo.placements] = per_slot.reshape(size, -1)
    mask[:, geo.config.pass_action] = ~per_slot.reshape(size, -1).any(axis=1)
    return mask


@dataclass
class OvergrowthState(BatchedState):
    stones: np.ndarray  # uint64 [B, 2]: flowers of each seat
    markers: np.ndarray  # int64 [B, 2]: track space of each seat's marker
    supply: np.ndarray  # int64 [B, 2]: flowers not yet placed
    winner: np.ndarray  # int8 [B]: seat, NO_WINNER or TIE
    actions_of_kind: np.ndarray  # int32 [B, 2, 6]: actions taken of each kind code
    placed: np.ndarray  # int32 [B, 2]
    lost: np.ndarray  # int32 [B, 2]: own flowers overgrown
    kind_log: list


class OvergrowthEngine(BatchedEngine):
    """The batched Overgrowth engine."""

    players = 2
    end_reasons = END_REASONS

    def __init__(self, config: OvergrowthConfig):
        self.config = config
        self.geo = Geometry(config)
        self.num_actions = config.num_actions

    def init(self, seeds: np.ndarray) -> OvergrowthState:
        size = len(seeds)
        return OvergrowthState(
            seeds=np.asarray(seeds, dtype=np.uint64),
            done=np.zeros(size, dtype=bool),
            to_move=np.zeros(size, dtype=np.int8),
            turn=np.zeros(size, dtype=np.int32),
            end=np.zeros(size, dtype=np.int8),
            decisions=np.zeros(size, dtype=np.int32),
            stones=np.zeros((size, 2), dtype=np.uint64),
            markers=np.tile(np.array(self.config.start, dtype=np.int64), (size, 1)),
            supply=np.full((size, 2), self.config.flowers, dtype=np.int64),
            winner=np.full(size, NO_WINNER, dtype=np.int8),
            actions_of_kind=np.zeros((size, 2, len(KIND_NAMES)), dtype=np.int32),
            placed=np.zeros((size, 2), dtype=np.int32),
            lost=np.zeros((size, 2), dtype=np.int32),
            kind_log=[],
        )

    def mover_view(self, state: OvergrowthState):
        """``(own, opp, marker_me, marker_opp, supply, home_area)`` of the player to move."""
        rows = np.arange(state.size)
        me = state.to_move.astype(np.int64)
        home_area = np.where(state.turn < 2, self.geo.area[me], U64(0))
        return (state.stones[rows, me], state.stones[rows, 1 - me], state.markers[rows, me],
                state.markers[rows, 1 - me], state.supply[rows, me], home_area)

    def options(self, state: OvergrowthState):
        """Per-slot legal placements of the player to move (all empty for finished games)."""
        singles, pairs = slot_options(self.geo, *self.mover_view(state))
        live = ~state.done[:, None]
        return np.where(live, singles, U64(0)), np.where(live, pairs, U64(0))

    def legal_mask(self, state: OvergrowthState) -> np.ndarray:
        singles, pairs = self.options(state)
        mask = expand_options(self.geo, singles, pairs)
        mask[state.done] = False
        return mask

    def step(self, state: OvergrowthState, actions: np.ndarray) -> None:
        active = ~state.done
        rows = np.nonzero(active)[0]
        if rows.size == 0:
            state.kind_log.append(np.full(state.size, -1, dtype=np.int8))
            return
        me = state.to_move[rows].astype(np.int64)
        them = 1 - me
        outcome = apply_action(
            self.geo, state.stones[rows, me], state.stones[rows, them], state.markers[rows, me],
            state.markers[rows, them], state.supply[rows, me], actions[rows])
        state.stones[rows, me] = outcome.own
        state.stones[rows, them] = outcome.opp
        state.markers[rows, me] = outcome.marker
        state.supply[rows, me] = outcome.supply
        state.actions_of_kind[rows, me, outcome.kind] += 1
        state.placed[rows, me] += outcome.placed
        state.lost[rows, them] += outcome.captured
        log = np.full(state.size, -1, dtype=np.int8)
        log[rows] = outcome.kind
        state.kind_log.append(log)

        joined = connected(self.geo, outcome.own)
        spent = ~joined & (outcome.supply == 0)
        mine, theirs = popcount(outcome.own), popcount(outcome.opp)
        winner = np.where(joined, me, np.where(mine > theirs, me, np.where(mine < theirs, them, TIE)))
        ended = joined | spent
        state.winner[rows[ended]] = winner[ended]
        state.end[rows[joined]] = END_REASONS.index("connection")
        state.end[rows[spent]] = END_REASONS.index("flowers")
        state.done[rows[ended]] = True
        state.turn[rows] += 1
        state.to_move[rows] = them

    def results(self, state: OvergrowthState) -> GameResults:
        size = state.size
        rank = np.zeros((size, 2), dtype=np.int8)
        decided = (state.winner == 0) | (state.winner == 1)
        seat = np.arange(2)[None, :]
        rank[decided] = np.where(seat == state.winner[decided, None], 1, 2)
        rank[state.winner == TIE] = 1
        kinds = state.actions_of_kind
        seat_columns = {
            "flowers_placed": state.placed.copy(),
            "flowers_lost": state.lost.copy(),
            **{name: kinds[:, :, code].copy() for code, name in enumerate(ACTION_KINDS)},
            "passes": kinds[:, :, PASS].copy(),
        }
        return GameResults(
            score=popcount(state.stones).astype(np.float64),
            rank=rank,
            end=state.end.copy(),
            turns=state.turn.copy(),
            seat_columns=seat_columns,
        )

    def invariants(self, state: OvergrowthState) -> dict[str, np.ndarray]:
        own, other = state.stones[:, 0], state.stones[:, 1]
        on_board = popcount(state.stones)
        one_per_area = np.ones(state.size, dtype=bool)
        for area in self.geo.area:
            one_per_area &= (popcount(state.stones & area) <= 1).all(axis=1)
        return {
            "flowers conserved": (on_board == self.config.flowers - state.supply - state.lost).all(axis=1),
            "placed = flowers - supply": (state.placed == self.config.flowers - state.supply).all(axis=1),
            "one cell, one flower": (own & other) == 0,
            "inside the board": ((own | other) & ~self.geo.grid.full) == 0,
            "one flower of a colour per shaded area": one_per_area,
            "markers apart": state.markers[:, 0] != state.markers[:, 1],
        }

    def events(self, state: OvergrowthState, trace: Trace) -> dict[str, np.ndarray]:
        """One row per action: game, turn, seat, kind, steps moved, first and second cell placed."""
        actions = trace.actions
        kinds = np.stack(state.kind_log, axis=1) if state.kind_log else np.zeros_like(actions, dtype=np.int8)
        games, turns = np.nonzero(actions >= 0)
        chosen = actions[games, turns].astype(np.int64)
        is_pass = chosen == self.config.pass_action
        slot, placement = np.divmod(np.where(is_pass, 0, chosen), self.geo.placements)
        steps = np.where(slot == 0, 0, self.geo.moves[np.maximum(slot - 1, 0)])
        is_pair = ~is_pass & (placement >= self.geo.cells)
        first_cell = np.where(is_pair, placement - self.geo.cells, placement)
        pair_row = first_cell // (self.config.columns - 1)
        left = pair_row * self.config.columns + first_cell % (self.config.columns - 1)
        cell = np.where(is_pass, -1, np.where(is_pair, left, placement))
        return {
            "game": games.astype(np.int64),
            "turn": turns.astype(np.int32),
            "seat": (turns % 2).astype(np.int8),
            "kind": np.array(KIND_NAMES)[kinds[games, turns]],
            "steps": np.where(is_pass, -1, steps).astype(np.int8),
            "cell": cell.astype(np.int16),
            "cell2": np.where(is_pair, left + 1, -1).astype(np.int16),
        }

    def snapshot(self, state: OvergrowthState, game: int) -> dict:
        flags = self.geo.grid.to_cells(state.stones[game])
        board = [0 if flags[0, c] else 1 if flags[1, c] else -1 for c in range(self.geo.cells)]
        return {
            "board": board,
            "markers": [int(m) for m in state.markers[game]],
            "supply": [int(s) for s in state.supply[game]],
            "turn": int(state.turn[game]),
            "end": END_REASONS[state.end[game]],
        }
