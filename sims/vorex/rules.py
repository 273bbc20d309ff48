"""Vorex, batched: N games as numpy arrays with a leading game axis.

The rules are the ones written in :mod:`sims.vorex.config`'s docstring. The
forest is stored per hex number (``tile``, ``part``, ``kind``, ``flower``);
tile placements are checked with precomputed tables per (shape, anchor,
rotation): the 4 cells, the cyclic sequence of hexes around the tile and its
distinct neighbour hexes (:mod:`sims.vorex.tables`, built once per config).

Closed regions. The covered hexes (tiles and ruins) always form one
6-connected set (every tile but the first touches it), and before a placement
every empty hex reaches the ring. By Euler's formula a new tile touching the
forest in ``r`` separate runs along its boundary closes exactly ``r - 1``
empty regions; each closed region touches the tile. The ``r`` gaps between
the runs (stretches of empty hexes along the boundary) lie in ``r`` different
regions, all closed but one, so a placement is legal iff at most one gap holds
a hex that does not become a single enclosed hex (every closed region is then
a single hex: a ruin).

Hot pieces run as compiled loops over the game axis (:mod:`sims.vorex.kernels`):
placement legality (a walk around each placement), the legal blooms and their
payments, the points, and the random bot's choice.

Kept between decisions: each flower's group label (the smallest hex of its
6-connected same-seat group, updated when a flower lands), each group's
flowers on production stumps by resource, the covered hexes as bits, each stump's tile hex, the legal
placements per (game, shape) until the next tile lands, and the legal blooms
of the current decision (and, for the events, every seat's points at the last
logged step). After changing a state's arrays by hand, call
:meth:`VorexEngine.forget_cache` (it recomputes all of these from the map).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sims.core.engine import STALL, BatchedEngine, BatchedState, GameResults, Trace
from sims.core.events import EventField, EventLog
from sims.core.rng import shuffle_order
from sims.vorex import checks, kernels
from sims.vorex.config import (
    ARID,
    BLOCKS,
    BROWN,
    END_REASONS,
    EVENT_KINDS,
    GREEN,
    HEX_KINDS,
    LIGHT,
    PHASES,
    POINTS,
    PRODUCED_COLUMNS,
    RESOURCES,
    ROTATIONS,
    SEAT_COLUMNS,
    SETUP_SLOTS,
    TILE_HEXES,
    VorexConfig,
    event_kind,
)
from sims.vorex.kernels import EMPTY, FIRST_PRODUCTION, LAST_PRODUCTION, POINT_COLUMNS, RUIN
from sims.vorex.render import describe_action
from sims.vorex.tables import (PRODUCTION_LANES, Board, TileTables, count6, nonzero2,
                               pack_bits, production_totals, unpack_words)

SETUP, ACTION, BONUS_EXPAND, BONUS_BLOOM, WEED_BLOOM, WEED_EXPAND = range(6)
CONTINUE = 6  # internal: the decision's effects are over, the turn goes on (never a decision)
WEED = 1
KIND_BLOOM, KIND_DRAW, KIND_EXPAND = (HEX_KINDS.index(k) for k in ("bloom", "draw", "expand"))
END = {name: index for index, name in enumerate(END_REASONS)}

# Counters kept during play (the other seat columns are computed at the end).
STATS = ("flowers_placed", "flowers_ruins", "resources_gained", "resources_paid", "tiles_placed", "draws",
         "expands", "blooms", "bonus_draws", "bonus_expands", "bonus_blooms")
STAT = {name: index for index, name in enumerate(STATS)}
# the events kind of each (phase, block) decision (config.event_kind, both engines)
KIND_OF = np.array([[EVENT_KINDS.index(event_kind(phase, block)) for block in BLOCKS] for phase in PHASES])
# what a step logs of each decision; block and kind are read from the action and the phase at the end
COUNTS = ("stump_points", "reduced", "paid", "light_paid", "gained", "ruins_formed", "ruin_flowers")
EVENT_FIELDS = (EventField("turn", np.int32), EventField("seat", np.int8), EventField("phase", np.int8),
                EventField("tile", np.int16), EventField("stump", np.int8, labels=HEX_KINDS),
                *(EventField(name, np.int16, empty=0)
                  for name in COUNTS + ("points",) + POINT_COLUMNS + PRODUCED_COLUMNS))
# the events' produced column: the kinds of a bit set of RESOURCES (bit k: kind k produced), joined by ","
PRODUCED_KINDS = np.array([",".join(name for k, name in enumerate(RESOURCES) if bits >> k & 1)
                           for bits in range(1 << len(RESOURCES))])

WEED_BLOOMS = 2  # the weed blooms twice a turn (rulebook), whatever rules.actions_per_turn says


@dataclass
class VorexState(BatchedState):
    tile: np.ndarray  # int16 [B, H+2]: tile id, EMPTY or RUIN (sentinel columns: EMPTY, RUIN)
    part: np.ndarray  # int8 [B, H+2]: index 0..3 of the tile hex, -1
    kind: np.ndarray  # int8 [B, H+2]: HEX_KINDS index of the tile hex, -1
    flower: np.ndarray  # int8 [B, H+2]: seat, -1
    group: np.ndarray  # int16 [B, H+2]: a flower's group label (a hex of the group), -1
    stump: np.ndarray  # int16 [B, H+2]: tile * 4 + part of each stump (flower or not), -1
    covered: np.ndarray  # uint64 [B, ceil((H+2) / 64)]: bit h % 64 of word h // 64 set iff hex h is not EMPTY
    production: np.ndarray  # uint64 [B, H+2]: at each group label, the group's flowers on production stumps; 0 elsewhere
    #   by resource (light, mushroom, water, insect) as 4 int16 counts in one word (PRODUCTION_LANES); 0 elsewhere
    settled: np.ndarray  # bool [B, H+2]
    resources: np.ndarray  # int16 [B, S, 4]
    supply: np.ndarray  # int16 [B, 4]
    flowers_left: np.ndarray  # int16 [B, S]
    face_up: np.ndarray  # int16 [B, 2]
    pile: np.ndarray  # int16 [B, N]
    pile_pointer: np.ndarray  # int16 [B]
    setup_tiles: np.ndarray  # int16 [B, S, 3]: unplaced setup tiles, -1
    light_hex: np.ndarray  # int16 [B, S]: the starting tile's light stump, -1
    phase: np.ndarray  # int8 [B]
    actions_left: np.ndarray  # int8 [B]
    extra: np.ndarray  # bool [B]: the WEED_BLOOM decision is an extra one
    last_flower: np.ndarray  # bool [B]
    offered: np.ndarray  # bool [B]: an ACTION decision of this round offered a bloom or a place
    tiles_on_map: np.ndarray  # int16 [B]
    stats: np.ndarray  # int32 [B, S, len(STATS)]
    green: np.ndarray  # int8 [B]: GREEN index, -1 none
    place_cache: np.ndarray  # uint64 [B, shapes, place_words]: legal placements per shape as bits (bit p % 64
    #   of word p // 64 is placement p = anchor * 6 + rotation), valid where cache_valid
    cache_valid: np.ndarray  # bool [B, shapes]
    bloom_cache: np.ndarray  # bool [B, P]: legal blooms at the current decision (where bloom_stamp == steps)
    bloom_stamp: np.ndarray  # int64 [B]
    brown: np.ndarray  # int8 [B]
    scores: np.ndarray  # int16 [B, 4, S]: every seat's points by score line when the event log last looked
    events: EventLog  # per step: the decision's turn, seat, phase, tile, stump, counts and points (EVENT_FIELDS)
    steps: int = 0


def map_moves(state: VorexState, rows: np.ndarray) -> np.ndarray:
    """int64 ``[n]``: the tiles laid plus the flowers placed so far in games ``rows``. The points (rules §8) read
    only the map (tiles, ruins, flowers, groups) and the objectives; tiles and flowers are only ever added and
    ruins form only with a tile, so a decision that leaves this count as it was changes no seat's points."""
    return state.tiles_on_map[rows].astype(np.int64) - state.flowers_left[rows].sum(axis=1)


