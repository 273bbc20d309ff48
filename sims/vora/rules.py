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
kinds' boards never overlap and an empty cell is in none of them. Farms are
counts ``farms[g, seat, kind]``; the bag is the setup shuffle as kinds in
draw order (``bag[g, i]``) with a pointer to the next cube.

Every main action is one row of per-action tables (``tables.Geometry._action_tables``):
a line shift for pushes, then two bit toggles, the farm cube spent and gained,
the fall side and the seat that takes a fallen cube.

A step applies one decision and then resolves everything that needs no
decision (collections, falls, cascades, refill and the next seat), stopping at
the next decision: a loop over *stages* (COMBOS -> FALL -> COLLECT -> ... ->
END). Legal actions, the step and the bots' one-ply scoring run game by game
in the compiled kernels of :mod:`sims.vora.kernels` (the per-step cost of many
small numpy calls is what limited this engine); this module moves the state
in and out of them, and :mod:`sims.vora.tables` builds their tables. The
rules are in docs/rules/vora.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from sims.core.engine import BatchedEngine, BatchedState, GameResults, Trace
from sims.core.events import EventField, EventLog
from sims.core.grid import popcount
from sims.core.rng import shuffle_order
from sims.vora import kernels
from sims.vora.kernels import MAIN, RECIPIENT
from sims.vora.config import ACTION_SPECIALS, BLOCKS, LOOP_MEMORY, PHASES, SIDES, SPECIAL_OF_BLOCK, VoraConfig
from sims.vora.tables import Geometry

U64 = np.uint64
ONE = U64(1)
END_REASONS = ("", "bag_empty", "stall")
# Per-seat counters reported as record columns (the reference's names), numbered as kernels.COLLECTED ...
STAT_NAMES = ("collected", "extras", "bigs", "picks", "steals", "stolen", "declines", "pushes", "received") + tuple(
    f"special_{name}" for name in ACTION_SPECIALS)


def event_fields(config: VoraConfig) -> tuple[EventField, ...]:
    """The event log's fields, all written by the step kernel (:meth:`VoraEngine.advance`): the seat and phase
    deciding, block, kind, collected, extras, bigs, victim, the kinds collected and the kinds whose passive
    special shaped a collection as bits (kind ``k`` is bit ``k``), then the mover's family-score change."""
    return (EventField("seat", np.int8), EventField("phase", np.int8, labels=PHASES),
            EventField("block", np.int8, labels=BLOCKS), EventField("kind", np.int8, labels=config.kind_names),
            EventField("collected", np.int16, empty=0), EventField("extras", np.int8, empty=0),
            EventField("bigs", np.int8, empty=0), EventField("victim", np.int8),
            EventField("kinds_collected", np.int32, empty=0), EventField("passive_kinds", np.int32, empty=0),
            EventField("points", np.float32, empty=0))


def _meadows(kinds: np.ndarray) -> np.ndarray:
    """Meadows ``kinds[K, n]`` as the kernels' rows: uint64 ``[n, K]``, contiguous."""
    return np.ascontiguousarray(np.asarray(kinds).T, dtype=np.uint64)


def has_formation(geo: Geometry, kinds: np.ndarray) -> np.ndarray:
    """bool ``[n]``: does each meadow ``kinds[K, n]`` hold anything to collect?"""
    meadows = _meadows(kinds)
    found = np.zeros(meadows.shape[0], dtype=bool)
    kernels.formations_found(geo.tables, meadows, found)
    return found


def find_formations(geo: Geometry, kinds: np.ndarray):
    """What a collection takes from meadows ``kinds[K, n]``.

    Returns ``(collected [K, n], extras [n], bigs [n])``: the cells collected
    per kind (runs, liquid groups, grazed pasture) and the combos earned, one
    per formation (runs joined by shared cubes; a liquid group) by its size.
    """
    meadows = _meadows(kinds)
    collected = np.zeros_like(meadows)
    combos = np.zeros((meadows.shape[0], 2), dtype=np.int64)
    kernels.formations_of(geo.tables, meadows, collected, combos)
    return collected.T.astype(geo.board), combos[:, 0], combos[:, 1]


