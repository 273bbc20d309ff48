"""Vorex's config: schema, cross-checks, hex geometry, tile tables and the action numbering.

This module is all the two engines share (besides :mod:`sims.core.rng`): the
numbers and content of the game, the geometry tables, and how a decision is
written as an integer. The rules are written twice, once in ``reference.py``
(plain Python, the oracle) and once in ``rules.py`` (batched numpy).

Rules and rulings: docs/rules/vorex.md (section numbers cited in the code).

Geometry
--------
Axial hex coordinates ``(q, r)``, pointy-top hexes, ``r`` growing downwards.
The six directions, in this order (direction ``d`` rotated once clockwise is
direction ``d + 1`` mod 6)::

               NW (0,-1)   NE (1,-1)
        W (-1,0)     (q,r)      E (1,0)
               SW (-1,1)   SE (0,1)

    DIRECTIONS = E (1,0), SE (0,1), SW (-1,1), W (-1,0), NW (0,-1), NE (1,-1)

Distance from the centre: ``max(|q|, |r|, |q + r|)``. The *map window* is
every hex at distance ``<= map.radius + 1`` (default radius 7). Hexes at
distance ``<= map.radius`` are *playable* (tiles may cover them); the hexes at
distance exactly ``map.radius + 1`` form the *ring*, which is never covered
and stands for the open table around the forest (*added*: the table is
finite; no tile may leave the playable area).

Hex numbering: the playable hexes first, sorted by ``(r, q)`` (reading
order), numbers ``0 .. P-1``; then the ring hexes, sorted by ``(r, q)``,
numbers ``P .. H-1``. Default: ``P = 169``, ``H = 217``. ``centre`` is the
number of ``(0, 0)``. ``neighbours[h, d]`` is the hex in direction ``d`` of
hex ``h``, or -1 outside the window (only ring hexes have -1 entries).
Bloom targets and tile anchors are always playable hexes (``< P``).

Shapes and rotations. ``[shapes]`` names the seven tetrahexes, each a list of
4 axial offsets whose first is ``[0, 0]`` (the *anchor*). Rotation ``k``
(0..5) applies ``(q, r) -> (-r, q + r)`` (60 degrees clockwise) ``k`` times
to every offset. A placement ``(tile, anchor hex a, rotation k)`` puts the
tile's hex ``i`` (``tiles[t].hexes[i]``) on ``a + rotate(offset_i, k)``. All
six rotations are distinct placements, also for symmetric shapes (the hexes'
contents differ). Tiles are never flipped. ``placement_cells[s, a, k]`` lists
the 4 hex numbers, or holds -1 where a cell is not playable (such a placement
is illegal).

Content
-------
``[[tiles]]`` is the whole tile set, one entry per physical tile; the tile id
is the position in that list. Each tile: ``name``, ``level`` (0..3),
``starting`` (a starting tile; level 0), ``first_player`` (the starting tile
with beetles that makes its owner seat 0; exactly one), ``players`` (the
count mark of a level 1-3 tile: 2 = "2+", 3 = "3+", 4 = "4"), ``shape``,
``hexes`` (4 tables in the shape's offset order) and ``beetles`` (0-3
resource names, gained by the Expand action that places it). A hex is
``{kind = K, cost = [...], value = V}`` with ``K`` one of :data:`HEX_KINDS`:
``arid`` (never holds a flower, no cost), production ``light`` (starting
tiles only), ``mushroom``, ``water``, ``insect``, action ``bloom``, ``draw``,
``expand``, and ``points`` (``value`` >= 1 victory points). ``cost`` is a
multiset of ``mushroom``/``water``/``insect`` (a light stump's cost is never
used: it is occupied at setup). *Level-0 tiles* are the non-starting tiles of
level 0. *Forest tiles* are the tiles of levels 1-3; at least two must be
marked ``players = 2`` (the pile of 2 players and solo), as setup turns two face up.

Resources, indexed by :data:`RESOURCES`: 0 light, 1 mushroom, 2 water,
3 insect. A production stump of hex kind ``light/mushroom/water/insect``
produces resource ``HEX_KINDS.index(kind) - 1``. Costs are stored as counts
``[mushroom, water, insect]`` (:data:`COST_RESOURCES`).

Conventions both engines share (the rules themselves: docs/rules/vorex.md)
--------------------------------------------------------------------------
* Seats: ``players`` seats for 2-4 players. Solo (``players = 1``): **2
  seats**, seat 0 the player, seat 1 the *weed*. Seat 0 is the first player
  and gets the ``first_player`` starting tile; seats 1, 2, 3 get the other
  starting tiles in config order (``starting_tiles``).
* Random streams, each called with counter 0: ``objectives.green = "random"``
  takes ``GREEN[shuffle_order(seed, "objectives/green", 0, 5)[0]]``, brown
  likewise with ``"objectives/brown"``; level-0 tiles: ``order =
  shuffle_order(seed, "setup/level0", 0, L0)`` over ``level0_tiles`` (config
  order), seat ``i`` gets ``level0_tiles[order[i]]`` (solo: the player gets
  ``order[0]`` and ``order[1]``); pile: per level ``l`` the selected tiles in
  config order, ``order_l = shuffle_order(seed, f"pile/level{l}", 0, n_l)``, the
  pile top first is level 1 then 2 then 3; face-up slot 0 gets ``pile[0]``,
  slot 1 ``pile[1]``, the pile pointer is then 2. Nothing else in the rules
  is random; bots draw from ``"bot/<seat>"`` with ``state.decisions`` as the
  counter and see everything except the pile order below the face-up tiles.
* Supply (:meth:`VorexConfig.initial_supply`): the weed holds nothing, ever.
* ``state.turn`` counts completed seat turns, setup turns included (the turn
  cap counts them); ``to_move`` is always the seat whose turn it is. Phases:
  SETUP (setup slots 0 = starting tile, 1 = level-0 tile, 2 = second level-0
  tile, solo only), ACTION (``rules.actions_per_turn`` decisions),
  BONUS_EXPAND and BONUS_BLOOM (with ``decline``; skipped when ``decline``
  would be the only option), WEED_BLOOM, WEED_EXPAND (no ``decline``).
* Ruins are checked after every tile and flower placement, unsettled ruins in
  ascending hex number. Placement legality: the empty hexes of the whole
  window (ring included) after the placement, in 6-connected components;
  the one holding the ring is the open outside, every other one is closed.
* End reasons: ``"last_flower"``, ``"blocked"`` (2-4 players when the last
  seat's turn ends a round without progress; any player count at an ACTION
  decision from which no seat still to play can change the position, rules
  §7.3, solo ranks as a loss), ``"solo_win"``, ``"weed_last_flower"``,
  ``"weed_no_stump"`` (solo, checked after every flower placement, in
  order), ``"stall"``. Ranks (2-4 players): ``1 +`` the number of seats with
  a higher ``(score, resources_left)`` pair; solo ``[1, 2]`` on ``"solo_win"``,
  ``[2, 1]`` on a loss; stall: rank 0 for every seat (scores still computed).
* Solo subspecies (game column ``solo_name``, ``""`` unless ``"solo_win"``):
  the word of a line is ``words[i]`` for the largest ``i`` with ``value >=
  thresholds[i]`` of ``[solo.names]`` (:meth:`VorexConfig.solo_name`).

Records
-------
Seat columns (:data:`SEAT_COLUMNS`): ``points_flowers, points_stumps,
points_green, points_brown, flowers_placed, flowers_ruins, resources_left,
resources_gained`` (draws, bonus draws, beetles) ``, resources_paid,
tiles_placed`` (setup tiles included) ``, draws, expands, blooms`` (ACTION
decisions of that kind) ``, bonus_draws, bonus_expands, bonus_blooms`` (bonus
actions taken) ``, stumps_production, stumps_action, stumps_points`` (stumps
of each category holding the seat's flower at the end). Game columns
(:data:`GAME_COLUMNS`): ``green`` (``G1``..``G5`` or ``none``), ``brown``
(``B1``..``B5``), ``solo_name``, ``ruins`` (ruins on the map at the end),
``tiles_left`` (pile and face-up tiles never placed).

Events (:data:`EVENT_COLUMNS`), one row per decision taken. Its ``kind``:
SETUP place -> ``setup_place``; ACTION draw/place/bloom -> ``draw``,
``expand``, ``bloom``; BONUS_EXPAND place -> ``bonus_expand``; BONUS_BLOOM
bloom -> ``bonus_bloom``; any decline -> ``decline``; WEED_BLOOM (main or
extra) -> ``weed_bloom``; WEED_EXPAND -> ``weed_expand``. Columns: ``game, decision,
turn, seat, phase`` (a :data:`PHASES` name) ``, action, block`` (a
:data:`BLOCKS` name) ``, kind`` (an :data:`EVENT_KINDS` name) ``, tile`` (name
of the tile placed, or of the tile of the bloomed hex; ``""``) ``, level``
(that tile's level; -1) ``, stump`` (hex kind bloomed; ``""``) ``,
stump_points`` (value of a points stump bloomed; 0) ``, reduced`` (cost units
removed by reductions) ``, paid`` (resources paid, light included) ``,
light_paid, gained`` (resources gained by this decision and what it caused
automatically: draw, beetles, an automatic bonus draw) ``, ruins_formed,
ruin_flowers`` (ruin flowers placed, by any seat, while resolving it) ``,
points`` (the deciding seat's score change the decision caused, everything it
set off before the next decision included; the weed's: 0) ``, points_flowers,
points_stumps, points_green, points_brown`` (that change by score line) ``,
produced`` (the production kinds whose stumps produced for the mover in the
decision's draws, the action or an automatic bonus draw, joined by ``,`` in
:data:`RESOURCES` order; ``""``) ``, produced_light, produced_mushroom,
produced_water, produced_insect`` (the resources of each kind those draws took
from the supply; 0).

Snapshot (both engines, equal): ``{"tile": [H] tile id per hex (-1 empty, -2
ruin), "part": [H] index 0..3 of the tile hex (-1), "flower": [H] seat (-1),
"settled": sorted settled ruin hexes, "resources": [seats][4], "supply": [4],
"flowers_left": [seats], "face_up": [2] (-1 empty), "pile_pointer",
"setup_left": [3] tile ids of the mover's unplaced setup slots (-1 when
placed, absent or outside SETUP), "phase", "to_move", "turn", "actions_left"
(main decisions of this turn not yet taken: 2 at the start of a normal or
weed turn, decremented when an ACTION or main WEED_BLOOM decision is taken,
before its effects; extra weed blooms and bonuses do not count; 0 in
SETUP), "last_flower": bool (the end is triggered), "end"}``.

Action numbering
----------------
``P`` playable hexes, one flat range, blocks in this order::

    block    size       fields                         code within the block
    bloom    P          target hex                     hex
    place    3 * P * 6  slot, anchor hex, rotation     (slot * P + anchor) * 6 + rotation
    draw     1          -                              0
    decline  1          -                              0

``place`` slots: 0/1 the face-up tiles (ACTION, BONUS_EXPAND, WEED_EXPAND);
in SETUP, 0/1/2 the mover's starting tile, first and second level-0 tile
(slot 2 is legal only in the solo setup turn).
With the default radius 7 there are 3213 actions. Legal actions are listed in
ascending order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Iterable

import numpy as np

from sims.core.actions import ActionBlocks
from sims.core.spec import (
    Bool,
    ConfigError,
    Int,
    List,
    LoadedConfig,
    Optional,
    Record,
    bot_tables,
    bot_weight_fields,
    Str,
    Table,
    load_config,
    item_key,
)

MAX_PLAYERS = 4
FACE_UP = 2  # forest tiles face up beside the pile (setup turns up the pile's top two)
TILE_HEXES = 4
ROTATIONS = 6
SETUP_SLOTS = 3

DIRECTIONS = ((1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1))
DIRECTION_NAMES = ("E", "SE", "SW", "W", "NW", "NE")

RESOURCES = ("light", "mushroom", "water", "insect")
COST_RESOURCES = ("mushroom", "water", "insect")
# the events' resources a decision's draws (the action or an automatic bonus draw) took for the mover's flowers on
# production stumps, one column per kind (rules §4.2)
PRODUCED_COLUMNS = tuple(f"produced_{name}" for name in RESOURCES)
HEX_KINDS = ("arid", "light", "mushroom", "water", "insect", "bloom", "draw", "expand", "points")
PRODUCTION_KINDS = ("light", "mushroom", "water", "insect")
ACTION_KINDS = ("bloom", "draw", "expand")
ARID, LIGHT, POINTS = HEX_KINDS.index("arid"), HEX_KINDS.index("light"), HEX_KINDS.index("points")

GREEN = ("G1", "G2", "G3", "G4", "G5")
BROWN = ("B1", "B2", "B3", "B4", "B5")
OBJECTIVE_NAMES = {
    "G1": "flowers on the edge of the forest",
    "G2": "2 per tile with all its stumps yours",
    "G3": "flowers next to 2+ arid hexes",
    "G4": "ruins next to your flowers",
    "G5": "tiles with a flower of yours",
    "B1": "groups, +2 for the most groups",
    "B2": "2 per flower next to 2+ opposing flowers",
    "B3": "2 per group with a production stump",
    "B4": "flowers touching at most 2 own flowers",
    "B5": "3 per group of 3+ flowers",
}

PHASES = ("setup", "action", "bonus_expand", "bonus_bloom", "weed_bloom", "weed_expand")
BLOCKS = ("bloom", "place", "draw", "decline")
EVENT_KINDS = ("setup_place", "draw", "expand", "bloom", "bonus_expand", "bonus_bloom", "decline",
               "weed_bloom", "weed_expand")


def event_kind(phase: str, block: str) -> str:
    """The events ``kind`` of a decision of ``block`` (a :data:`BLOCKS` name) taken in ``phase`` (a :data:`PHASES`
    name), for both engines."""
    if block == "decline":
        return "decline"
    return {"setup": "setup_place", "bonus_expand": "bonus_expand", "bonus_bloom": "bonus_bloom",
            "weed_bloom": "weed_bloom", "weed_expand": "weed_expand"}.get(
        phase, {"draw": "draw", "place": "expand", "bloom": "bloom"}[block])


END_REASONS = ("", "last_flower", "blocked", "solo_win", "weed_last_flower", "weed_no_stump", "stall")

SEAT_COLUMNS = (
    "points_flowers", "points_stumps", "points_green", "points_brown",
    "flowers_placed", "flowers_ruins", "resources_left", "resources_gained", "resources_paid",
    "tiles_placed", "draws", "expands", "blooms", "bonus_draws", "bonus_expands", "bonus_blooms",
    "stumps_production", "stumps_action", "stumps_points",
)
GAME_COLUMNS = ("green", "brown", "solo_name", "ruins", "tiles_left")
EVENT_COLUMNS = (
    "game", "decision", "turn", "seat", "phase", "action", "block", "kind", "tile", "level", "stump",
    "stump_points", "reduced", "paid", "light_paid", "gained", "ruins_formed", "ruin_flowers",
    "points", "points_flowers", "points_stumps", "points_green", "points_brown", "produced",
    "produced_light", "produced_mushroom", "produced_water", "produced_insect",
)

BOT_KINDS = ("random", "greedy", "planner")
# Greedy evaluation of a position for the mover, as a weighted sum of:
# score (points if the game ended now), flowers (placed), production (own
# production stumps), resources (held), light (held, on top of resources),
# tiles (placed by the seat). The planner reads the same names.
WEIGHT_NAMES = ("score", "flowers", "production", "resources", "light", "tiles")

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


HEX_SCHEMA = {
    "kind": Str(HEX_KINDS),
    "cost": Optional(List(Str(COST_RESOURCES), 0, 8), []),
    "value": Optional(Int(0, 99), 0),
}

TILE_SCHEMA = {
    "name": Str(),
    "level": Int(0, 3),
    "starting": Optional(Bool(), False),
    "first_player": Optional(Bool(), False),
    "players": Optional(Int(2, MAX_PLAYERS), 2),
    "shape": Str(),
    "hexes": List(Record(HEX_SCHEMA), TILE_HEXES, TILE_HEXES),
    "beetles": Optional(List(Str(RESOURCES), 0, 3), []),
}

_WEIGHTS = bot_weight_fields(WEIGHT_NAMES, range(1, MAX_PLAYERS + 1))
_OFFSET = List(Int(-3, 3), 2, 2)

SCHEMA = {
    "map": {"radius": Int(4, 12)},
    "rules": {
        "flowers": Int(1, 64),
        "actions_per_turn": Int(1, 4),
        "setup_beetles": Bool(),
    },
    "resources": {
        "supply": {name: Int(0, 1000) for name in RESOURCES},
        "start_light": Int(0, 100),
        "start_light_extra": Optional(List(Int(0, 20), MAX_PLAYERS, MAX_PLAYERS), [0] * MAX_PLAYERS),
        "reminders_from_supply": Bool(),
    },
    "objectives": {
        "green": Str(("random", "none") + GREEN),
        "brown": Str(("random",) + BROWN),
    },
    "solo": {
        "easy": Bool(),
        "easy_start_light": Int(0, 100),
        "weed_flowers": Int(1, 64),
        "names": {
            "total_thresholds": List(Int(0, 1000), 1, 8),
            "total_words": List(Str(), 1, 8),
            "brown_thresholds": List(Int(0, 1000), 1, 8),
            "brown_words": List(Str(), 1, 8),
            "green_thresholds": List(Int(0, 1000), 1, 8),
            "green_words": List(Str(), 1, 8),
            "stumps_thresholds": List(Int(0, 1000), 1, 8),
            "stumps_words": List(Str(), 1, 8),
            "easy_suffix": Str(),
        },
    },
    "shapes": Table(List(_OFFSET, TILE_HEXES, TILE_HEXES), "a table of shape name = [[q, r], ...]"),
    "tiles": List(Record(TILE_SCHEMA), 1, 200),
    "limits": {"max_turns": Int(1, 1_000_000)},
    "report": {"target_turns": List(Int(0, 1_000_000), 2, 2)},
    "bots": Table(_WEIGHTS, "a table of bot kind = weights"),
    "personas": Optional(Table({"bot": Str(BOT_KINDS), **_WEIGHTS}), {}),
}

NAME_LINES = ("total", "brown", "green", "stumps")


@dataclass(frozen=True)
class Hex:
    """One hex of a tile: its kind, its occupation cost as [mushroom, water, insect] counts, its points."""

    kind: str
    cost: tuple[int, int, int]
    value: int

    @property
    def is_stump(self) -> bool:
        return self.kind != "arid"


@dataclass(frozen=True)
class Tile:
    """One physical forest tile."""

    name: str
    level: int
    starting: bool
    first_player: bool
    players: int
    shape: str
    hexes: tuple[Hex, ...]
    beetles: tuple[int, int, int, int]  # resources gained, by RESOURCES index


def rotate(offset: tuple[int, int], turns: int) -> tuple[int, int]:
    """``offset`` rotated ``turns`` times by 60 degrees clockwise: ``(q, r) -> (-r, q + r)``."""
    q, r = offset
    for _ in range(turns % ROTATIONS):
        q, r = -r, q + r
    return q, r


def distance(q: int, r: int) -> int:
    """Hex distance of ``(q, r)`` from the centre."""
    return max(abs(q), abs(r), abs(q + r))


def _connected(cells: list[tuple[int, int]]) -> bool:
    seen, todo, members = {cells[0]}, [cells[0]], set(cells)
    while todo:
        q, r = todo.pop()
        for dq, dr in DIRECTIONS:
            step = (q + dq, r + dr)
            if step in members and step not in seen:
                seen.add(step)
                todo.append(step)
    return len(seen) == len(members)


@dataclass(frozen=True)
class VorexConfig(ActionBlocks):
    """A validated Vorex config with geometry tables, tile tables and the action numbering."""

    radius: int
    flowers: int
    actions_per_turn: int
    setup_beetles: bool
    supply: tuple[int, int, int, int]  # physical totals, by RESOURCES index
    start_light: int
    start_light_extra: tuple[int, ...]  # light added to each seat's start (a balancing variant), by seat
    reminders_from_supply: bool
    green: str  # "random", "none" or G1..G5
    brown: str  # "random" or B1..B5
    solo_easy: bool
    easy_start_light: int
    weed_flowers: int
    name_lines: dict  # line -> (thresholds, words)
    easy_suffix: str
    shapes: dict  # name -> tuple of 4 (q, r) offsets
    tiles: tuple[Tile, ...]
    max_turns: int
    target_turns: tuple[int, int]
    bot_weights: dict
    personas: dict
    loaded: LoadedConfig

    # --- seats and setup ------------------------------------------------------

    @staticmethod
    def seats(players: int) -> int:
        """Seats of the engine: ``players``, or 2 in solo (the player and the weed)."""
        return 2 if players == 1 else players

    def player_start_light(self, players: int) -> int:
        return self.easy_start_light if players == 1 and self.solo_easy else self.start_light

    def seat_start_light(self, players: int) -> tuple[int, ...]:
        """Light each seat starts with: the start plus the seat's ``start_light_extra`` (the solo weed: 0)."""
        if players == 1:
            return (self.player_start_light(players) + self.start_light_extra[0], 0)
        return tuple(self.start_light + self.start_light_extra[seat] for seat in range(players))

    def initial_supply(self, players: int) -> tuple[int, int, int, int]:
        """The supply after every player board took its reminders and starting light."""
        boards = 1 if players == 1 else players
        reminders = boards if self.reminders_from_supply else 0
        light = self.supply[0] - sum(self.seat_start_light(players))
        return (light,) + tuple(count - reminders for count in self.supply[1:])

    @cached_property
    def starting_tiles(self) -> tuple[int, ...]:
        """Starting tile ids: the first player's, then the others in config order (seat i gets entry i)."""
        first = [i for i, t in enumerate(self.tiles) if t.starting and t.first_player]
        others = [i for i, t in enumerate(self.tiles) if t.starting and not t.first_player]
        return tuple(first + others)

    @cached_property
    def level0_tiles(self) -> tuple[int, ...]:
        return tuple(i for i, t in enumerate(self.tiles) if t.level == 0 and not t.starting)

    def pile_levels(self, players: int) -> tuple[tuple[int, ...], ...]:
        """Selected forest tile ids of levels 1, 2, 3, each in config order (before shuffling)."""
        mark = max(players, 2)
        return tuple(tuple(i for i, t in enumerate(self.tiles) if t.level == level and t.players <= mark)
                     for level in (1, 2, 3))

    def pile_size(self, players: int) -> int:
        return sum(len(level) for level in self.pile_levels(players))

    # --- geometry -------------------------------------------------------------

    @cached_property
    def hex_coords(self) -> tuple[tuple[int, int], ...]:
        """``(q, r)`` of every window hex by number: playable hexes, then the ring, each in (r, q) order."""
        inner, ring = [], []
        edge = self.radius + 1
        for r in range(-edge, edge + 1):
            for q in range(-edge, edge + 1):
                d = distance(q, r)
                if d <= self.radius:
                    inner.append((q, r))
                elif d == edge:
                    ring.append((q, r))
        return tuple(inner + ring)

    @cached_property
    def hex_number(self) -> dict[tuple[int, int], int]:
        return {coords: index for index, coords in enumerate(self.hex_coords)}

    @cached_property
    def playable(self) -> int:
        """P: number of playable hexes (numbers 0..P-1)."""
        return 3 * self.radius * (self.radius + 1) + 1

    @cached_property
    def window(self) -> int:
        """H: number of window hexes, ring included."""
        return len(self.hex_coords)

    @cached_property
    def centre(self) -> int:
        return self.hex_number[(0, 0)]

    @cached_property
    def neighbours(self) -> np.ndarray:
        """int16 ``[H, 6]``: neighbour in each direction, -1 outside the window."""
        table = np.full((self.window, 6), -1, dtype=np.int16)
        for index, (q, r) in enumerate(self.hex_coords):
            for d, (dq, dr) in enumerate(DIRECTIONS):
                table[index, d] = self.hex_number.get((q + dq, r + dr), -1)
        return table

    @cached_property
    def shape_names(self) -> tuple[str, ...]:
        return tuple(self.shapes)

    @cached_property
    def shape_offsets(self) -> np.ndarray:
        """int16 ``[S, 6, 4, 2]``: the (q, r) offsets of each shape's hexes under each rotation."""
        table = np.zeros((len(self.shapes), ROTATIONS, TILE_HEXES, 2), dtype=np.int16)
        for s, cells in enumerate(self.shapes.values()):
            for k in range(ROTATIONS):
                table[s, k] = [rotate(cell, k) for cell in cells]
        return table

    @cached_property
    def placement_cells(self) -> np.ndarray:
        """int16 ``[S, P, 6, 4]``: hex numbers covered by (shape, anchor, rotation); -1 if not playable."""
        table = np.full((len(self.shapes), self.playable, ROTATIONS, TILE_HEXES), -1, dtype=np.int16)
        offsets = self.shape_offsets
        for anchor in range(self.playable):
            q, r = self.hex_coords[anchor]
            for s in range(len(self.shapes)):
                for k in range(ROTATIONS):
                    for i in range(TILE_HEXES):
                        dq, dr = offsets[s, k, i]
                        cell = (q + int(dq), r + int(dr))
                        if distance(*cell) <= self.radius:
                            table[s, anchor, k, i] = self.hex_number[cell]
        return table

    def placement_hexes(self, tile: int, anchor: int, rotation: int) -> tuple[int, ...] | None:
        """The 4 hexes tile ``tile`` covers at (anchor, rotation), hex i first; None if any is not playable."""
        cells = self.placement_cells[self.tile_shape[tile], anchor, rotation]
        return None if (cells < 0).any() else tuple(int(c) for c in cells)

    # --- tile tables (numpy-ready) --------------------------------------------

    @cached_property
    def tile_shape(self) -> np.ndarray:
        """int8 ``[T]``: index into ``shape_names``."""
        return np.array([self.shape_names.index(t.shape) for t in self.tiles], dtype=np.int8)

    @cached_property
    def tile_level(self) -> np.ndarray:
        return np.array([t.level for t in self.tiles], dtype=np.int8)

    @cached_property
    def tile_hex_kind(self) -> np.ndarray:
        """int8 ``[T, 4]``: index into HEX_KINDS."""
        return np.array([[HEX_KINDS.index(h.kind) for h in t.hexes] for t in self.tiles], dtype=np.int8)

    @cached_property
    def tile_hex_cost(self) -> np.ndarray:
        """int8 ``[T, 4, 3]``: occupation cost as [mushroom, water, insect] counts."""
        return np.array([[h.cost for h in t.hexes] for t in self.tiles], dtype=np.int8)

    @cached_property
    def tile_hex_value(self) -> np.ndarray:
        """int16 ``[T, 4]``: victory points of points stumps (0 elsewhere)."""
        return np.array([[h.value for h in t.hexes] for t in self.tiles], dtype=np.int16)

    @cached_property
    def tile_beetles(self) -> np.ndarray:
        """int8 ``[T, 4]``: resources the beetles give, by RESOURCES index."""
        return np.array([t.beetles for t in self.tiles], dtype=np.int8)

    @cached_property
    def tile_names(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.tiles)

    # --- objectives and solo names --------------------------------------------

    def solo_name(self, total: int, brown: int, green: int, stumps: int) -> str:
        """The subspecies name of a solo win from its score sheet lines."""
        words = []
        for line, value in zip(NAME_LINES, (total, brown, green, stumps)):
            thresholds, names = self.name_lines[line]
            index = max(i for i, low in enumerate(thresholds) if value >= low)
            words.append(names[index])
        name = " ".join(words)
        return f"{name} {self.easy_suffix}" if self.solo_easy else name

    # --- action numbering -----------------------------------------------------

    @cached_property
    def block_sizes(self) -> dict[str, int]:
        p = self.playable
        return {"bloom": p, "place": SETUP_SLOTS * p * ROTATIONS, "draw": 1, "decline": 1}

    def encode_bloom(self, hex_number: int) -> int:
        return self.offsets["bloom"] + hex_number

    def encode_place(self, slot: int, anchor: int, rotation: int) -> int:
        return self.offsets["place"] + (slot * self.playable + anchor) * ROTATIONS + rotation

    @property
    def draw_action(self) -> int:
        return self.offsets["draw"]

    @property
    def decline_action(self) -> int:
        return self.offsets["decline"]

    def decode(self, action: int) -> tuple[str, tuple[int, ...]]:
        """``(block, fields)``: bloom -> (hex,); place -> (slot, anchor, rotation); draw, decline -> ()."""
        if not 0 <= action < self.num_actions:
            raise ValueError(f"action {action} is outside 0..{self.num_actions - 1}")
        for block, size in self.block_sizes.items():
            if action < size:
                break
            action -= size
        if block == "bloom":
            return block, (action,)
        if block == "place":
            slot_anchor, rotation = divmod(action, ROTATIONS)
            return block, (*divmod(slot_anchor, self.playable), rotation)
        return block, ()