class VorexEngine(BatchedEngine):
    end_reasons = END_REASONS

    def __init__(self, config: VorexConfig, players: int):
        self.config, self.players = config, config.seats(players)
        self.player_count = players
        self.solo = players == 1
        self.num_actions = config.num_actions
        self.board = Board(config)
        self.place_tables = self.board.place_tables
        self.offsets = config.offsets
        P = config.playable
        self.P, self.H = P, config.window
        tiles = TileTables(config)
        self.tile_shape, self.tile_kind, self.tile_cost = tiles.tile_shape, tiles.tile_kind, tiles.tile_cost
        self.tile_value, self.tile_beetles, self.tile_level = tiles.tile_value, tiles.tile_beetles, tiles.tile_level
        self.tile_count, self.tile_stumps, self.arid_cells = tiles.tile_count, tiles.tile_stumps, tiles.arid_cells
        self.category = tiles.category
        levels = config.pile_levels(players)
        self.pile_levels = levels
        self.pile_size = sum(len(level) for level in levels)
        self.choice_bases = np.array([self.offsets["bloom"], self.offsets["place"], P * ROTATIONS, config.draw_action,
                                      config.decline_action], dtype=np.int64)

    # --- setup ------------------------------------------------------------------------------

    def init(self, seeds: np.ndarray) -> VorexState:
        cfg, board = self.config, self.board
        seeds = np.asarray(seeds, dtype=np.uint64)
        B, S, W = seeds.shape[0], self.players, self.H + 2
        if cfg.green == "random":
            green = shuffle_order(seeds, "objectives/green", 0, 5)[:, 0].astype(np.int8)
        else:
            green = np.full(B, -1 if cfg.green == "none" else GREEN.index(cfg.green), dtype=np.int8)
        if cfg.brown == "random":
            brown = shuffle_order(seeds, "objectives/brown", 0, 5)[:, 0].astype(np.int8)
        else:
            brown = np.full(B, BROWN.index(cfg.brown), dtype=np.int8)
        boards = 1 if self.solo else S
        resources = np.zeros((B, S, 4), dtype=np.int16)
        resources[:, :, 0] = cfg.seat_start_light(self.player_count)
        supply = np.tile(np.array(cfg.initial_supply(self.player_count), dtype=np.int16), (B, 1))
        flowers_left = np.full((B, S), cfg.flowers, dtype=np.int16)
        if self.solo:
            flowers_left[:, WEED] = cfg.weed_flowers
        setup = np.full((B, S, SETUP_SLOTS), -1, dtype=np.int16)
        level0 = np.array(cfg.level0_tiles, dtype=np.int16)
        order = shuffle_order(seeds, "setup/level0", 0, len(level0))
        for seat in range(boards):
            setup[:, seat, 0] = cfg.starting_tiles[seat]
            setup[:, seat, 1] = level0[order[:, seat]]
        if self.solo:
            setup[:, 0, 2] = level0[order[:, 1]]
        parts = []
        for number, level in enumerate(self.pile_levels, start=1):
            ids = np.array(level, dtype=np.int16)
            parts.append(ids[shuffle_order(seeds, f"pile/level{number}", 0, len(ids))] if len(ids)
                         else np.zeros((B, 0), dtype=np.int16))
        pile = np.concatenate(parts, axis=1)
        face_up = np.full((B, 2), -1, dtype=np.int16)
        shown = min(2, pile.shape[1])
        face_up[:, :shown] = pile[:, :shown]
        tile = np.full((B, W), EMPTY, dtype=np.int16)
        tile[:, board.SHUT] = RUIN
        state = VorexState(
            seeds=seeds, done=np.zeros(B, bool), to_move=np.zeros(B, np.int8), turn=np.zeros(B, np.int32),
            end=np.zeros(B, np.int8), decisions=np.zeros(B, np.int32),
            tile=tile, part=np.full((B, W), -1, np.int8), kind=np.full((B, W), -1, np.int8),
            flower=np.full((B, W), -1, np.int8), group=np.full((B, W), -1, np.int16),
            stump=np.full((B, W), -1, np.int16), covered=pack_bits(tile != EMPTY),
            production=np.zeros((B, W), np.uint64),
            settled=np.zeros((B, W), bool), resources=resources, supply=supply, flowers_left=flowers_left,
            face_up=face_up, pile=pile, pile_pointer=np.full(B, shown, np.int16), setup_tiles=setup,
            light_hex=np.full((B, S), -1, np.int16), phase=np.full(B, SETUP, np.int8),
            actions_left=np.zeros(B, np.int8), extra=np.zeros(B, bool), last_flower=np.zeros(B, bool),
            offered=np.zeros(B, bool), tiles_on_map=np.zeros(B, np.int16),
            stats=np.zeros((B, S, len(STATS)), np.int32), green=green, brown=brown,
            place_cache=np.zeros((B, len(cfg.shapes), board.place_rows // 64), np.uint64),
            cache_valid=np.zeros((B, len(cfg.shapes)), bool), bloom_cache=np.zeros((B, self.P), bool),
            bloom_stamp=np.full(B, -1, np.int64), scores=np.zeros((B, len(POINT_COLUMNS), S), np.int16),
            events=EventLog(EVENT_FIELDS))
        self.continue_turn(state, np.arange(B))
        state.scores[:] = self.score_lines(state, np.arange(B))
        return state

    # --- placements ---------------------------------------------------------------------------

    def place_legal(self, state: VorexState, rows: np.ndarray, tiles: np.ndarray) -> np.ndarray:
        """bool ``[n, len(slots), P*6]``: legal placements of tile ``tiles[i, slot]`` (-1: none) in game ``rows[i]``.

        Legality depends only on the map and the tile's shape: it is kept per
        (game, shape) until the next tile lands (``state.place_cache``).
        """
        return unpack_words(self.place_words(state, rows, tiles), self.P * ROTATIONS)

    def place_words(self, state: VorexState, rows: np.ndarray, tiles: np.ndarray) -> np.ndarray:
        """:meth:`place_legal` as bits: uint64 ``[n, len(slots), place_words]``, bit p % 64 of word p // 64."""
        n, slots = tiles.shape
        legal = np.zeros((n, slots, self.board.place_rows // 64), dtype=np.uint64)
        if n == 0 or not (tiles >= 0).any():
            return legal
        shapes = np.where(tiles >= 0, self.tile_shape[np.maximum(tiles, 0)], -1)
        who, slot = nonzero2(shapes >= 0)
        shape = shapes[who, slot]
        stale = ~state.cache_valid[rows[who], shape]
        if stale.any():
            wanted = np.zeros((n, state.cache_valid.shape[1]), dtype=bool)  # each (game, shape) once
            wanted[who[stale], shape[stale]] = True
            i, kinds = nonzero2(wanted)
            games = rows[i]
            state.place_cache[games, kinds] = self._place_fresh(state, games, kinds)
            state.cache_valid[games, kinds] = True
        legal[who, slot] = state.place_cache[rows[who], shape]
        return legal

    def _place_fresh(self, state: VorexState, games: np.ndarray, shapes: np.ndarray, first_only: bool = False
                     ) -> np.ndarray:
        """uint64 ``[m, place_words]``: legal placements of shape ``shapes[i]`` on the map of game ``games[i]``,
        as bits (bit p % 64 of word p // 64).

        The cells are free and one touches the forest (the first tile covers
        the centre); along the boundary walk at most one gap holds a hex that
        does not become a single enclosed hex (see the module docstring).
        ``first_only``: only the first legal placement found.
        """
        return kernels.legal_placements(np.asarray(games, dtype=np.int64), np.asarray(shapes, dtype=np.int64),
                                        first_only, state.tile, state.tiles_on_map, self.place_tables,
                                        self.board.place_rows // 64)

    def place_exists(self, state: VorexState, rows: np.ndarray, tiles: np.ndarray) -> np.ndarray:
        """bool ``[n, slots]``: tile ``tiles[i, slot]`` (-1: none) has a legal placement in game ``rows[i]``.

        Kept legal placements answer at once; otherwise the test stops at the
        first legal placement.
        """
        n, slots = tiles.shape
        found = np.zeros((n, slots), dtype=bool)
        shapes = np.where(tiles >= 0, self.tile_shape[np.maximum(tiles, 0)], -1)
        who, slot = nonzero2(shapes >= 0)
        if who.size == 0:
            return found
        shape = shapes[who, slot]
        games = rows[who]
        kept = state.cache_valid[games, shape]
        found[who[kept], slot[kept]] = (state.place_cache[games[kept], shape[kept]] != 0).any(axis=1)
        ask = np.nonzero(~kept)[0]
        if ask.size:
            found[who[ask], slot[ask]] = (self._place_fresh(state, games[ask], shape[ask], first_only=True) != 0
                                          ).any(axis=1)
        return found

    def enclosed(self, state: VorexState, rows: np.ndarray, around: np.ndarray, touch: np.ndarray,
                 around_nb: np.ndarray | None = None) -> np.ndarray:
        """bool ``[n, M]``: which around hexes of a placement (``board.around`` and ``board.around_touch`` rows)
        become enclosed single hexes: empty hexes whose empty neighbours are exactly the tile's cells next to them.
        ``around_nb``: the matching ``board.around_nb`` rows ``[n, M * 6]`` if at hand."""
        W = self.H + 2
        flat = state.tile.ravel()
        base = (rows * W)[:, None]
        tile = flat[base + around]
        if around_nb is None:
            around_nb = self.board.neighbours_ext.take(around, axis=0).reshape(rows.size, -1)
        covered = flat.take(around_nb + base) != EMPTY
        covered_nb = count6(covered.reshape(-1, 6)).reshape(around.shape)
        return (tile == EMPTY) & (6 - covered_nb == touch)

    # --- blooms ---------------------------------------------------------------------------------

    def bloom_options(self, state: VorexState, rows: np.ndarray, free: np.ndarray) -> np.ndarray:
        """bool ``[n, P]``: legal blooms of the mover of games ``rows``; ``free`` marks weed blooms (no cost, no
        flower check). Compiled: :func:`kernels.legal_blooms`."""
        legal = np.empty((rows.size, self.P), dtype=bool)
        kernels.legal_blooms(np.asarray(rows, dtype=np.int64), free, state.to_move, state.stump, state.flower,
                             state.group, state.tile, state.part, state.resources, state.production,
                             state.flowers_left, self.tile_cost, self.board.neighbours, legal)
        return legal

    def bloom_payment(self, state: VorexState, rows: np.ndarray, hexes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rules §5.1, §5.2: what the movers of games ``rows`` pay to bloom ``hexes``: pay int64 ``[m, 4]`` (light,
        mushroom, water, insect) and reduced ``[m]`` (cost units their groups' production removed), compiled
        (:func:`kernels.bloom_payment`: the cost less the production of the mover's groups next to the stump,
        each group once, paid in kind, the shortfall in light)."""
        pay = np.empty((rows.size, 4), dtype=np.int64)
        reduced = np.empty(rows.size, dtype=np.int64)
        kernels.bloom_payments(np.asarray(rows, dtype=np.int64), np.asarray(hexes, dtype=np.int64), state.to_move,
                               state.flower, state.group, state.tile, state.part, state.resources, state.production,
                               self.tile_cost, self.board.neighbours, pay, reduced)
        return pay, reduced

    # --- legal actions ------------------------------------------------------------------------

    def _slot_tiles(self, state: VorexState, rows: np.ndarray) -> np.ndarray:
        """int [n, 3]: the tile of each place slot at the current decision (-1: none)."""
        phase = state.phase[rows]
        tiles = np.full((rows.size, SETUP_SLOTS), -1, dtype=np.int64)
        setup = phase == SETUP
        tiles[setup] = state.setup_tiles[rows[setup], state.to_move[rows[setup]]]
        expand = (phase == ACTION) | (phase == BONUS_EXPAND) | (phase == WEED_EXPAND)
        tiles[expand, :2] = state.face_up[rows[expand]]
        return tiles

    def legal_mask(self, state: VorexState) -> np.ndarray:
        mask = np.zeros((state.size, self.num_actions), dtype=bool)
        rows = np.nonzero(~state.done)[0]
        if rows.size:
            mask[rows] = self.legal_rows(state, rows)
        return mask

    def legal_rows(self, state: VorexState, rows: np.ndarray) -> np.ndarray:
        """bool ``[n, num_actions]``: the legal actions of the (running) games ``rows``."""
        mask = np.zeros((rows.size, self.num_actions), dtype=bool)
        if rows.size == 0:
            return mask
        off, P = self.offsets, self.P
        blooms, places, draw, decline = self.legal_blocks(state, rows)
        mask[:, off["place"]:off["place"] + SETUP_SLOTS * P * ROTATIONS] = places.reshape(rows.size, -1)
        mask[:, off["bloom"]:off["bloom"] + P] = blooms
        mask[:, self.config.draw_action] = draw
        mask[:, self.config.decline_action] = decline
        return mask

    def legal_blocks(self, state: VorexState, rows: np.ndarray, packed: bool = False):
        """The legal actions of the (running) games ``rows`` by block, in action order: blooms bool ``[n, P]``,
        places bool ``[n, 3, P*6]`` (slot, anchor * 6 + rotation), draw bool ``[n]``, decline bool ``[n]``.
        ``packed``: places as bits instead, uint64 ``[n, 3, place_words]`` (see :meth:`place_words`)."""
        tiles = self._slot_tiles(state, rows)
        places = (self.place_words if packed else self.place_legal)(state, rows, tiles)
        phase = state.phase[rows]
        blooms = np.zeros((rows.size, self.P), dtype=bool)
        bloomers = np.nonzero((phase == ACTION) | (phase == BONUS_BLOOM) | (phase == WEED_BLOOM))[0]
        if bloomers.size:
            blooms[bloomers] = self.blooms(state, rows[bloomers])
        return blooms, places, phase == ACTION, (phase == BONUS_EXPAND) | (phase == BONUS_BLOOM)

    def choose_uniform(self, state: VorexState, rows: np.ndarray, u: np.ndarray) -> np.ndarray:
        """:meth:`BatchedEngine.choose_uniform` from the legal actions by block (:meth:`legal_blocks`, places as
        bits), counted and picked in one compiled loop (:func:`kernels.choose_uniform`), with no action mask."""
        chosen = np.empty(rows.size, dtype=np.int64)
        if rows.size:
            blooms, places, draw, decline = self.legal_blocks(state, rows, packed=True)
            kernels.choose_uniform(blooms, places, draw, decline, np.asarray(u, dtype=np.float64),
                                   self.choice_bases, chosen)
        return chosen

    def blooms(self, state: VorexState, rows: np.ndarray) -> np.ndarray:
        """bool ``[n, P]``: legal blooms of games ``rows`` at a bloom decision (kept until the next step)."""
        stale = state.bloom_stamp[rows] != state.steps
        if stale.any():
            sub = rows[stale]
            state.bloom_cache[sub] = self.bloom_options(state, sub, state.phase[sub] == WEED_BLOOM)
            state.bloom_stamp[sub] = state.steps
        return state.bloom_cache[rows]

    def forget_cache(self, state: VorexState) -> None:
        """Drop the kept legal placements and blooms and recompute the other kept arrays (production, covered,
        stump, scores) from the map (after changing a state's arrays by hand)."""
        state.cache_valid[:] = False
        state.bloom_stamp[:] = -1
        state.production[:] = production_totals(state.flower, state.kind, state.group, np.arange(state.size))
        state.covered[:] = pack_bits(state.tile != EMPTY)
        state.stump[:] = np.where(state.kind > ARID, state.tile.astype(np.int64) * TILE_HEXES + state.part, -1)
        state.scores[:] = self.score_lines(state, np.arange(state.size))

    def legal_pairs(self, state: VorexState, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Flat ``(games, actions)`` of every legal action of games ``rows``, by game then action."""
        i, a = nonzero2(self.legal_rows(state, rows))
        return rows[i], a

    # --- step -------------------------------------------------------------------------------

    def step(self, state: VorexState, actions: np.ndarray) -> None:
        """Rules §4: each running game takes its action, then goes on to its next decision (:meth:`continue_turn`)."""
        rows = np.nonzero(~state.done)[0]
        state.steps += 1
        log = self.log_decisions(state, rows)
        if rows.size == 0:
            return
        moves_before = map_moves(state, rows)
        action = np.asarray(actions, dtype=np.int64)[rows]
        off, P = self.offsets, self.P
        place = (action >= off["place"]) & (action < off["draw"])
        bloom = action < off["place"]
        draw = action == off["draw"]
        decline = action == off["decline"]
        main = (state.phase[rows] == ACTION) | ((state.phase[rows] == WEED_BLOOM) & ~state.extra[rows])
        state.actions_left[rows[main]] -= 1
        if place.any():
            code = action[place] - off["place"]
            slot, within = np.divmod(code, P * ROTATIONS)
            self.place_tile(state, rows[place], slot, within, log)
        if bloom.any():
            self.bloom(state, rows[bloom], action[bloom] - off["bloom"], log)
        if draw.any():
            self.draw(state, rows[draw], log, bonus=False)
            state.phase[rows[draw]] = CONTINUE
        if decline.any():
            state.phase[rows[decline]] = CONTINUE
        self.continue_turn(state, rows, log)
        if log is not None:
            self.log_points(state, rows[map_moves(state, rows) != moves_before], log)

    def log_decisions(self, state: VorexState, rows: np.ndarray) -> dict[str, np.ndarray] | None:
        """This step's event arrays by field name, the deciding games ``rows`` given their turn, seat and phase
        (:meth:`log_points` adds the points); None when the state's log is disabled (a bot's branch)."""
        if not state.events.enabled:
            return None
        log = dict(zip((f.name for f in EVENT_FIELDS), state.events.step(state.size)))
        seats = state.to_move[rows].astype(np.int64)
        log["turn"][rows] = state.turn[rows]
        log["seat"][rows] = seats
        log["phase"][rows] = state.phase[rows]
        return log

    def log_points(self, state: VorexState, rows: np.ndarray, log: dict[str, np.ndarray]) -> None:
        """Each deciding seat's score change, in all and by score line (rules §8), in games ``rows`` (the ones
        whose map changed, :func:`map_moves`; the others' points fields stay 0): its points after the decision
        and everything it set off, less ``state.scores`` (before); ``state.scores`` updated."""
        if rows.size == 0:
            return
        seats = log["seat"][rows].astype(np.int64)
        before = state.scores[rows, :, seats]
        state.scores[rows] = self.score_lines(state, rows)
        self._add_points(log, rows, state.scores[rows, :, seats] - before)

    def score_lines(self, state: VorexState, rows: np.ndarray) -> np.ndarray:
        """int64 ``[n, 4, S]``: every seat's points by score line (:data:`POINT_COLUMNS`) in games ``rows``."""
        return kernels.points(rows, state.tile, state.part, state.kind, state.flower, state.group, state.green,
                              state.brown, self.board.neighbours, self.tile_value, self.tile_stumps, self.players,
                              self.solo)

    @staticmethod
    def _add_points(log: dict[str, np.ndarray], rows: np.ndarray, lines: np.ndarray) -> None:
        """Add ``lines`` ``[n, 4]`` (by score line) and their sum to the points fields of ``rows``."""
        for column, name in enumerate(POINT_COLUMNS):
            log[name][rows] += lines[:, column]
        log["points"][rows] += lines.sum(axis=1)

    # --- effects --------------------------------------------------------------------------------

    def gain(self, state: VorexState, rows: np.ndarray, seats: np.ndarray, amounts: np.ndarray, log) -> np.ndarray:
        """Rules §1.3, §1.5: seats take ``amounts`` [n, 4] from the supply, each kind capped by what it has;
        returns what they took."""
        got = np.minimum(amounts, state.supply[rows]).astype(np.int16)
        state.supply[rows] -= got
        state.resources[rows, seats] += got
        total = got.sum(axis=1)
        state.stats[rows, seats, STAT["resources_gained"]] += total
        if log is not None:
            log["gained"][rows] += total
        return got

    def draw(self, state: VorexState, rows: np.ndarray, log, bonus: bool) -> None:
        """Rules §4.2: the mover gains one resource per own flower on a production stump (``bonus``: §5.3)."""
        seats = state.to_move[rows].astype(np.int64)
        # the seat's flowers on production stumps by resource: the kept totals of its groups (words at the group
        # labels, 0 at other hexes; the 4 int16 counts of a word add up without carries)
        mine = state.flower.take(rows, axis=0) == seats[:, None]
        words = np.where(mine, state.production.take(rows, axis=0), np.uint64(0)).sum(axis=1, dtype=np.uint64)
        amounts = words.view(np.int16).reshape(-1, 4).astype(np.int64)
        got = self.gain(state, rows, seats, amounts, log)
        if log is not None:
            for column, name in enumerate(PRODUCED_COLUMNS):
                log[name][rows] += got[:, column]
        state.stats[rows, seats, STAT["bonus_draws" if bonus else "draws"]] += 1

    def place_tile(self, state: VorexState, rows: np.ndarray, slot: np.ndarray, within: np.ndarray, log) -> None:
        """Rules §2.5, §3, §4.3: the mover lays the tile of ``slot`` (setup or face-up) at placement ``within``
        (anchor * 6 + rotation); enclosed single hexes become ruins; beetles are gained and the slot refilled."""
        board = self.board
        phase = state.phase[rows]
        seats = state.to_move[rows].astype(np.int64)
        setup = phase == SETUP
        tiles = np.where(setup, state.setup_tiles[rows, seats, np.minimum(slot, SETUP_SLOTS - 1)],
                         state.face_up[rows, np.minimum(slot, 1)]).astype(np.int64)
        shapes = self.tile_shape[tiles]
        cells = board.cells[shapes, within]  # [n, 4]
        around = board.around[shapes, within]
        placement = shapes * board.around.shape[1] + within
        ruins = self.enclosed(state, rows, around, board.around_touch[shapes, within],
                              board.around_nb.reshape(-1, board.around_nb.shape[2]).take(placement, axis=0))
        r_rows = np.broadcast_to(rows[:, None], cells.shape)
        state.tile[r_rows, cells] = tiles[:, None]
        state.part[r_rows, cells] = np.arange(TILE_HEXES, dtype=np.int8)[None, :]
        state.kind[r_rows, cells] = self.tile_kind[tiles]
        state.stump[r_rows, cells] = np.where(self.tile_kind[tiles] > ARID,
                                              tiles[:, None] * TILE_HEXES + np.arange(TILE_HEXES), -1)
        i, j = nonzero2(ruins)
        formed = rows[i], around[i, j]
        state.tile[formed] = RUIN
        for games, hexes in ((r_rows.ravel(), cells.ravel()), formed):
            np.bitwise_or.at(state.covered, (games, hexes // 64), np.uint64(1) << (hexes % 64).astype(np.uint64))
        state.tiles_on_map[rows] += 1
        state.cache_valid[rows] = False
        state.stats[rows, seats, STAT["tiles_placed"]] += 1
        if log is not None:
            log["tile"][rows] = tiles
            log["ruins_formed"][rows] = ruins.sum(axis=1)
        if setup.any():
            s_rows, s_seats, s_slot = rows[setup], seats[setup], slot[setup]
            state.setup_tiles[s_rows, s_seats, s_slot] = -1
            start = s_slot == 0
            if start.any():
                light_part = np.argmax(self.tile_kind[tiles[setup][start]] == LIGHT, axis=1)
                state.light_hex[s_rows[start], s_seats[start]] = cells[setup][start, light_part]
            if self.config.setup_beetles:
                self.gain(state, s_rows, s_seats, self.tile_beetles[tiles[setup]], log)
        expand = ~setup
        if expand.any():
            e_rows, e_seats, e_phase = rows[expand], seats[expand], phase[expand]
            beetles = e_phase != WEED_EXPAND
            if beetles.any():
                self.gain(state, e_rows[beetles], e_seats[beetles], self.tile_beetles[tiles[expand][beetles]], log)
            e_slot = slot[expand]
            pointer = state.pile_pointer[e_rows].astype(np.int64)
            has = pointer < state.pile.shape[1]
            refill = np.full(e_rows.size, -1, dtype=np.int16)
            refill[has] = state.pile[e_rows[has], pointer[has]]
            state.face_up[e_rows, e_slot] = refill
            state.pile_pointer[e_rows] += has.astype(np.int16)
            state.stats[e_rows, e_seats, STAT["expands"]] += e_phase == ACTION
            state.stats[e_rows, e_seats, STAT["bonus_expands"]] += e_phase == BONUS_EXPAND
        self.resolve_ruins(state, *formed, log)
        if expand.any():
            e_rows = rows[expand]
            state.phase[e_rows[~state.done[e_rows]]] = CONTINUE

    def bloom(self, state: VorexState, rows: np.ndarray, hexes: np.ndarray, log) -> None:
        """Rules §4.4, §5.3, §6.2, §9.2: the mover pays (the weed does not), blooms ``hexes``, the ruins around
        settle, then the stump's bonus: a draw at once, an expand or bloom decision next."""
        seats = state.to_move[rows].astype(np.int64)
        phase = state.phase[rows]
        weed = phase == WEED_BLOOM
        pays = ~weed
        if pays.any():
            p_rows, p_seats, p_hexes = rows[pays], seats[pays], hexes[pays]
            pay, reduced = self.bloom_payment(state, p_rows, p_hexes)
            pay = pay.astype(np.int16)
            state.resources[p_rows, p_seats] -= pay
            state.supply[p_rows] += pay
            state.stats[p_rows, p_seats, STAT["resources_paid"]] += pay.sum(axis=1)
            if log is not None:
                log["reduced"][p_rows] = reduced
                log["paid"][p_rows] = pay.sum(axis=1)
                log["light_paid"][p_rows] = pay[:, 0]
        kind = state.kind[rows, hexes].astype(np.int64)
        if log is not None:
            log["tile"][rows] = state.tile[rows, hexes]
            log["stump"][rows] = kind
            log["stump_points"][rows] = np.where(kind == POINTS,
                                                 self.tile_value[state.tile[rows, hexes], state.part[rows, hexes]], 0)
        state.stats[rows[phase == ACTION], seats[phase == ACTION], STAT["blooms"]] += 1
        # spec question: the weed's extra blooms (and expands) are weed decisions, not bonus actions
        bonus_stat = phase == BONUS_BLOOM
        state.stats[rows[bonus_stat], seats[bonus_stat], STAT["bonus_blooms"]] += 1
        self.put_flower(state, rows, hexes, seats)
        self.resolve_ruins(state, *self._beside_pairs(rows, hexes), log)
        live = ~state.done[rows]
        rows, kind, weed = rows[live], kind[live], weed[live]
        state.phase[rows] = CONTINUE
        state.extra[rows] = False
        player = ~weed
        auto = rows[player & (kind == KIND_DRAW)]
        if auto.size:
            self.draw(state, auto, log, bonus=True)
        state.phase[rows[player & (kind == KIND_EXPAND)]] = BONUS_EXPAND
        state.phase[rows[player & (kind == KIND_BLOOM)]] = BONUS_BLOOM
        state.phase[rows[weed & (kind == KIND_EXPAND)]] = WEED_EXPAND
        again = rows[weed & (kind == KIND_BLOOM)]
        state.phase[again] = WEED_BLOOM
        state.extra[again] = True

    def put_flower(self, state: VorexState, rows: np.ndarray, hexes: np.ndarray, seats: np.ndarray) -> None:
        """Rules §1.6, §7.1, §9.3: flowers of ``seats`` on ``hexes`` (one per game): groups merge; a last flower
        triggers the end (solo: ends the game)."""
        board = self.board
        state.flower[rows, hexes] = seats
        nb = board.neighbours[hexes]
        around = (rows * (self.H + 2))[:, None] + nb  # flat hex indices
        labels = np.where(state.flower.ravel()[around] == seats[:, None], state.group.ravel()[around], -1)
        merged = np.where(labels >= 0, labels, 1 << 14).min(axis=1)
        new = np.minimum(merged, hexes).astype(np.int16)
        # only games where a neighbouring group changes label relabel their flowers (merges, or a smaller hex)
        relabel = np.flatnonzero(count6((labels >= 0) & (labels != new[:, None])) > 0)
        if relabel.size:
            group = state.group[rows[relabel]]
            old = np.where(labels >= 0, labels, -2)[relabel].astype(group.dtype)  # -2 matches no hex
            hit = group == old[:, 0, None]
            for d in range(1, 6):
                hit |= group == old[:, d, None]
            state.group[rows[relabel]] = np.where(hit, new[relabel, None], group)
        state.group[rows, hexes] = new
        # the merged group's production: its groups' (each once, their words cleared) and the new flower's
        first = labels >= 0
        for d in range(1, 6):
            for e in range(d):
                first[:, d] &= labels[:, d] != labels[:, e]
        g, d = nonzero2(first)
        production = state.production
        words = np.zeros(rows.size, dtype=np.uint64)
        np.add.at(words, g, production[rows[g], labels[g, d]])
        production[rows[g], labels[g, d]] = 0
        kind = state.kind[rows, hexes].astype(np.int64)
        own = (kind >= FIRST_PRODUCTION) & (kind <= LAST_PRODUCTION)
        words[own] += PRODUCTION_LANES[kind[own] - FIRST_PRODUCTION]
        production[rows, new] = words
        state.flowers_left[rows, seats] -= 1
        state.stats[rows, seats, STAT["flowers_placed"]] += 1
        out = state.flowers_left[rows, seats] == 0
        if not out.any():
            return
        state.last_flower[rows[out]] = True  # spec question: also in solo (as the reference reads "end triggered")
        if self.solo:
            done = rows[out]
            state.end[done] = np.where(seats[out] == WEED, END["weed_last_flower"], END["solo_win"])
            state.done[done] = True

    def _beside_pairs(self, rows: np.ndarray, hexes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The 6 neighbours of ``hexes[i]`` in game ``rows[i]`` as flat (game, hex) pairs."""
        return np.repeat(rows, 6), self.board.neighbours[hexes].ravel()

    def resolve_ruins(self, state: VorexState, games: np.ndarray, hexes: np.ndarray, log) -> None:
        """Rules §6.1: settle the complete unsettled ruins among hexes ``hexes[i]`` of games ``games[i]`` (distinct
        pairs, any order) in ascending hex order per game; a unique majority places a flower.

        A ruin is complete once every neighbour is arid or holds a flower. Its
        neighbours are tile hexes (never ruins), so it completes only when it
        forms or when a flower lands next to it: the callers pass those hexes,
        and every other unsettled ruin of a running game is incomplete.
        """
        board, W = self.board, self.H + 2
        at = games * W + hexes
        at = at[(state.tile.ravel()[at] == RUIN) & ~state.settled.ravel()[at]]
        at = at[~state.done[at // W]]
        if at.size == 0:
            return
        around = board.neighbours_ext[at % W] + (at - at % W)[:, None]
        owners = state.flower.ravel()[around]
        complete = ((state.kind.ravel()[around] == ARID) | (owners >= 0)).all(axis=1)
        at, owners = at[complete], owners[complete]
        if at.size == 0:
            return
        order = np.argsort(at)
        (games, h), owners = np.divmod(at[order], W), owners[order]
        first = np.r_[True, games[1:] != games[:-1]]
        rank = np.arange(games.size) - np.maximum.accumulate(np.where(first, np.arange(games.size), 0))
        for k in range(int(rank.max()) + 1):
            # a solo end is immediate: ruins after the one that ended the game stay unsettled (spec question)
            sel = np.nonzero((rank == k) & ~state.done[games])[0]
            if sel.size == 0:
                continue
            g, hx, own = games[sel], h[sel], owners[sel]
            counts = np.stack([(own == s).sum(axis=1) for s in range(self.players)], axis=1)
            top = counts.max(axis=1)
            winner = np.argmax(counts, axis=1)
            unique = (counts == top[:, None]).sum(axis=1) == 1
            ok = unique & (top > 0) & (state.flowers_left[g, winner] > 0)
            state.settled[g, hx] = True
            if ok.any():
                gw, hw, sw = g[ok], hx[ok], winner[ok]
                state.stats[gw, sw, STAT["flowers_ruins"]] += 1
                if log is not None:
                    np.add.at(log["ruin_flowers"], gw, 1)
                self.put_flower(state, gw, hw, sw)

    # --- turn flow ------------------------------------------------------------------------------

    def continue_turn(self, state: VorexState, rows: np.ndarray, log=None) -> None:
        """Rules §4.1, §5.3: run games ``rows`` on until each waits on a real decision or is over."""
        while rows.size:
            rows = rows[~state.done[rows]]
            if rows.size == 0:
                return
            phase = state.phase[rows]
            again = []
            cont = rows[phase == CONTINUE]
            if cont.size:
                more = state.actions_left[cont] > 0
                weed = state.to_move[cont] == WEED if self.solo else np.zeros(cont.size, bool)
                go = cont[more]
                state.phase[go] = np.where(weed[more], WEED_BLOOM, ACTION)
                state.extra[go] = False
                self.end_turn(state, cont[~more])
                again.append(cont)
            setup = rows[phase == SETUP]
            if setup.size:
                again.append(self.finish_setup_turn(state, setup, log))
            state.bloom_stamp[rows[(phase == ACTION) | (phase == BONUS_BLOOM) | (phase == WEED_BLOOM)]] = -1
            action = rows[(phase == ACTION) & ~state.offered[rows]]
            if action.size:
                state.offered[action] = self._any_bloom_or_place(state, action)
            expand = rows[(phase == BONUS_EXPAND) | (phase == WEED_EXPAND)]
            if expand.size:
                none = ~self.place_exists(state, expand, state.face_up[expand].astype(np.int64)).any(axis=1)
                state.phase[expand[none]] = CONTINUE
                again.append(expand[none])
            bloom = rows[(phase == BONUS_BLOOM) | (phase == WEED_BLOOM)]
            if bloom.size:
                none = ~self.blooms(state, bloom).any(axis=1)
                bonus = none & (state.phase[bloom] == BONUS_BLOOM)
                state.phase[bloom[bonus]] = CONTINUE
                again.append(bloom[bonus])
                stuck = bloom[none & ~bonus]
                state.done[stuck] = True
                state.end[stuck] = END["weed_no_stump"]
            rows = np.concatenate(again) if again else np.zeros(0, np.int64)

    def _any_bloom_or_place(self, state: VorexState, rows: np.ndarray) -> np.ndarray:
        found = self.blooms(state, rows).any(axis=1)
        rest = rows[~found]
        if rest.size:
            found[~found] = self.place_exists(state, rest, state.face_up[rest].astype(np.int64)).any(axis=1)
        return found

    def finish_setup_turn(self, state: VorexState, rows: np.ndarray, log=None) -> np.ndarray:
        """Rules §2.5: set aside setup tiles without a legal placement; the turns with none left end with the free
        flower on the starting tile's light stump. Returns the rows to run on."""
        seats = state.to_move[rows].astype(np.int64)
        tiles = state.setup_tiles[rows, seats].astype(np.int64)
        pending = tiles >= 0
        if pending.any():
            legal = self.place_exists(state, rows, tiles)
            aside = pending & ~legal
            if aside.any():
                i, j = nonzero2(aside)
                state.setup_tiles[rows[i], seats[i], j] = -1
                pending &= legal
        finished = ~pending.any(axis=1)
        rows, seats = rows[finished], seats[finished]
        if rows.size == 0:
            return rows
        light = state.light_hex[rows, seats].astype(np.int64)
        has = light >= 0
        if has.any():
            self.put_flower(state, rows[has], light[has], seats[has])
            self.resolve_ruins(state, *self._beside_pairs(rows[has], light[has]), log)
        rows = rows[~state.done[rows]]
        self.end_turn(state, rows)
        return rows

    def end_turn(self, state: VorexState, rows: np.ndarray) -> None:
        """Rules §4.1, §9.2: the mover's turn ends and the next seat's starts; at a round's end (2-4 players)
        :meth:`end_of_round` checks first.

        Reading: a game ended at the round's end still shows the next turn set up (seat 0, ACTION,
        actions_left 2), as the reference does.
        """
        rows = rows[~state.done[rows]]
        if rows.size == 0:
            return
        mover = state.to_move[rows].astype(np.int64)
        was_setup = state.phase[rows] == SETUP
        state.turn[rows] += 1
        if self.solo:
            nxt = np.where(was_setup, 0, 1 - mover)
            setup_next = np.zeros(rows.size, bool)
        else:
            nxt = (mover + 1) % self.players
            round_end = nxt == 0
            self.end_of_round(state, rows[round_end], was_setup[round_end])
            setup_next = was_setup & ~round_end
        state.to_move[rows] = nxt
        weed = (nxt == WEED) if self.solo else np.zeros(rows.size, bool)
        state.phase[rows] = np.where(setup_next, SETUP, np.where(weed, WEED_BLOOM, ACTION))
        state.actions_left[rows] = np.where(setup_next, 0, np.where(weed, WEED_BLOOMS, self.config.actions_per_turn))
        state.extra[rows] = False

    def end_of_round(self, state: VorexState, rows: np.ndarray, setup_round: np.ndarray) -> None:
        """Rules §7.1, §7.2 (2-4 players): a round ends in games ``rows``; a last flower placed ends the game, so
        does a normal round (``setup_round`` False) in which no decision offered a bloom or a place."""
        over = state.last_flower[rows]
        blocked = ~over & ~setup_round & ~state.offered[rows]
        state.end[rows[over]] = END["last_flower"]
        state.end[rows[blocked]] = END["blocked"]
        state.done[rows[over | blocked]] = True
        state.offered[rows] = False

    # --- results --------------------------------------------------------------------------------

    def points(self, state: VorexState, rows: np.ndarray | None = None) -> dict[str, np.ndarray]:
        """Seat point columns ``[n, S]``: points_flowers, points_stumps, points_green, points_brown (weed: 0)."""
        found = self.score_lines(state, np.arange(state.size) if rows is None else np.asarray(rows, dtype=np.int64))
        return {name: found[:, c] for c, name in enumerate(POINT_COLUMNS)}

    def results(self, state: VorexState) -> GameResults:
        S = self.players
        points = self.points(state)
        score = sum(points.values()).astype(np.float64)
        held = state.resources.sum(axis=2).astype(np.int64)
        end = state.end
        if self.solo:
            win = end == END["solo_win"]
            rank = np.where(win[:, None], [1, 2], [2, 1]).astype(np.int8)
        else:
            higher = ((score[:, None, :] > score[:, :, None])
                      | ((score[:, None, :] == score[:, :, None]) & (held[:, None, :] > held[:, :, None]))).sum(axis=2)
            rank = (1 + higher).astype(np.int8)
        rank[end == END[STALL]] = 0
        columns = dict(points)
        for name in STATS:
            columns[name] = state.stats[:, :, STAT[name]].astype(np.int64)
        columns["resources_left"] = held
        category = self.category[state.kind[:, :self.H].astype(np.int64) + 1]
        flower = state.flower[:, :self.H]
        for name, cat in (("stumps_production", 1), ("stumps_action", 2), ("stumps_points", 3)):
            columns[name] = np.stack([((flower == s) & (category == cat)).sum(axis=1) for s in range(S)], axis=1)
        seat_columns = {name: columns[name].astype(np.int64) for name in SEAT_COLUMNS}
        green = np.array(GREEN + ("none",))[state.green]
        brown = np.array(BROWN)[state.brown]
        solo_name = np.full(state.size, "", dtype=object)
        if self.solo:
            for g in np.nonzero(end == END["solo_win"])[0]:
                solo_name[g] = self.config.solo_name(int(score[g, 0]), int(points["points_brown"][g, 0]),
                                                     int(points["points_green"][g, 0]),
                                                     int(points["points_stumps"][g, 0]))
        tiles_left = (self.pile_size - state.pile_pointer.astype(np.int64)) + (state.face_up >= 0).sum(axis=1)
        game_columns = {"green": green, "brown": brown, "solo_name": solo_name.astype(str),
                        "ruins": (state.tile[:, :self.H] == RUIN).sum(axis=1).astype(np.int64),
                        "tiles_left": tiles_left.astype(np.int64)}
        return GameResults(score=score, rank=rank, end=end.copy(), turns=state.turn.copy(),
                           seat_columns=seat_columns, game_columns=game_columns)

    # --- checks and records ---------------------------------------------------------------------

    def invariants(self, state: VorexState) -> dict[str, np.ndarray]:
        """Pieces conserved, tiles whole, ruins closed, kept arrays equal to the map (:func:`checks.invariants`)."""
        return checks.invariants(self, state)

    def events(self, state: VorexState, trace: Trace) -> dict[str, np.ndarray] | None:
        """One row per decision (see the config's docstring): what the step logged, the block and kind read from
        the action and the phase, the tile's name and level, the production kinds that produced."""
        if not len(state.events):
            return None
        logged = state.events.decisions(trace)
        games, steps = logged["game"], logged["decision"]
        action = trace.actions[games, steps].astype(np.int32)
        block = np.searchsorted(np.array([self.offsets[b] for b in BLOCKS]), action, side="right") - 1
        phase = state.events.stacked("phase")[games, steps].astype(np.int64)
        tile = logged["tile"].astype(np.int64)
        numbers = {name: logged[name].astype(np.int32) for name in COUNTS + ("points",) + POINT_COLUMNS}
        produced = {name: logged[name].astype(np.int32) for name in PRODUCED_COLUMNS}
        bits = sum((amounts > 0).astype(np.int64) << k for k, amounts in enumerate(produced.values()))
        return {
            "game": games, "decision": steps, "turn": logged["turn"], "seat": logged["seat"].astype(np.int32),
            "phase": np.array(PHASES)[phase], "action": action, "block": np.array(BLOCKS)[block],
            "kind": np.array(EVENT_KINDS)[KIND_OF[phase, block]],
            "tile": np.array(self.config.tile_names + ("",))[tile],
            "level": np.r_[self.tile_level, -1][tile].astype(np.int32), "stump": logged["stump"], **numbers,
            "produced": PRODUCED_KINDS[bits], **produced,
        }

    def snapshot(self, state: VorexState, game: int) -> dict:
        H, g = self.H, game
        mover = int(state.to_move[g])
        phase = int(state.phase[g])
        if phase == SETUP and not state.done[g]:
            setup_left = [int(t) for t in state.setup_tiles[g, mover]]
        else:
            setup_left = [-1] * SETUP_SLOTS
        settled = np.nonzero(state.settled[g, :H])[0]
        return {
            "tile": [int(t) for t in state.tile[g, :H]],
            "part": [int(p) for p in state.part[g, :H]],
            "flower": [int(f) for f in state.flower[g, :H]],
            "settled": [int(h) for h in settled],
            "resources": [[int(x) for x in seat] for seat in state.resources[g]],
            "supply": [int(x) for x in state.supply[g]],
            "flowers_left": [int(x) for x in state.flowers_left[g]],
            "face_up": [int(t) for t in state.face_up[g]],
            "pile_pointer": int(state.pile_pointer[g]),
            "setup_left": setup_left,
            "phase": PHASES[phase] if phase < len(PHASES) else "continue",
            "to_move": mover,
            "turn": int(state.turn[g]),
            "actions_left": int(state.actions_left[g]),
            "last_flower": bool(state.last_flower[g]),
            "end": END_REASONS[int(state.end[g])],
        }

    def describe_action(self, action: int) -> str:
        return describe_action(self.config, action)

    def progress(self, state: VorexState, rows: np.ndarray) -> np.ndarray:
        """Each seat's points if the game ended now (the weed: 0), float64 ``[len(rows), seats]``."""
        return sum(self.points(state, rows).values()).astype(np.float64)
