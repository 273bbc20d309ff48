"""Vorex, one game in plain Python: the rules oracle for ``glade verify``.

The rules, the geometry, the random streams, the action numbering and every
ruling are written out in the docstring of :mod:`sims.vorex.config`; this
module follows them rule by rule, one small function or method per rule.

The map is a window of hexes numbered by the config (playable hexes first,
then the ring that stands for the open table). Per hex the game keeps::

    tile_at[h]   tile id covering h, RUIN (-2) for a ruin, EMPTY (-1)
    part_at[h]   which of the tile's 4 hexes lies on h (0..3), EMPTY elsewhere
    flower_at[h] seat whose flower is on h, EMPTY if none

A turn, as the engine runs it (``continue_turn`` is the state machine)::

    SETUP        place the own setup tiles one decision at a time; then the
                 free flower on the starting tile's light stump; end of turn
    ACTION x2    draw | expand (place a face-up tile) | bloom
                   a bloom on an action stump leaves a pending bonus:
                   draw automatic; expand -> BONUS_EXPAND; bloom -> BONUS_BLOOM
                   (a bonus bloom on an action stump chains one more bonus)
    WEED_BLOOM x2  (solo, seat 1) free bloom; a bloom stump -> one extra
                 WEED_BLOOM; an expand stump -> WEED_EXPAND
    end of turn  next seat; at the end of a round (2-4 players) the end checks

Spec readings the config leaves open are marked ``Reading:`` where they are
applied.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import Any

import numpy as np

from sims.core.engine import BLOCKED, STALL, ReferenceGame
from sims.core.rng import shuffle_order
from sims.vorex.config import (
    ACTION_KINDS,
    BROWN,
    COST_RESOURCES,
    GREEN,
    PRODUCED_COLUMNS,
    PRODUCTION_KINDS,
    RESOURCES,
    ROTATIONS,
    SEAT_COLUMNS,
    SETUP_SLOTS,
    VorexConfig,
    distance,
    event_kind,
)

EMPTY = -1
RUIN = -2
LIGHT = RESOURCES.index("light")

SETUP, ACTION, BONUS_EXPAND, BONUS_BLOOM, WEED_BLOOM, WEED_EXPAND = (
    "setup", "action", "bonus_expand", "bonus_bloom", "weed_bloom", "weed_expand")
FACE_UP_SLOTS = 2
# Reading: the spec's and the rulebook's "2 Bloom actions", whatever rules.actions_per_turn says.
WEED_BLOOMS_PER_TURN = 2

LAST_FLOWER = "last_flower"
SOLO_WIN, WEED_LAST_FLOWER, WEED_NO_STUMP = "solo_win", "weed_last_flower", "weed_no_stump"


# --- geometry (plain Python tables built once per config) ----------------------------------

@dataclass(frozen=True)
class Geometry:
    """The config's hex tables as plain Python lists."""

    playable: int
    window: int
    centre: int
    neighbours: tuple[tuple[int, ...], ...]  # existing neighbours of each hex (ring hexes have fewer)
    distance: tuple[int, ...]  # distance of each hex from the centre
    ring_distance: int
    cells: tuple  # cells[shape][anchor][rotation]: 4 hex numbers, or None if not all playable
    tile_shape: tuple[int, ...]  # shape index of each tile


_GEOMETRY: dict[int, tuple[VorexConfig, Geometry]] = {}
_GEOMETRY_KEPT = 8


def geometry(config: VorexConfig) -> Geometry:
    """Rules §1.1: The plain tables of ``config`` (cached per config object)."""
    cached = _GEOMETRY.get(id(config))
    if cached is not None and cached[0] is config:
        return cached[1]
    table = config.neighbours
    neighbours = tuple(tuple(int(n) for n in table[h] if n >= 0) for h in range(config.window))
    distances = tuple(distance(*config.hex_coords[h]) for h in range(config.window))
    raw = config.placement_cells
    cells = tuple(
        tuple(tuple(None if (raw[s, a, k] < 0).any() else tuple(int(c) for c in raw[s, a, k])
                    for k in range(ROTATIONS))
              for a in range(config.playable))
        for s in range(len(config.shapes)))
    built = Geometry(config.playable, config.window, config.centre, neighbours, distances, config.radius + 1, cells,
                     tuple(int(s) for s in config.tile_shape))
    if len(_GEOMETRY) >= _GEOMETRY_KEPT:  # a sweep builds many configs: keep the latest few
        del _GEOMETRY[next(iter(_GEOMETRY))]
    _GEOMETRY[id(config)] = (config, built)
    return built


def flower_groups(hexes: set[int], neighbours: tuple[tuple[int, ...], ...]) -> list[set[int]]:
    """Rules §5.1, §8.4: The 6-connected components of ``hexes`` (one seat's flowers), ordered by their smallest hex."""
    groups, seen = [], set()
    for start in sorted(hexes):
        if start in seen:
            continue
        group, frontier = {start}, [start]
        while frontier:
            hex_ = frontier.pop()
            for other in neighbours[hex_]:
                if other in hexes and other not in group:
                    group.add(other)
                    frontier.append(other)
        seen |= group
        groups.append(group)
    return groups