def _shapes(values: dict, source: str) -> dict[str, tuple[tuple[int, int], ...]]:
    shapes = {}
    for name, cells in values["shapes"].items():
        key = f"shapes.{name}"
        if not _NAME.match(name):
            raise ConfigError(source, key, "a lowercase shape name (a-z, 0-9, _)", name)
        offsets = [(q, r) for q, r in cells]
        if offsets[0] != (0, 0):
            raise ConfigError(source, key, "[0, 0] as the first offset (the anchor)", cells)
        if len(set(offsets)) != TILE_HEXES or not _connected(offsets):
            raise ConfigError(source, key, f"{TILE_HEXES} distinct, edge-connected hexes", cells)
        shapes[name] = tuple(offsets)
    if not shapes:
        raise ConfigError(source, "shapes", "at least one shape", has_got=False)
    return shapes


def _tile(index: int, raw: dict, shapes: dict, source: str) -> Tile:
    key = item_key("tiles", index, raw)
    if not _NAME.match(raw["name"]):
        raise ConfigError(source, f"{key}.name", "a lowercase name (a-z, 0-9, _)", raw["name"])
    if raw["shape"] not in shapes:
        raise ConfigError(source, f"{key}.shape", "one of the shapes (" + ", ".join(shapes) + ")", raw["shape"])
    if raw["starting"] and raw["level"] != 0:
        raise ConfigError(source, f"{key}.level", "0 for a starting tile", raw["level"])
    if raw["first_player"] and not raw["starting"]:
        raise ConfigError(source, f"{key}.first_player", "false on a tile that is not a starting tile", True)
    if raw["level"] == 0 and raw["players"] != 2:
        raise ConfigError(source, f"{key}.players", "2 (the mark applies to levels 1 to 3 only)", raw["players"])
    hexes = []
    for i, item in enumerate(raw["hexes"]):
        hex_key = f"{key}.hexes[{i}]"
        kind = item["kind"]
        if kind == "arid" and item["cost"]:
            raise ConfigError(source, f"{hex_key}.cost", "no cost on an arid hex", item["cost"])
        if kind == "points" and item["value"] < 1:
            raise ConfigError(source, f"{hex_key}.value", "at least 1 on a points stump", item["value"])
        if kind != "points" and item["value"] != 0:
            raise ConfigError(source, f"{hex_key}.value", "0 (only points stumps have a value)", item["value"])
        if kind == "light" and not raw["starting"]:
            raise ConfigError(source, f"{hex_key}.kind", "not light (light stumps only on starting tiles)", kind)
        cost = tuple(item["cost"].count(name) for name in COST_RESOURCES)
        hexes.append(Hex(kind, cost, item["value"]))
    if raw["starting"] and sum(h.kind == "light" for h in hexes) != 1:
        raise ConfigError(source, f"{key}.hexes", "exactly one light stump on a starting tile",
                          [h.kind for h in hexes])
    beetles = tuple(raw["beetles"].count(name) for name in RESOURCES)
    return Tile(raw["name"], raw["level"], raw["starting"], raw["first_player"], raw["players"], raw["shape"],
                tuple(hexes), beetles)