@dataclass
class VoraState(BatchedState):
    meadow: np.ndarray  # Geometry.board [B, K]: cells of each kind
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
    previous: np.ndarray  # Geometry.board [B, LOOP_MEMORY, K]: the meadows before the last main actions, last first (bots)
    quiet: np.ndarray  # int16 [B]: turns in a row that drew nothing from the bag (bots: no-progress streaks)
    events: EventLog  # per step: seat, phase, block, kind, collected, extras, bigs, victim, ... (event_fields)


STATE_FIELDS = ("meadow", "farms", "stats", "bag", "bag_pointer", "phase", "fallen", "extra_left", "big_left",
                "fall_side", "wolf_cell", "to_move", "turn", "done", "end", "previous")


def state_arrays(state: VoraState) -> tuple:
    """The state's arrays in the order :func:`kernels.load` takes them, made contiguous in place if needed."""
    for name in STATE_FIELDS:
        value = getattr(state, name)
        if not value.flags.c_contiguous:
            setattr(state, name, np.ascontiguousarray(value))
    return tuple(getattr(state, name) for name in STATE_FIELDS)


class VoraEngine(BatchedEngine):
    """The batched Vora engine for one player count."""

    end_reasons = END_REASONS

    def __init__(self, config: VoraConfig, players: int):
        self.config = config
        self.players = players
        self.geo = Geometry(config, players)
        self.num_actions = config.num_actions
        self.event_fields = event_fields(config)

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
            previous=np.zeros((size, LOOP_MEMORY, k), dtype=geo.board),
            quiet=np.zeros(size, dtype=np.int16),
            events=EventLog(self.event_fields),
        )

    def meadow_of_cells(self, cells: np.ndarray) -> np.ndarray:
        """Per-kind bitboards ``[n, K]`` from kinds per cell ``[n, C]`` (-1 empty)."""
        geo = self.geo
        flags = cells[:, None, :] == np.arange(geo.k, dtype=cells.dtype)[None, :, None]
        packed = np.packbits(flags, axis=2, bitorder="little")  # [n, K, bytes]: cell c is bit c
        words = np.zeros(packed.shape[:2] + (8,), dtype=np.uint8)
        words[:, :, :packed.shape[2]] = packed
        return np.ascontiguousarray(words.view("<u8")[:, :, 0].astype(geo.board))

    def cells_of_meadow(self, meadow: np.ndarray) -> np.ndarray:
        """Kinds per cell ``[n, C]`` (-1 empty) from per-kind bitboards ``[n, K]``."""
        geo = self.geo
        flags = ((meadow[:, :, None] >> np.arange(geo.c, dtype=np.uint64)) & ONE).astype(bool)
        return np.where(flags.any(axis=1), np.argmax(flags, axis=1), -1)

    # --- legal actions ------------------------------------------------------------

    def legal_groups(self, state: VoraState, rows: np.ndarray) -> np.ndarray:
        """uint64 ``[len(rows), groups]``: legal action flags of games ``rows`` (see :class:`Geometry`)."""
        groups = np.zeros((rows.size, self.geo.groups), dtype=np.uint64)
        if rows.size:
            kernels.legal_games(self.geo.tables, state_arrays(state), np.asarray(rows, dtype=np.int64), groups)
        return groups

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

    def choose_uniform(self, state: VoraState, rows: np.ndarray, u: np.ndarray) -> np.ndarray:
        """:meth:`BatchedEngine.choose_uniform`, compiled (:func:`kernels.choose_uniform`): the legal groups are
        counted and the chosen action found game by game, with no mask built."""
        rows = np.ascontiguousarray(rows, dtype=np.int64)
        chosen = np.full(rows.size, -1, dtype=np.int64)
        kernels.choose_uniform(self.geo.tables, state_arrays(state), rows, np.ascontiguousarray(u, dtype=np.float64),
                               chosen)
        return chosen

    # --- step ------------------------------------------------------------------------

    def step(self, state: VoraState, actions: np.ndarray) -> None:
        self.advance(state, actions, refill=True)

    def advance(self, state: VoraState, actions: np.ndarray, refill: bool = True) -> None:
        """Apply one decision per live game and resolve until the next decision; count the turns in a row that
        drew nothing from the bag (``quiet``).

        ``refill=False`` (bots' branches) ends turns without drawing from the bag.
        """
        if not state.quiet.flags.c_contiguous:
            state.quiet = np.ascontiguousarray(state.quiet)
        log = state.events
        blocks = self._log_blocks(state.size if log.enabled else 0)
        kernels.step_games(self.geo.tables, state_arrays(state), state.quiet,
                           np.ascontiguousarray(actions, dtype=np.int64), refill, log.enabled, blocks)
        if log.enabled:
            small, collected, bits, points = blocks
            log.record(seat=small[0], phase=small[1], block=small[2], kind=small[3], extras=small[4], bigs=small[5],
                       victim=small[6], collected=collected, kinds_collected=bits[0], passive_kinds=bits[1],
                       points=points)

    @staticmethod
    def _log_blocks(size: int) -> tuple[np.ndarray, ...]:
        """Uninitialised arrays of a step's event fields by dtype, as :func:`kernels.step_games` fills them."""
        return (np.empty((7, size), dtype=np.int8), np.empty(size, dtype=np.int16),
                np.empty((2, size), dtype=np.int32), np.empty(size, dtype=np.float32))

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
        the seat given a fallen cube by a recipient decision); ``special``: the
        kind whose action special the decision used; ``passive``: the kinds whose
        passive special shaped a collection it set off (water: liquid, cubes
        outside straight lines; sheep: grazer, grass taken beside its lines),
        comma-separated; ``points``: the mover's family-score change over the
        whole decision (the action and everything it set off).
        """
        if not len(state.events):
            return None
        table = state.events.decisions(trace)
        games, steps = table["game"], table["decision"]
        order = ("game", "decision", "seat", "phase", "action", "block", "kind", "collected", "extras", "bigs",
                 "victim", "special", "collected_kinds", "passive", "points")
        table["action"] = trace.actions[games, steps].astype(np.int32)
        table["special"] = self.special_kinds[state.events.stacked("block")[games, steps]]
        table["collected_kinds"] = self.kind_lists(table.pop("kinds_collected"))
        table["passive"] = self.kind_lists(table.pop("passive_kinds"))
        return {name: table[name] for name in order}

    @cached_property
    def special_kinds(self) -> np.ndarray:
        """str ``[len(BLOCKS) + 1]``: by block code (-1 last), the kind whose action special the block uses
        (rules §4.3, §5), "" for a block that uses none or a special no kind has."""
        names = self.config.kind_names
        kinds = [self.config.kind_with(SPECIAL_OF_BLOCK.get(block, "none")) for block in BLOCKS]
        return np.array([names[kind] if kind >= 0 else "" for kind in kinds] + [""])

    def kind_lists(self, bits: np.ndarray) -> np.ndarray:
        """str ``[n]``: the kinds whose bits are set (bit ``k`` is kind ``k``), comma-separated in kind order."""
        names = self.config.kind_names
        words, index = np.unique(bits, return_inverse=True)
        lists = [",".join(name for k, name in enumerate(names) if int(word) >> k & 1) for word in words]
        return np.array(lists + [""])[index] if bits.size else np.zeros(0, dtype=str)

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
        if block == "decline":
            return "decline"
        return f"{block} {' '.join(map(str, fields))}"

    def progress(self, state: VoraState, rows: np.ndarray) -> np.ndarray:
        """Each seat's score if the game ended now (its farm scored), float64 ``[len(rows), players]``."""
        return self.geo.scores(state.farms[rows].astype(np.int64))

