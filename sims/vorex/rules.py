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
payments, the points. The turn flow (a step: the decision's effects, the ruins,
the turn's and round's end, the events) and the random bot's choice are one
compiled call each over the batch (:mod:`sims.vorex.turn_kernels`).

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
from sims.vorex import checks, kernels, turn_kernels
from sims.vorex.config import (
    ARID,
    BLOCKS,
    BROWN,
    END_REASONS,
    EVENT_KINDS,
    GREEN,
    HEX_KINDS,
    PHASES,
    PRODUCED_COLUMNS,
    RESOURCES,
    ROTATIONS,
    SEAT_COLUMNS,
    SETUP_SLOTS,
    TILE_HEXES,
    VorexConfig,
    event_kind,
)
from sims.vorex.kernels import EMPTY, POINT_COLUMNS, RUIN
from sims.vorex.render import describe_action
from sims.vorex.tables import (PRODUCTION_LANES, Board, TileTables, count6, nonzero2,
                               pack_bits, production_totals, unpack_words)
from sims.vorex.turn_kernels import (ACTION, BONUS_BLOOM, BONUS_EXPAND, COUNTS, LOGGED, SETUP, STATS, WEED, WEED_BLOOM,
                                     WEED_EXPAND)

END = {name: index for index, name in enumerate(END_REASONS)}
STAT = {name: index for index, name in enumerate(STATS)}
# the events kind of each (phase, block) decision (config.event_kind, both engines)
KIND_OF = np.array([[EVENT_KINDS.index(event_kind(phase, block)) for block in BLOCKS] for phase in PHASES])
EVENT_FIELDS = (EventField("turn", np.int32), EventField("seat", np.int8), EventField("phase", np.int8),
                EventField("tile", np.int16), EventField("stump", np.int8, labels=HEX_KINDS),
                *(EventField(name, np.int16, empty=0)
                  for name in COUNTS + ("points",) + POINT_COLUMNS + PRODUCED_COLUMNS))
# the events' produced column: the kinds of a bit set of RESOURCES (bit k: kind k produced), joined by ","
PRODUCED_KINDS = np.array([",".join(name for k, name in enumerate(RESOURCES) if bits >> k & 1)
                           for bits in range(1 << len(RESOURCES))])


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
    # int16 [B, 4, S]: every seat's points by score line, kept by the steps that log events (stale in a bot's
    # branch, whose log is off)
    scores: np.ndarray
    events: EventLog  # per step: the decision's turn, seat, phase, tile, stump, counts and points (EVENT_FIELDS)
    steps: int = 0


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
        board = self.board
        self.tables = turn_kernels.Tables(
            self.solo, int(config.actions_per_turn), bool(config.setup_beetles), int(self.offsets["bloom"]),
            int(self.offsets["place"]), int(config.draw_action), int(config.decline_action), board.neighbours,
            board.cells, board.around, board.around_touch, self.tile_shape, self.tile_kind, tiles.tile_beetles,
            self.tile_cost, self.tile_value, self.tile_stumps, PRODUCTION_LANES, self.place_tables)
        self._no_log = (tuple(np.zeros(0, np.int16) for _ in LOGGED), np.zeros(0, np.int8))
        self._no_u = np.zeros(0, np.float64)  # the arguments turn_games does not read

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
        """:meth:`BatchedEngine.choose_uniform` in one compiled loop (:func:`turn_kernels.turn_games`): the
        legal actions by block from the kept placements and blooms, counted and picked, with no action mask."""
        chosen = np.empty(rows.size, dtype=np.int64)
        if rows.size:
            fields, stump = self._no_log
            turn_kernels.turn_games(turn_kernels.CHOOSE, np.asarray(rows, dtype=np.int64), self._no_u.view(np.int64),
                                    np.asarray(u, dtype=np.float64), state.steps, self.arrays(state), self.tables,
                                    fields, stump, False, chosen)
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

    def arrays(self, state: VorexState) -> turn_kernels.Arrays:
        """The state's arrays as the compiled turn flow reads them (:data:`turn_kernels.Arrays`)."""
        return turn_kernels.Arrays(*(getattr(state, name) for name in turn_kernels.Arrays._fields))

    def step(self, state: VorexState, actions: np.ndarray) -> None:
        """Rules §4: each running game takes its action, then goes on to its next decision, compiled
        (:func:`turn_kernels.turn_games`: the effects, :func:`turn_kernels.continue_turn` and the events)."""
        rows = np.flatnonzero(~state.done)
        state.steps += 1
        log = self.log_decisions(state, rows)
        if rows.size == 0:
            return
        if log is None:
            fields, stump = self._no_log
        else:
            fields, stump = tuple(log[name] for name in LOGGED), log["stump"]
        turn_kernels.turn_games(turn_kernels.STEP, rows, np.ascontiguousarray(actions, dtype=np.int64), self._no_u,
                                state.steps, self.arrays(state), self.tables, fields, stump, log is not None,
                                self._no_u.view(np.int64))

    def continue_turn(self, state: VorexState, rows: np.ndarray) -> None:
        """Rules §4.1, §5.3: run games ``rows`` on until each waits on a real decision or is over (nothing
        logged), compiled (:func:`turn_kernels.turn_games`)."""
        fields, stump = self._no_log
        no_u = self._no_u
        turn_kernels.turn_games(turn_kernels.CONTINUE_ONLY, np.asarray(rows, dtype=np.int64), no_u.view(np.int64),
                                no_u, state.steps, self.arrays(state), self.tables, fields, stump, False,
                                no_u.view(np.int64))

    def log_decisions(self, state: VorexState, rows: np.ndarray) -> dict[str, np.ndarray] | None:
        """This step's event arrays by field name, the deciding games ``rows`` given their turn, seat and phase
        (the step's kernel adds the rest); None when the state's log is disabled (a bot's branch)."""
        if not state.events.enabled:
            return None
        log = dict(zip((f.name for f in EVENT_FIELDS), state.events.step(state.size)))
        seats = state.to_move[rows].astype(np.int64)
        log["turn"][rows] = state.turn[rows]
        log["seat"][rows] = seats
        log["phase"][rows] = state.phase[rows]
        return log

    def score_lines(self, state: VorexState, rows: np.ndarray) -> np.ndarray:
        """int64 ``[n, 4, S]``: every seat's points by score line (:data:`POINT_COLUMNS`) in games ``rows``."""
        return kernels.points(rows, state.tile, state.part, state.kind, state.flower, state.group, state.green,
                              state.brown, self.board.neighbours, self.tile_value, self.tile_stumps, self.players,
                              self.solo)

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