def _name_lines(values: dict, source: str) -> dict:
    names = values["solo"]["names"]
    lines = {}
    for line in NAME_LINES:
        thresholds, words = names[f"{line}_thresholds"], names[f"{line}_words"]
        key = f"solo.names.{line}_thresholds"
        if thresholds[0] != 0 or any(b <= a for a, b in zip(thresholds, thresholds[1:])):
            raise ConfigError(source, key, "strictly ascending values starting at 0", thresholds)
        if len(words) != len(thresholds):
            raise ConfigError(source, f"solo.names.{line}_words", f"{len(thresholds)} words, one per threshold",
                              words)
        lines[line] = (tuple(thresholds), tuple(words))
    return lines


def build(loaded: LoadedConfig) -> VorexConfig:
    """Cross-check a validated config and derive the typed config."""
    values, source = loaded.values, loaded.source
    shapes = _shapes(values, source)
    tiles = tuple(_tile(i, raw, shapes, source) for i, raw in enumerate(values["tiles"]))
    names = [t.name for t in tiles]
    for index, name in enumerate(names):
        if name in names[:index]:
            raise ConfigError(source, f"tiles[{index}].name", "a name no other tile has", name)
    starting = [t for t in tiles if t.starting]
    if len(starting) < MAX_PLAYERS:
        raise ConfigError(source, "tiles", f"at least {MAX_PLAYERS} starting tiles (one per player)", len(starting))
    firsts = sum(t.first_player for t in starting)
    if firsts != 1:
        raise ConfigError(source, "tiles", "exactly one starting tile with first_player = true", firsts)
    level0 = sum(t.level == 0 and not t.starting for t in tiles)
    if level0 < MAX_PLAYERS:
        raise ConfigError(source, "tiles", f"at least {MAX_PLAYERS} level-0 tiles (one per player)", level0)
    forest = sum(t.level >= 1 and t.players <= 2 for t in tiles)
    if forest < FACE_UP:
        raise ConfigError(source, "tiles", f"at least {FACE_UP} forest tiles (levels 1-3) marked players = 2: setup "
                          f"turns {FACE_UP} face up from the pile of the fewest players", forest)

    resources = values["resources"]
    supply = tuple(resources["supply"][name] for name in RESOURCES)
    solo = values["solo"]
    extra = resources["start_light_extra"]
    light_needed = max(MAX_PLAYERS * resources["start_light"] + sum(extra), solo["easy_start_light"] + extra[0])
    if supply[0] < light_needed:
        raise ConfigError(source, "resources.supply.light",
                          f"at least {light_needed} (the starting light of every player, "
                          "resources.start_light_extra included)", supply[0])
    if resources["reminders_from_supply"]:
        for name, count in zip(RESOURCES[1:], supply[1:]):
            if count < MAX_PLAYERS:
                raise ConfigError(source, f"resources.supply.{name}",
                                  f"at least {MAX_PLAYERS} (one production reminder per player)", count)

    low, high = values["report"]["target_turns"]
    if low > high:
        raise ConfigError(source, "report.target_turns", "[shortest, longest] with shortest <= longest", [low, high])

    for kind in values["bots"]:
        if kind not in BOT_KINDS:
            raise ConfigError(source, f"bots.{kind}", "a bot kind (" + ", ".join(BOT_KINDS) + ")", has_got=False)
    bot_weights, personas = bot_tables(values, source, {"greedy": WEIGHT_NAMES})

    return VorexConfig(
        radius=values["map"]["radius"],
        flowers=values["rules"]["flowers"],
        actions_per_turn=values["rules"]["actions_per_turn"],
        setup_beetles=values["rules"]["setup_beetles"],
        supply=supply,
        start_light=resources["start_light"],
        start_light_extra=tuple(extra),
        reminders_from_supply=resources["reminders_from_supply"],
        green=values["objectives"]["green"],
        brown=values["objectives"]["brown"],
        solo_easy=solo["easy"],
        easy_start_light=solo["easy_start_light"],
        weed_flowers=solo["weed_flowers"],
        name_lines=_name_lines(values, source),
        easy_suffix=solo["names"]["easy_suffix"],
        shapes=shapes,
        tiles=tiles,
        max_turns=values["limits"]["max_turns"],
        target_turns=(low, high),
        bot_weights=bot_weights,
        personas=personas,
        loaded=loaded,
    )


def load(path: Path | None = None, overrides: Iterable[str] = ()) -> VorexConfig:
    """Read ``configs/games/vorex.toml`` (or ``path``) with overrides applied."""
    return build(load_config("vorex", SCHEMA, path, overrides))