def linked(hexes: set[int], neighbours: tuple[tuple[int, ...], ...]) -> bool:
    """Are ``hexes`` one 6-connected set by themselves (true for none or one)?"""
    if not hexes:
        return True
    start = next(iter(hexes))
    seen, frontier = {start}, [start]
    while frontier:
        for other in neighbours[frontier.pop()]:
            if other in hexes and other not in seen:
                seen.add(other)
                frontier.append(other)
    return len(seen) == len(hexes)


# --- payment ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Payment:
    """What a bloom costs a seat after reductions: per cost kind paid, light paid, units reduced."""

    kinds: tuple[int, int, int]  # [mushroom, water, insect] paid from the seat's own resources
    light: int
    reduced: int

    @property
    def total(self) -> int:
        return sum(self.kinds) + self.light


def bloom_payment(cost: tuple[int, ...], reductions: list[int], wild: int, held: list[int]) -> Payment:
    """Rules §5.2: The deterministic payment of the spec (keep the most light, then spend kinds in resource order).

    ``cost`` and ``reductions`` are [mushroom, water, insect] counts, ``wild``
    the connected light stumps, ``held`` the seat's resources by RESOURCES index.
    """
    held_kinds = [held[RESOURCES.index(name)] for name in COST_RESOURCES]
    need = [max(c - r, 0) for c, r in zip(cost, reductions)]
    for k in range(len(need)):  # wild reductions first on what the seat is short of
        used = min(wild, max(need[k] - held_kinds[k], 0))
        need[k] -= used
        wild -= used
    for k in range(len(need)):  # then on what is left, in resource order
        used = min(wild, need[k])
        need[k] -= used
        wild -= used
    paid = tuple(min(n, h) for n, h in zip(need, held_kinds))
    light = sum(max(n - h, 0) for n, h in zip(need, held_kinds))
    return Payment(paid, light, sum(cost) - sum(need))


def ranks_by(pairs: list[tuple[int, int]]) -> list[int]:
    """Rules §8.5: 1 + the number of seats with a higher (score, resources left) pair; equal pairs share a rank."""
    return [1 + sum(other > mine for other in pairs) for mine in pairs]


# --- setup ------------------------------------------------------------------------------------

def one_shuffle(seed: int, purpose: str, n: int) -> list[int]:
    """``shuffle_order(seed, purpose, 0, n)`` of one game, as plain ints."""
    if n == 0:
        return []
    return [int(i) for i in shuffle_order(np.array([seed], dtype=np.uint64), purpose, 0, n)[0]]


def choose_objectives(config: VorexConfig, seed: int) -> tuple[str, str]:
    """Rules §1.7, §2.2."""
    green = GREEN[one_shuffle(seed, "objectives/green", len(GREEN))[0]] if config.green == "random" else config.green
    brown = BROWN[one_shuffle(seed, "objectives/brown", len(BROWN))[0]] if config.brown == "random" else config.brown
    return green, brown


def build_pile(config: VorexConfig, players: int, seed: int) -> list[int]:
    """The forest tiles for this player count, top first: shuffled level 1, then level 2, then level 3.

    Rules §1.4, §2.1.
    """
    pile: list[int] = []
    for level, selected in zip((1, 2, 3), config.pile_levels(players)):
        order = one_shuffle(seed, f"pile/level{level}", len(selected))
        pile += [selected[i] for i in order]
    return pile


def deal_setup_tiles(config: VorexConfig, players: int, seed: int) -> list[list[int]]:
    """Each seat's setup slots: [starting tile, level-0 tile, second level-0 tile (solo) or EMPTY].

    Rules §1.4, §2.4, §9.1.
    """
    level0 = config.level0_tiles
    order = one_shuffle(seed, "setup/level0", len(level0))
    if players == 1:
        return [[config.starting_tiles[0], level0[order[0]], level0[order[1]]], [EMPTY] * SETUP_SLOTS]
    return [[config.starting_tiles[seat], level0[order[seat]], EMPTY] for seat in range(players)]


