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
Legal placements are found one game at a time by the compiled ``kernels.options``;
the pure functions below apply actions to arrays of any shape.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sims.core.engine import BLOCKED, STALL, BatchedEngine, BatchedState, GameResults, Trace
from sims.core.events import EventField, EventLog
from sims.core.grid import popcount
from sims.overgrowth import kernels
from sims.overgrowth.kernels import PASS
from sims.overgrowth.config import ACTION_KINDS, OvergrowthConfig
from sims.overgrowth.tables import Geometry, make_tables

U64 = np.uint64
END_REASONS = ("", "connection", "flowers", BLOCKED, STALL)
KIND_NAMES = ACTION_KINDS + ("first", "pass")
NO_WINNER, TIE = -1, 2
FAR = np.int16(-1)
# What the step logs (the action's kind, the flowers it put on the board: the mover's score change); events()
# adds the rest
EVENT_FIELDS = (EventField("kind", np.int8, labels=KIND_NAMES), EventField("points", np.int8, empty=0))


def expand_options(geo: Geometry, singles: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """Rules §3.3: bool ``[B, num_actions]`` from per-slot placement bitboards ``[B, slots]``; the pass where
    no placement is legal."""
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
    events: EventLog  # per step: each game's action kind code and points (EVENT_FIELDS)


class OvergrowthEngine(BatchedEngine):
    """The batched Overgrowth engine."""

    players = 2
    end_reasons = END_REASONS

    def __init__(self, config: OvergrowthConfig):
        self.config = config
        self.geo = Geometry(config)
        self.tables = make_tables(self.geo)
        self.step_codes = np.array([END_REASONS.index("connection"), END_REASONS.index("flowers"), TIE,
                                    END_REASONS.index(BLOCKED)])
        self.num_actions = config.num_actions

    def init(self, seeds: np.ndarray) -> OvergrowthState:
        """Rules §2.1, §1.3: markers on their start spaces, every flower in its supply, seat 0 to move."""
        size = len(seeds)
        state = OvergrowthState(
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
            events=EventLog(EVENT_FIELDS),
        )
        head_start = self.config.head_start  # the balancing variant: seat 1's flowers already on the board
        for cell in head_start:
            state.stones[:, 1] |= U64(1) << U64(cell)
        state.supply[:, 1] -= len(head_start)
        state.placed[:, 1] += len(head_start)
        return state

    def options(self, state: OvergrowthState):
        """Per-slot legal placements of the player to move (all empty for finished games)."""
        return kernels.options(state.stones, state.markers, state.supply, state.to_move, state.turn, state.done,
                               self.tables)

    def legal_mask(self, state: OvergrowthState) -> np.ndarray:
        """Rules §3.3 (``OvergrowthGame.legal_actions``)."""
        singles, pairs = self.options(state)
        mask = expand_options(self.geo, singles, pairs)
        mask[state.done] = False
        return mask

    def choose_uniform(self, state: OvergrowthState, rows: np.ndarray, u: np.ndarray) -> np.ndarray:
        """:meth:`BatchedEngine.choose_uniform`, compiled (:func:`kernels.choose_uniform`)."""
        return kernels.choose_uniform(state.stones, state.markers, state.supply, state.to_move, state.turn,
                                      np.ascontiguousarray(rows, dtype=np.int64), np.ascontiguousarray(u), self.tables)

    def step(self, state: OvergrowthState, actions: np.ndarray) -> None:
        """Rules §3.4 (``OvergrowthGame.apply``, then ``check_end`` and ``blocked``): :func:`kernels.step`."""
        kinds, points = kernels.step(state.stones, state.markers, state.supply, state.to_move, state.turn, state.done,
                             state.winner, state.end, state.actions_of_kind, state.placed, state.lost,
                             np.ascontiguousarray(actions, dtype=np.int64), self.tables, self.step_codes)
        state.events.record(kind=kinds, points=points)

    def results(self, state: OvergrowthState) -> GameResults:
        """Rules §6.5 (``OvergrowthGame.result``)."""
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
        """One row per action: game, turn, seat, kind, steps moved, first and second cell placed, and
        ``points``: the flowers it put on the board, the mover's score change (an overgrow also takes one of
        the opponent's)."""
        logged = state.events.decisions(trace, index="turn")
        games, turns = logged["game"], logged["turn"]
        chosen = trace.actions[games, turns].astype(np.int64)
        is_pass = chosen == self.config.pass_action
        slot, placement = np.divmod(np.where(is_pass, 0, chosen), self.geo.placements)
        steps = np.where(slot == 0, 0, self.geo.moves[np.maximum(slot - 1, 0)])
        is_pair = ~is_pass & (placement >= self.geo.cells)
        first_cell = np.where(is_pair, placement - self.geo.cells, placement)
        pair_row = first_cell // (self.config.columns - 1)
        left = pair_row * self.config.columns + first_cell % (self.config.columns - 1)
        cell = np.where(is_pass, -1, np.where(is_pair, left, placement))
        return {
            "game": games,
            "turn": turns,
            "seat": (turns % 2).astype(np.int8),
            "kind": logged["kind"],
            "steps": np.where(is_pass, -1, steps).astype(np.int8),
            "cell": cell.astype(np.int16),
            "cell2": np.where(is_pair, left + 1, -1).astype(np.int16),
            "points": logged["points"],
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

    def progress(self, state: OvergrowthState, rows: np.ndarray) -> np.ndarray:
        """Each seat's flowers on the board now (its score at the end), float64 ``[len(rows), 2]``."""
        return popcount(state.stones[rows]).astype(np.float64)