class VorexGame(ReferenceGame):
    """One game of Vorex for ``players`` players (1 = solo against the weed, seat 1), dealt from ``seed``.

    ``players`` is the number of seats (2 in solo), ``player_count`` the
    number of players as given.
    """

    def __init__(self, config: VorexConfig, players: int, seed: int):
        if not 1 <= players <= 4:
            raise ValueError(f"Vorex is played by 1 to 4 players, not {players}")
        self.config = config
        self.geo = geometry(config)
        self.player_count = players
        self.solo = players == 1
        self.players = config.seats(players)
        self.weed = 1 if self.solo else EMPTY
        self.seed = int(seed)

        self.green, self.brown = choose_objectives(config, self.seed)
        self.supply: list[int] = list(config.initial_supply(players))
        self.resources: list[list[int]] = [[light, 0, 0, 0] for light in config.seat_start_light(players)]
        self.flowers_left: list[int] = [config.weed_flowers if seat == self.weed else config.flowers
                                        for seat in range(self.players)]
        self.setup_tiles = deal_setup_tiles(config, players, self.seed)
        self.pile = build_pile(config, players, self.seed)
        self.face_up: list[int] = [EMPTY] * FACE_UP_SLOTS
        self.pile_pointer = 0
        for slot in range(FACE_UP_SLOTS):
            self.refill(slot)

        window = self.geo.window
        self.tile_at: list[int] = [EMPTY] * window
        self.part_at: list[int] = [EMPTY] * window
        self.flower_at: list[int] = [EMPTY] * window
        self.placed_tiles: list[int] = []  # tile ids on the map, in placement order
        self.tile_hexes: dict[int, tuple[int, ...]] = {}  # tile id -> its 4 hexes on the map
        self.ruins: list[int] = []  # ruin hexes, in formation order
        self.settled: set[int] = set()

        self.to_move = 0
        self.turn = 0
        self.decisions = 0
        self.done = False
        self.end = ""
        self.phase = SETUP
        self.actions_left = 0
        self.pending_bonus = ""  # "bloom" or "expand": the bonus the last flower left to take
        self.extra_weed_bloom = False  # the current WEED_BLOOM decision is an extra one
        self.in_setup_round = True
        self.last_flower = False
        self.round_offered_progress = False  # an ACTION decision of this normal round offered bloom/place

        self.stats: dict[str, list[int]] = {name: [0] * self.players for name in (
            "flowers_placed", "flowers_ruins", "resources_gained", "resources_paid", "tiles_placed", "draws",
            "expands", "blooms", "bonus_draws", "bonus_expands", "bonus_blooms")}
        self.events: list[dict[str, Any]] = []
        self._legal: list[int] | None = None
        self._placements: dict[tuple[int, int], list[tuple[int, int]]] = {}  # (tile, map version) cache
        self.map_version = 0
        self.continue_turn()

    def clone(self) -> "VorexGame":
        """An independent copy (sharing the config, the geometry and the pile order, which never change)."""
        other = object.__new__(VorexGame)
        other.__dict__.update(self.__dict__)
        for name in ("supply", "flowers_left", "face_up", "tile_at", "part_at", "flower_at", "placed_tiles",
                     "ruins"):
            setattr(other, name, list(getattr(self, name)))
        other.resources = [list(r) for r in self.resources]
        other.setup_tiles = [list(t) for t in self.setup_tiles]
        other.tile_hexes = dict(self.tile_hexes)
        other.settled = set(self.settled)
        other.stats = {name: list(values) for name, values in self.stats.items()}
        # rows are only ever filled in while they are the last one
        other.events = self.events[:-1] + [dict(self.events[-1])] if self.events else []
        other._legal = None if self._legal is None else list(self._legal)
        other._placements = dict(self._placements)  # the lists in it are never changed
        return other

    def __deepcopy__(self, memo: dict) -> "VorexGame":
        return self.clone()

    def forget_cached(self) -> None:
        """Drop the cached legal actions and placements (after a test sets fields directly)."""
        self._legal = None
        self._placements.clear()
        self.map_version += 1

    # --- small queries ----------------------------------------------------------------------

    def hex_kind(self, hex_: int) -> str:
        """Rules §1.2: The kind of the tile hex on ``hex_`` (``""`` for an empty hex or a ruin)."""
        tile = self.tile_at[hex_]
        if tile < 0:
            return ""
        return self.config.tiles[tile].hexes[self.part_at[hex_]].kind

    def is_stump(self, hex_: int) -> bool:
        """Rules §1.2."""
        return self.tile_at[hex_] >= 0 and self.hex_kind(hex_) != "arid"

    def is_covered(self, hex_: int) -> bool:
        """Part of the forest: a tile hex or a ruin."""
        return self.tile_at[hex_] != EMPTY

    def free_stumps(self) -> list[int]:
        return [h for h in range(self.geo.playable) if self.is_stump(h) and self.flower_at[h] == EMPTY]

    def flowers_of(self, seat: int) -> set[int]:
        return {h for h in range(self.geo.playable) if self.flower_at[h] == seat}

    def produced_resource(self, hex_: int) -> int:
        """Rules §1.2: The RESOURCES index a production stump produces; EMPTY for any other hex."""
        kind = self.hex_kind(hex_)
        return RESOURCES.index(kind) if kind in PRODUCTION_KINDS else EMPTY

    def is_weed(self, seat: int) -> bool:
        """Rules §9.2."""
        return seat == self.weed

    def tiles_left(self) -> int:
        return len(self.pile) - self.pile_pointer + sum(tile != EMPTY for tile in self.face_up)

    # --- tile placement -------------------------------------------------------------------------

    def placement_cells(self, tile: int, anchor: int, rotation: int) -> tuple[int, ...] | None:
        """Rules §1.1."""
        return self.geo.cells[self.geo.tile_shape[tile]][anchor][rotation]

    def placement_ruins(self, cells: tuple[int, ...] | None) -> list[int] | None:
        """Rules §3.2: The ruins placing a tile on ``cells`` forms, or None if the placement is illegal.

        Needs: every cell playable and uncovered; the very first tile covers
        the centre, any other touches the forest; no closed empty region of 2
        or more hexes. Every empty hex is open before the placement, so only
        a region holding one of the tile's empty neighbours can be closed by
        it, and none is when those neighbours still link up among themselves
        (one of them keeps its way out, so all do). Otherwise each neighbour's
        region is searched; a closed one of 1 hex is a ruin.
        """
        tile_at = self.tile_at
        if cells is None or any(tile_at[c] != EMPTY for c in cells):
            return None
        neighbours = self.geo.neighbours
        if not self.placed_tiles:
            if self.geo.centre not in cells:
                return None
        elif not any(tile_at[n] != EMPTY for c in cells for n in neighbours[c]):
            return None
        new = set(cells)
        sides = {n for c in cells for n in neighbours[c] if n not in new and tile_at[n] == EMPTY}
        if linked(sides, neighbours):
            return []
        open_hexes: set[int] = set()
        ruins = []
        for start in sorted(sides):
            if start in open_hexes:
                continue
            region, reaches_ring = self.empty_region(start, new, open_hexes)
            if reaches_ring:
                open_hexes |= region
            elif len(region) >= 2:
                return None
            else:
                ruins.append(start)
        return ruins

    def empty_region(self, start: int, new: set[int], open_hexes: set[int]) -> tuple[set[int], bool]:
        """Rules §3.2: Search the empty region of ``start`` once ``new`` is covered: (hexes seen, reaches the ring).

        Farthest from the centre first, so an open region reaches the ring in
        a few steps; the search stops at the first hex known to be open (on
        the ring, or seen open before).
        """
        geo, tile_at = self.geo, self.tile_at
        seen = {start}
        queue = [(-geo.distance[start], start)]
        while queue:
            _, hex_ = heapq.heappop(queue)
            if geo.distance[hex_] == geo.ring_distance or hex_ in open_hexes:
                return seen, True
            for other in geo.neighbours[hex_]:
                if other not in seen and other not in new and tile_at[other] == EMPTY:
                    seen.add(other)
                    heapq.heappush(queue, (-geo.distance[other], other))
        return seen, False

    def legal_placements(self, tile: int) -> list[tuple[int, int]]:
        """Rules §3.1: Every legal (anchor, rotation) of ``tile`` on the current map, ascending."""
        key = (tile, self.map_version)
        found = self._placements.get(key)
        if found is None:
            found = [(anchor, rotation) for anchor in range(self.geo.playable) for rotation in range(ROTATIONS)
                     if self.placement_ruins(self.placement_cells(tile, anchor, rotation)) is not None]
            self._placements[key] = found
        return found

    def can_place(self, tiles: list[int]) -> bool:
        """Rules §3.1: Has any of ``tiles`` (EMPTY entries skipped) a legal placement? Stops at the first found."""
        for tile in tiles:
            if tile == EMPTY:
                continue
            cached = self._placements.get((tile, self.map_version))
            if cached is not None:
                if cached:
                    return True
                continue
            if any(self.placement_ruins(self.placement_cells(tile, anchor, rotation)) is not None
                   for anchor in range(self.geo.playable) for rotation in range(ROTATIONS)):
                return True
        return False

    def put_tile(self, tile: int, anchor: int, rotation: int) -> list[int]:
        """Rules §3.2: Cover the tile's hexes and form its ruins; returns the ruins formed."""
        cells = self.placement_cells(tile, anchor, rotation)
        ruins = self.placement_ruins(cells)
        for part, hex_ in enumerate(cells):
            self.tile_at[hex_] = tile
            self.part_at[hex_] = part
        for hex_ in ruins:
            self.tile_at[hex_] = RUIN
        self.ruins += ruins
        self.placed_tiles.append(tile)
        self.tile_hexes[tile] = cells
        self.map_version += 1
        self._placements.clear()
        self.stats["tiles_placed"][self.to_move] += 1
        self.note(ruins_formed=len(ruins))
        return ruins

    def gain(self, seat: int, resource: int, amount: int) -> int:
        """Rules §1.3, §1.5: Take up to ``amount`` of a resource from the supply; returns what was taken."""
        taken = min(amount, self.supply[resource])
        self.supply[resource] -= taken
        self.resources[seat][resource] += taken
        self.stats["resources_gained"][seat] += taken
        self.note(gained=taken)
        return taken

    def place_tile(self, tile: int, anchor: int, rotation: int, beetles: bool, refill_slot: int) -> None:
        """A tile placement: ruins form, beetles (if any are taken), the face-up slot refills, ruins resolve.

        Rules §1.3, §4.3.
        """
        self.put_tile(tile, anchor, rotation)
        self.note(tile=self.config.tile_names[tile], level=self.config.tiles[tile].level)
        if beetles:
            for resource, count in enumerate(self.config.tiles[tile].beetles):
                self.gain(self.to_move, resource, count)
        if refill_slot != EMPTY:
            self.refill(refill_slot)
        self.resolve_ruins()

    def refill(self, slot: int) -> None:
        """Rules §2.1, §4.3: The face-up slot takes the top of the pile (empty once the pile is used up)."""
        if self.pile_pointer < len(self.pile):
            self.face_up[slot] = self.pile[self.pile_pointer]
            self.pile_pointer += 1
        else:
            self.face_up[slot] = EMPTY

    # --- flowers, blooms and ruins --------------------------------------------------------------------

    def put_flower(self, seat: int, hex_: int) -> None:
        """A flower of ``seat`` goes on ``hex_`` (any way: bloom, setup, ruin); solo ends are checked at once.

        Rules §1.6, §7.1, §9.3.
        """
        self.flower_at[hex_] = seat
        self.flowers_left[seat] -= 1
        self.stats["flowers_placed"][seat] += 1
        if self.flowers_left[seat] == 0:
            self.last_flower = True  # Reading: in solo too, by either seat (the game then ends at once)
            if self.solo:
                self.finish(WEED_LAST_FLOWER if self.is_weed(seat) else SOLO_WIN)

    def complete(self, ruin: int) -> bool:
        """Rules §6.1: Every stump around the ruin holds a flower (true at once with no stump around)."""
        return all(self.flower_at[n] != EMPTY for n in self.geo.neighbours[ruin] if self.is_stump(n))

    def resolve_ruins(self) -> None:
        """Settle each complete unsettled ruin: a unique most-flowers seat with a flower left blooms it for free.

        Rules §6.1.
        """
        for ruin in sorted(self.ruins):
            if self.done:
                return
            if ruin in self.settled or self.flower_at[ruin] != EMPTY or not self.complete(ruin):
                continue
            self.settled.add(ruin)
            around = [0] * self.players
            for n in self.geo.neighbours[ruin]:
                if self.flower_at[n] != EMPTY:
                    around[self.flower_at[n]] += 1
            most = max(around)
            leaders = [seat for seat in range(self.players) if around[seat] == most]
            if most == 0 or len(leaders) > 1 or self.flowers_left[leaders[0]] == 0:
                continue
            self.stats["flowers_ruins"][leaders[0]] += 1
            self.note(ruin_flowers=1)
            self.put_flower(leaders[0], ruin)

    def seat_groups(self, seat: int) -> list[set[int]]:
        """Rules §5.1."""
        return flower_groups(self.flowers_of(seat), self.geo.neighbours)

    def connected_flowers(self, groups: list[set[int]], target: int) -> list[int]:
        """Rules §5.1: The seat's flowers in groups holding a hex next to ``target``."""
        around = set(self.geo.neighbours[target])
        return [h for group in groups if group & around for h in group]

    def payment_for(self, seat: int, target: int, groups: list[set[int]]) -> Payment:
        """Rules §5.1: What blooming ``target`` costs ``seat`` after its connected production stumps' reductions."""
        tile = self.tile_at[target]
        cost = self.config.tiles[tile].hexes[self.part_at[target]].cost
        reductions, wild = [0] * len(COST_RESOURCES), 0
        for hex_ in self.connected_flowers(groups, target):
            resource = self.produced_resource(hex_)
            if resource == LIGHT:
                wild += 1
            elif resource != EMPTY:
                reductions[COST_RESOURCES.index(RESOURCES[resource])] += 1
        return bloom_payment(cost, reductions, wild, self.resources[seat])

    def affordable_blooms(self, seat: int) -> list[int]:
        """Rules §4.4: The stumps ``seat`` may bloom: a flower left, an unoccupied stump, a payable reduced cost."""
        if self.flowers_left[seat] == 0:
            return []
        groups = self.seat_groups(seat)
        light = self.resources[seat][LIGHT]
        return [h for h in self.free_stumps() if self.payment_for(seat, h, groups).light <= light]

    def bloom(self, target: int, pay: bool) -> str:
        """Rules §4.4, §6.2, §9.2: Pay (unless the weed), place the flower, resolve ruins; returns the stump's kind."""
        seat = self.to_move
        kind = self.hex_kind(target)
        tile = self.config.tiles[self.tile_at[target]]
        self.note(tile=tile.name, level=tile.level, stump=kind, stump_points=tile.hexes[self.part_at[target]].value)
        if pay:
            payment = self.payment_for(seat, target, self.seat_groups(seat))
            for k, amount in enumerate(payment.kinds):
                resource = RESOURCES.index(COST_RESOURCES[k])
                self.resources[seat][resource] -= amount
                self.supply[resource] += amount
            self.resources[seat][LIGHT] -= payment.light
            self.supply[LIGHT] += payment.light
            self.stats["resources_paid"][seat] += payment.total
            self.note(reduced=payment.reduced, paid=payment.total, light_paid=payment.light)
        self.put_flower(seat, target)
        if not self.done:
            self.resolve_ruins()
        return kind

    def draw(self, seat: int) -> None:
        """Rules §4.2: Gain one resource per own flower on a production stump, by kind, capped by the supply."""
        produced = [0] * len(RESOURCES)
        for hex_ in self.flowers_of(seat):
            resource = self.produced_resource(hex_)
            if resource != EMPTY:
                produced[resource] += 1
        for resource, amount in enumerate(produced):
            self.note(**{PRODUCED_COLUMNS[resource]: self.gain(seat, resource, amount)})

    def player_bonus(self, kind: str) -> None:
        """The bonus of the action stump just bloomed by a player: draw at once, expand or bloom pending.

        Rules §5.3, §6.2.
        """
        if kind == "draw":
            self.stats["bonus_draws"][self.to_move] += 1
            self.draw(self.to_move)
        elif kind in ("expand", "bloom"):
            self.pending_bonus = kind

    # --- legal actions --------------------------------------------------------------------------------

    def face_up_places(self) -> list[int]:
        """Rules §4.3."""
        config = self.config
        return [config.encode_place(slot, anchor, rotation)
                for slot, tile in enumerate(self.face_up) if tile != EMPTY
                for anchor, rotation in self.legal_placements(tile)]

    def setup_places(self) -> list[int]:
        """Rules §2.5."""
        config = self.config
        return [config.encode_place(slot, anchor, rotation)
                for slot, tile in enumerate(self.setup_tiles[self.to_move]) if tile != EMPTY
                for anchor, rotation in self.legal_placements(tile)]

    def blooms(self) -> list[int]:
        """Rules §4.4."""
        return [self.config.encode_bloom(h) for h in self.affordable_blooms(self.to_move)]

    def weed_blooms(self) -> list[int]:
        """Rules §9.2."""
        return [self.config.encode_bloom(h) for h in self.free_stumps()]

    def legal_actions(self) -> list[int]:
        """Rules §4.1."""
        if self.done:
            return []
        if self._legal is None:
            self._legal = self.compute_legal()
        return list(self._legal)

    def compute_legal(self) -> list[int]:
        config = self.config
        if self.phase == SETUP:
            return self.setup_places()
        if self.phase == ACTION:
            return self.blooms() + self.face_up_places() + [config.draw_action]
        if self.phase == BONUS_EXPAND:
            return self.face_up_places() + [config.decline_action]
        if self.phase == BONUS_BLOOM:
            return self.blooms() + [config.decline_action]
        if self.phase == WEED_BLOOM:
            return self.weed_blooms()
        return self.face_up_places()  # WEED_EXPAND

    # --- a decision ------------------------------------------------------------------------------------

    def apply(self, action: int) -> None:
        legal = self.legal_actions()
        if action not in legal:
            raise ValueError(f"action {action} is not legal (turn {self.turn}, seat {self.to_move}, "
                             f"phase {self.phase})")
        config, seat = self.config, self.to_move
        block, fields = config.decode(action)
        if self.phase == ACTION and any(a != config.draw_action for a in legal):
            self.round_offered_progress = True
        self._legal = None
        self.events.append({
            "decision": self.decisions, "turn": self.turn, "seat": seat, "phase": self.phase, "action": action,
            "block": block, "kind": event_kind(self.phase, block), "tile": "", "level": -1, "stump": "",
            "stump_points": 0, "reduced": 0, "paid": 0, "light_paid": 0, "gained": 0, "ruins_formed": 0,
            "ruin_flowers": 0, **dict.fromkeys(PRODUCED_COLUMNS, 0)})
        before = self.score_sheet(seat)

        if self.phase == SETUP:
            slot, anchor, rotation = fields
            tile = self.setup_tiles[seat][slot]
            self.setup_tiles[seat][slot] = EMPTY
            self.place_tile(tile, anchor, rotation, beetles=config.setup_beetles, refill_slot=EMPTY)
        elif self.phase == ACTION:
            self.actions_left -= 1
            self.take_action(block, fields)
        elif self.phase in (BONUS_EXPAND, BONUS_BLOOM):
            self.pending_bonus = ""
            if block != "decline":
                self.stats["bonus_expands" if block == "place" else "bonus_blooms"][seat] += 1
                self.take_action(block, fields)
        elif self.phase == WEED_BLOOM:
            if self.extra_weed_bloom:
                self.extra_weed_bloom = False
            else:
                self.actions_left -= 1
            self.pending_bonus = ""
            kind = self.bloom(fields[0], pay=False)
            if kind in ("bloom", "expand"):
                self.pending_bonus = kind
        else:  # WEED_EXPAND
            self.pending_bonus = ""
            slot, anchor, rotation = fields
            self.place_tile(self.face_up[slot], anchor, rotation, beetles=False, refill_slot=slot)
        self.continue_turn()
        self.note_points(seat, before)

    def take_action(self, block: str, fields: tuple[int, ...]) -> None:
        """Rules §4.1: A player's draw, expand or bloom (an ACTION decision or a bonus)."""
        seat = self.to_move
        if block == "draw":
            self.stats["draws"][seat] += 1
            self.draw(seat)
        elif block == "place":
            if self.phase == ACTION:
                self.stats["expands"][seat] += 1
            slot, anchor, rotation = fields
            self.place_tile(self.face_up[slot], anchor, rotation, beetles=True, refill_slot=slot)
        else:
            if self.phase == ACTION:
                self.stats["blooms"][seat] += 1
            kind = self.bloom(fields[0], pay=True)
            if not self.done:
                self.player_bonus(kind)

    def note(self, **values: Any) -> None:
        """Fill in the current decision's event row (counts add up; names replace)."""
        if not self.events:
            return
        row = self.events[-1]
        for name, value in values.items():
            if isinstance(value, int) and name not in ("level", "stump_points"):
                row[name] += value
            else:
                row[name] = value

    def note_points(self, seat: int, before: dict[str, int]) -> None:
        """The decision's event row gets the score change it caused the deciding seat: ``points`` in all and
        by score line (``points_flowers``...: rules §8), what the turn's automatic steps added included."""
        after = self.score_sheet(seat)
        row = self.events[-1]
        for name, value in after.items():
            row[name] = value - before[name]
        row["points"] = sum(after.values()) - sum(before.values())

    # --- the rest of the turn ------------------------------------------------------------------------

    def continue_turn(self) -> None:
        """Rules §4.1, §7.3: Carry the turn on until the seat to move has a decision to take, or the game is over
        (a blocked game is over at the mover's ACTION decision)."""
        while not self.done:
            if self.phase == SETUP:
                if self.can_place(self.setup_tiles[self.to_move]):
                    return
                self.finish_setup_turn()
                continue
            if self.pending_bonus:
                if self.offer_bonus():
                    return
                continue
            if self.actions_left > 0:
                if self.is_weed(self.to_move):
                    if not self.free_stumps():
                        self.finish(WEED_NO_STUMP)
                        return
                    self.phase = WEED_BLOOM
                else:
                    self.phase = ACTION
                    if self.blocked():
                        self.finish(BLOCKED)
                return
            self.end_turn()

    def offer_bonus(self) -> bool:
        """Open the pending bonus's decision if it has an option; False when it was skipped (or the game ended).

        Rules §5.3.
        """
        kind, weed = self.pending_bonus, self.is_weed(self.to_move)
        if weed and kind == "bloom":
            if not self.free_stumps():
                self.finish(WEED_NO_STUMP)
                return False
            self.phase, self.extra_weed_bloom = WEED_BLOOM, True
            return True
        if kind == "expand" and self.can_place(self.face_up):
            self.phase = WEED_EXPAND if weed else BONUS_EXPAND
            return True
        if kind == "bloom" and self.blooms():
            self.phase = BONUS_BLOOM
            return True
        self.pending_bonus = ""
        return False

    def finish_setup_turn(self) -> None:
        """Rules §2.5: Unplaceable setup tiles are set aside; the free flower on the starting tile's light stump.

        Reading: a setup tile is set aside only when none of the seat's
        unplaced setup tiles has a legal placement (placing one may open
        room for the other); its slot then shows -1 in ``setup_left``.
        """
        seat = self.to_move
        self.setup_tiles[seat] = [EMPTY] * SETUP_SLOTS
        start = self.config.starting_tiles[seat] if not self.is_weed(seat) else EMPTY
        if start in self.tile_hexes:
            light = next(h for h in self.tile_hexes[start] if self.hex_kind(h) == "light")
            self.put_flower(seat, light)
            self.resolve_ruins()
        if not self.done:
            self.end_turn()

    def end_turn(self) -> None:
        """Next seat's turn; at the end of a round (2-4 players) the end checks.

        Reading: the next turn is set up (its seat, phase and actions) before
        the end check, so a game ended by a round shows seat 0 to move.
        """
        round_over = self.to_move == self.players - 1
        setup_round = self.in_setup_round
        self.turn += 1
        if self.solo and self.in_setup_round:
            self.in_setup_round = False  # the weed has no setup turn: the player's first normal turn follows
        else:
            self.to_move = (self.to_move + 1) % self.players
            if self.in_setup_round and round_over:
                self.in_setup_round = False
        self.pending_bonus = ""
        self.extra_weed_bloom = False
        if self.in_setup_round:
            self.phase, self.actions_left = SETUP, 0
        elif self.is_weed(self.to_move):
            self.phase, self.actions_left = WEED_BLOOM, WEED_BLOOMS_PER_TURN
        else:
            self.phase, self.actions_left = ACTION, self.config.actions_per_turn
        if not self.solo and round_over:
            self.end_of_round(setup_round)

    def end_of_round(self, setup_round: bool) -> None:
        """2-4 players: the last flower ends the game after its round; so does a normal round without progress.

        Rules §7.1, §7.2.
        """
        if self.last_flower:
            self.finish(LAST_FLOWER)
        elif not setup_round and not self.round_offered_progress:
            self.finish(BLOCKED)
        self.round_offered_progress = False

    def draws_something(self, seat: int) -> bool:
        """Rules §4.2: Would a Draw give ``seat`` anything (a flower on a production stump whose kind is left)?"""
        return any(self.supply[resource] > 0 for resource in map(self.produced_resource, self.flowers_of(seat))
                   if resource != EMPTY)

    def seats_to_play(self) -> list[int]:
        """Rules §7.1, §7.3: The seats with a turn under way or still to come: every seat, but in the final round
        after a last flower only the seat to move and those after it."""
        first = self.to_move if self.last_flower else 0
        return list(range(first, self.players))

    def blocked(self) -> bool:
        """Rules §7.3: At the mover's ACTION decision, no seat still to play can ever change the position.

        Nothing changes while every action is a Draw that gains nothing, so
        it is blocked when no face-up tile has a placement and every seat
        still to play has no bloom and would draw nothing (the weed: no free
        stump). The mover's own actions are looked at first.
        """
        if self.draws_something(self.to_move) or self.compute_legal() != [self.config.draw_action]:
            return False
        for seat in self.seats_to_play():
            if self.is_weed(seat):
                if self.free_stumps():
                    return False
            elif self.affordable_blooms(seat) or self.draws_something(seat):
                return False
        return True

    def finish(self, reason: str) -> None:
        self.done, self.end = True, reason
        self._legal = None

    def stall(self) -> None:
        """Rules §7.4."""
        self.finish(STALL)

    # --- scoring ---------------------------------------------------------------------------------------

    def neighbours_of(self, hex_: int) -> tuple[int, ...]:
        """Rules §1.1."""
        return self.geo.neighbours[hex_]

    def tile_stumps(self, tile: int) -> list[int]:
        return [h for h in self.tile_hexes[tile] if self.hex_kind(h) != "arid"]

    def points_stumps(self, seat: int) -> int:
        """Rules §8.2."""
        return sum(self.config.tiles[self.tile_at[h]].hexes[self.part_at[h]].value
                   for h in self.flowers_of(seat) if self.hex_kind(h) == "points")

    def green_points(self, seat: int) -> int:
        """Rules §8.3: The green objective's points (0 in family mode)."""
        flowers = self.flowers_of(seat)
        if self.green == "G1":
            return sum(any(not self.is_covered(n) for n in self.neighbours_of(h)) for h in flowers)
        if self.green == "G2":
            return 2 * sum(1 for tile in self.placed_tiles
                           if self.tile_stumps(tile) and all(self.flower_at[h] == seat for h in self.tile_stumps(tile)))
        if self.green == "G3":
            return sum(sum(self.hex_kind(n) == "arid" for n in self.neighbours_of(h)) >= 2 for h in flowers)
        if self.green == "G4":
            return sum(any(n in flowers for n in self.neighbours_of(ruin)) for ruin in self.ruins)
        if self.green == "G5":
            return sum(any(self.flower_at[h] == seat for h in self.tile_hexes[tile]) for tile in self.placed_tiles)
        return 0

    def brown_points(self, seat: int) -> int:
        """Rules §8.4."""
        flowers = self.flowers_of(seat)
        groups = self.seat_groups(seat)
        if self.brown == "B1":
            counts = [len(self.seat_groups(s)) for s in range(self.players) if not self.is_weed(s)]
            most = self.solo or len(groups) == max(counts)
            return len(groups) + (2 if most else 0)
        if self.brown == "B2":
            return 2 * sum(sum(self.flower_at[n] not in (EMPTY, seat) for n in self.neighbours_of(h)) >= 2
                           for h in flowers)
        if self.brown == "B3":
            return 2 * sum(any(self.produced_resource(h) != EMPTY for h in group) for group in groups)
        if self.brown == "B4":
            return sum(sum(n in flowers for n in self.neighbours_of(h)) <= 2 for h in flowers)
        return 3 * sum(len(group) >= 3 for group in groups)  # B5

    def score_sheet(self, seat: int) -> dict[str, int]:
        """Rules §8.1: The four score lines of a seat (all 0 for the weed)."""
        if self.is_weed(seat):
            return {"points_flowers": 0, "points_stumps": 0, "points_green": 0, "points_brown": 0}
        return {"points_flowers": self.stats["flowers_placed"][seat], "points_stumps": self.points_stumps(seat),
                "points_green": self.green_points(seat), "points_brown": self.brown_points(seat)}

    def stump_counts(self, seat: int) -> dict[str, int]:
        kinds = [self.hex_kind(h) for h in self.flowers_of(seat)]
        return {"stumps_production": sum(k in PRODUCTION_KINDS for k in kinds),
                "stumps_action": sum(k in ACTION_KINDS for k in kinds),
                "stumps_points": sum(k == "points" for k in kinds)}

    def result(self) -> dict[str, Any]:
        """Rules §8.5, §9.4."""
        sheets = [self.score_sheet(seat) for seat in range(self.players)]
        scores = [sum(sheet.values()) for sheet in sheets]
        left = [sum(self.resources[seat]) for seat in range(self.players)]
        if self.end == STALL:
            rank = [0] * self.players
        elif self.solo:
            rank = [1, 2] if self.end == SOLO_WIN else [2, 1]
        else:
            rank = ranks_by(list(zip(scores, left)))
        columns: dict[str, list[int]] = {name: [] for name in SEAT_COLUMNS}
        for seat in range(self.players):
            values = {**sheets[seat], **self.stump_counts(seat), "resources_left": left[seat]}
            values.update({name: counts[seat] for name, counts in self.stats.items()})
            for name in SEAT_COLUMNS:
                columns[name].append(values[name])
        solo_name = ""
        if self.end == SOLO_WIN:
            sheet = sheets[0]
            solo_name = self.config.solo_name(scores[0], sheet["points_brown"], sheet["points_green"],
                                              sheet["points_stumps"])
        games = {"green": self.green, "brown": self.brown,
                 "solo_name": solo_name, "ruins": len(self.ruins), "tiles_left": self.tiles_left()}
        return {"score": [float(s) for s in scores], "rank": rank, "end": self.end, "turns": self.turn,
                "seat_columns": columns, "game_columns": games}

    def snapshot(self) -> dict[str, Any]:
        setup_left = list(self.setup_tiles[self.to_move]) if self.phase == SETUP else [EMPTY] * SETUP_SLOTS
        return {
            "tile": list(self.tile_at),
            "part": list(self.part_at),
            "flower": list(self.flower_at),
            "settled": sorted(self.settled),
            "resources": [list(r) for r in self.resources],
            "supply": list(self.supply),
            "flowers_left": list(self.flowers_left),
            "face_up": list(self.face_up),
            "pile_pointer": self.pile_pointer,
            "setup_left": setup_left,
            "phase": self.phase,
            "to_move": self.to_move,
            "turn": self.turn,
            "actions_left": self.actions_left,
            "last_flower": self.last_flower,
            "end": self.end,
        }
