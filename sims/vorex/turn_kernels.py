"""Vorex's turn flow compiled: one decision of a game taken and the game run on to its next decision.

The batched engine's step (:meth:`sims.vorex.rules.VorexEngine.step`) calls
:func:`turn_games` once for the whole batch (so does its random choice); the planner's rollouts call
:func:`step_one` from their own kernel (:mod:`sims.vorex.bot_kernels`). The
functions keep the rules' names (docs/rules/vorex.md §11): :func:`place_tile`,
:func:`bloom`, :func:`draw`, :func:`gain`, :func:`put_flower`,
:func:`resolve_ruins`, :func:`continue_turn`, :func:`finish_setup_turn`,
:func:`end_turn`, :func:`end_of_round`. They read and write the state's arrays
(:data:`Arrays`, the fields of ``VorexState`` of the same names) one game row
``g`` at a time, with the config's tables (:data:`Tables`) and the scratch of
:func:`scratch` (every call may overwrite it).

Event fields: ``log`` holds the step's int16 fields in :data:`LOGGED` order and
``stump`` the int8 one ([B] each, or zero-length with ``logging`` off).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from sims.core.kernels import called, inlined, inner, kernel, kth_set_bit, popcount
from sims.vorex.config import ARID, END_REASONS, HEX_KINDS, LIGHT, POINTS, PRODUCED_COLUMNS, RESOURCES, TILE_HEXES
from sims.vorex.kernels import (B1, B2, B3, B4, B5, EMPTY, FIRST_PRODUCTION, G1, G2, G3, G4, G5, LAST_PRODUCTION,
                                POINT_COLUMNS, RUIN, _group_first, _map_lanes, _scan_lanes, _sort_head, bloom_payment,
                                legal_bloom_row, new_lanes)

SETUP, ACTION, BONUS_EXPAND, BONUS_BLOOM, WEED_BLOOM, WEED_EXPAND = range(6)
CONTINUE = 6  # internal: the decision's effects are over, the turn goes on (never a decision)
WEED = 1
WEED_BLOOMS = 2  # the weed blooms twice a turn (rulebook), whatever rules.actions_per_turn says
KIND_BLOOM, KIND_DRAW, KIND_EXPAND = (HEX_KINDS.index(k) for k in ("bloom", "draw", "expand"))
END_LAST_FLOWER, END_BLOCKED, END_SOLO_WIN, END_WEED_LAST_FLOWER, END_WEED_NO_STUMP = (
    END_REASONS.index(name) for name in ("last_flower", "blocked", "solo_win", "weed_last_flower", "weed_no_stump"))
LIGHT_RESOURCE = RESOURCES.index("light")

# Counters kept during play (the other seat columns are computed at the end).
STATS = ("flowers_placed", "flowers_ruins", "resources_gained", "resources_paid", "tiles_placed", "draws",
         "expands", "blooms", "bonus_draws", "bonus_expands", "bonus_blooms")
(ST_FLOWERS_PLACED, ST_FLOWERS_RUINS, ST_GAINED, ST_PAID, ST_TILES, ST_DRAWS, ST_EXPANDS, ST_BLOOMS,
 ST_BONUS_DRAWS, ST_BONUS_EXPANDS, ST_BONUS_BLOOMS) = range(len(STATS))
# what a step logs of each decision; block and kind are read from the action and the phase at the end
COUNTS = ("stump_points", "reduced", "paid", "light_paid", "gained", "ruins_formed", "ruin_flowers")
LOGGED = ("tile",) + COUNTS + ("points",) + POINT_COLUMNS + PRODUCED_COLUMNS  # the int16 event fields
(L_TILE, L_STUMP_POINTS, L_REDUCED, L_PAID, L_LIGHT_PAID, L_GAINED, L_RUINS_FORMED, L_RUIN_FLOWERS,
 L_POINTS) = range(9)
L_POINT_LINES, L_PRODUCED = 9, 9 + len(POINT_COLUMNS)

# The state's arrays (the fields of VorexState of the same names).
Arrays = namedtuple("Arrays", (
    "done", "end", "to_move", "turn", "tile", "part", "kind", "flower", "group", "stump", "covered", "production",
    "settled", "resources", "supply", "flowers_left", "face_up", "pile", "pile_pointer", "setup_tiles",
    "light_hex", "phase", "actions_left", "extra", "last_flower", "offered", "tiles_on_map", "stats", "green",
    "brown", "place_cache", "cache_valid", "bloom_cache", "bloom_stamp", "scores"))

# The config's tables.
Tables = namedtuple("Tables", (
    "solo", "actions_per_turn", "setup_beetles", "first_bloom", "first_place", "draw_action", "decline_action",
    "neighbours", "cells", "around", "around_touch", "tile_shape", "tile_kind", "tile_beetles", "tile_cost",
    "tile_value", "tile_stumps", "production_lanes", "place_tables"))

# Scratch of one kernel call.
Scratch = namedtuple("Scratch", (
    "hexes", "ruins", "owners", "got", "pay", "lines", "per_tile", "group_size", "group_prod", "lanes", "grid_of",
    "tiles", "blooms"))


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def scratch(a, t):
    """The scratch arrays of :func:`step_one` and the legal-action helpers for the arrays ``a`` and tables ``t``."""
    W = a.tile.shape[1]
    players = a.resources.shape[1]
    return Scratch(np.zeros(max(t.around.shape[2], 6), np.int64), np.zeros(max(t.around.shape[2], 6), np.int64),
                   np.zeros(players, np.int64), np.zeros(4, np.int64), np.zeros(8, np.int64),
                   np.zeros((4, players), np.int64), np.zeros((players, t.tile_value.shape[0]), np.int64),
                   np.zeros(W, np.int64), np.zeros(W, np.bool_), new_lanes(t.place_tables), np.full(1, -1, np.int64),
                   np.zeros(3, np.int64), np.zeros(a.bloom_cache.shape[1], np.bool_))


# --- effects ----------------------------------------------------------------------------------------

@inlined
def gain(g, seat, a, log, logging, got):
    """Rules §1.3, §1.5: ``seat`` takes ``got [4]`` from the supply, each kind capped by what it has; ``got``
    becomes what it took."""
    total = 0
    for r in range(4):
        x = min(got[r], a.supply[g, r])
        got[r] = x
        a.supply[g, r] -= x
        a.resources[g, seat, r] += x
        total += x
    a.stats[g, seat, ST_GAINED] += total
    if logging:
        log[L_GAINED][g] += total


@inlined
def draw(g, bonus, a, log, logging, got):
    """Rules §4.2: the mover gains one resource per own flower on a production stump (``bonus``: §5.3), read from
    the kept production words of its groups (the 4 int16 counts of a word add up without carries)."""
    seat = a.to_move[g]
    words = np.uint64(0)
    for h in range(a.flower.shape[1]):
        if a.flower[g, h] == seat:
            words += a.production[g, h]
    for r in range(4):
        x = np.int64((words >> np.uint64(16 * r)) & np.uint64(0xFFFF))
        got[r] = x - 65536 if x >= 32768 else x
    gain(g, seat, a, log, logging, got)
    if logging:
        for r in range(4):
            log[L_PRODUCED + r][g] += got[r]
    a.stats[g, seat, ST_BONUS_DRAWS if bonus else ST_DRAWS] += 1


@inlined
def _add_points(g, line, seat, x, a, t):
    """``x`` points more on score ``line`` of ``seat`` in ``a.scores[g]`` (the solo weed scores nothing)."""
    if not (t.solo and seat == WEED):
        a.scores[g, line, seat] += x


@inlined
def _tile_flowers(g, h, seat, a, t, found):
    """The flowers of ``seat`` on the tile of hex ``h`` (its cells found from ``h`` through neighbours of the
    same tile; ``found [TILE_HEXES+]`` is scratch)."""
    tl = a.tile[g, h]
    found[0] = h
    m = 1
    i = 0
    while i < m:
        x = found[i]
        for d in range(6):
            n = t.neighbours[x, d]
            if a.tile[g, n] == tl and m < TILE_HEXES:
                new = True
                for k in range(m):
                    if found[k] == n:
                        new = False
                if new:
                    found[m] = n
                    m += 1
        i += 1
    mine = 0
    for k in range(m):
        if a.flower[g, found[k]] == seat:
            mine += 1
    return mine


@inlined
def _score_groups(g, h, seat, a, t):
    """The brown line of objectives B1, B3, B5 in ``a.scores[g]`` as a flower of ``seat`` about to land on ``h``
    joins the groups next to it."""
    rule = a.brown[g]
    neighbours = t.neighbours
    k = 0
    prod_before = 0
    prod_after = FIRST_PRODUCTION <= a.kind[g, h] <= LAST_PRODUCTION
    big_before = 0
    size_after = 1
    for d in range(6):
        if not _group_first(g, h, d, seat, a.flower, a.group, neighbours):
            continue
        label = a.group[g, neighbours[h, d]]
        k += 1
        if rule == B3:
            produces = a.production[g, label] != 0
            prod_before += produces
            prod_after |= produces
        elif rule == B5:
            size = 0
            for x in range(neighbours.shape[0]):
                size += a.group[g, x] == label
            size_after += size
            big_before += size >= 3
    if rule == B3:
        _add_points(g, np.int64(3), np.int64(seat), np.int64(2 * (np.int64(prod_after) - prod_before)), a, t)
    elif rule == B5:
        _add_points(g, np.int64(3), np.int64(seat), np.int64(3 * (np.int64(size_after >= 3) - big_before)), a, t)
    elif t.solo:
        _add_points(g, np.int64(3), np.int64(seat), np.int64(1 - k), a, t)  # the player's +2 is for good
    else:  # groups, +2 for the most: the seats at the highest line hold the +2
        for bonus in (-2, 2):
            most = a.scores[g, 3, 0]
            for x in range(1, a.scores.shape[2]):
                most = max(most, a.scores[g, 3, x])
            for x in range(a.scores.shape[2]):
                if a.scores[g, 3, x] == most:
                    a.scores[g, 3, x] += bonus
            if bonus < 0:
                a.scores[g, 3, seat] += 1 - k


@inlined
def _score_flower(g, h, seat, a, t, s):
    """Rules §8: the score lines ``a.scores[g]`` as a flower of ``seat`` is about to land on hex ``h``: its own
    points, and those of the ruins and flowers next to it (only their counts near ``h`` change)."""
    neighbours = t.neighbours
    kind = a.kind[g, h]
    _add_points(g, np.int64(0), np.int64(seat), np.int64(1), a, t)
    if kind == POINTS:
        _add_points(g, np.int64(1), np.int64(seat), np.int64(t.tile_value[a.tile[g, h], a.part[g, h]]), a, t)
    objective = a.green[g]
    if objective == G1:  # on the edge
        for d in range(6):
            if a.tile[g, neighbours[h, d]] == EMPTY:
                _add_points(g, np.int64(2), np.int64(seat), np.int64(1), a, t)
                break
    elif objective == G3:  # 2 arid neighbours
        arid = 0
        for d in range(6):
            arid += a.kind[g, neighbours[h, d]] == ARID
        if arid >= 2:
            _add_points(g, np.int64(2), np.int64(seat), np.int64(1), a, t)
    elif objective == G4:  # the ruins next to it that had no flower of the seat
        for d in range(6):
            r = neighbours[h, d]
            if r < neighbours.shape[0] and a.tile[g, r] == RUIN:
                had = False
                for e in range(6):
                    if a.flower[g, neighbours[r, e]] == seat:
                        had = True
                if not had:
                    _add_points(g, np.int64(2), np.int64(seat), np.int64(1), a, t)
    elif (objective == G2 or objective == G5) and a.tile[g, h] >= 0:
        mine = _tile_flowers(g, h, seat, a, t, s.pay)
        if objective == G5 and mine == 0:
            _add_points(g, np.int64(2), np.int64(seat), np.int64(1), a, t)
        elif objective == G2 and mine + 1 == t.tile_stumps[a.tile[g, h]]:
            _add_points(g, np.int64(2), np.int64(seat), np.int64(2), a, t)
    rule = a.brown[g]
    if rule == B2:  # next to 2 others' flowers, and the others' flowers next to it
        others = 0
        for d in range(6):
            n = neighbours[h, d]
            f = a.flower[g, n]
            if f < 0 or f == seat:
                continue
            others += 1
            theirs = 0
            for e in range(6):
                x = a.flower[g, neighbours[n, e]]
                theirs += x >= 0 and x != f
            if theirs == 1:
                _add_points(g, np.int64(3), np.int64(f), np.int64(2), a, t)
        if others >= 2:
            _add_points(g, np.int64(3), np.int64(seat), np.int64(2), a, t)
    elif rule == B4:  # touching at most 2 own flowers, and the own flowers next to it
        own = 0
        for d in range(6):
            n = neighbours[h, d]
            if a.flower[g, n] != seat:
                continue
            own += 1
            mine = 0
            for e in range(6):
                mine += a.flower[g, neighbours[n, e]] == seat
            if mine == 2:
                _add_points(g, np.int64(3), np.int64(seat), np.int64(-1), a, t)
        if own <= 2:
            _add_points(g, np.int64(3), np.int64(seat), np.int64(1), a, t)
    else:
        _score_groups(g, h, seat, a, t)


@inlined
def _new_hex(n, shape, p, ruins, count, t):
    """Hex ``n`` is a cell of placement ``p`` of ``shape`` (1), one of the ``ruins[:count]`` it formed (2), or
    neither (0)."""
    for c in range(t.cells.shape[2]):
        if t.cells[shape, p, c] == n:
            return 1
    for k in range(count):
        if ruins[k] == n:
            return 2
    return 0


@inlined
def _score_tile(g, shape, p, ruins, count, a, t):
    """Rules §8: the green line in ``a.scores[g]`` after the cells of placement ``p`` (``shape``) and the ruins
    ``ruins[:count]`` it formed are written: flowers next to the new hexes lose their last empty neighbour (G1)
    or reach 2 arid neighbours (G3); each new ruin scores for the seats with a flower next to it (G4). A flower
    next to several new hexes counts at the first of them among its neighbours."""
    objective = a.green[g]
    neighbours = t.neighbours
    cells = t.cells.shape[2]
    if objective == G4:
        for k in range(count):
            r = ruins[k]
            for seat in range(a.scores.shape[2]):
                for d in range(6):
                    if a.flower[g, neighbours[r, d]] == seat:
                        _add_points(g, np.int64(2), np.int64(seat), np.int64(1), a, t)
                        break
    elif objective == G1 or objective == G3:
        for j in range(cells + count if objective == G1 else cells):
            c = t.cells[shape, p, j] if j < cells else ruins[j - cells]
            if objective == G3 and a.kind[g, c] != ARID:
                continue
            for d in range(6):
                x = neighbours[c, d]
                seat = a.flower[g, x]
                if seat < 0:
                    continue
                first = -1
                empty = False
                arid = 0
                new_arid = 0
                for e in range(6):
                    n = neighbours[x, e]
                    if objective == G1:
                        empty |= a.tile[g, n] == EMPTY
                        if first < 0 and _new_hex(n, shape, p, ruins, count, t) > 0:
                            first = n
                    elif a.kind[g, n] == ARID:
                        arid += 1
                        if _new_hex(n, shape, p, ruins, count, t) == 1:
                            new_arid += 1
                            if first < 0:
                                first = n
                if first != c:
                    continue
                if objective == G1 and not empty:
                    _add_points(g, np.int64(2), np.int64(seat), np.int64(-1), a, t)
                elif objective == G3 and arid >= 2 and arid - new_arid < 2:
                    _add_points(g, np.int64(2), np.int64(seat), np.int64(1), a, t)


@inlined
def put_flower(g, h, seat, a, t):
    """Rules §1.6, §7.1, §9.3: a flower of ``seat`` on hex ``h``: the groups next to it merge under the smallest
    label (and their production words into the label's); a last flower triggers the end (solo: ends the game)."""
    neighbours = t.neighbours
    a.flower[g, h] = seat
    new = h
    for d in range(6):
        n = neighbours[h, d]
        if a.flower[g, n] == seat and a.group[g, n] < new:
            new = a.group[g, n]
    words = np.uint64(0)
    for d in range(6):  # each neighbouring group once: its production joins, its flowers take the new label
        if _group_first(g, h, d, seat, a.flower, a.group, neighbours):
            old = a.group[g, neighbours[h, d]]
            words += a.production[g, old]
            a.production[g, old] = 0
    for d in range(6):
        n = neighbours[h, d]
        if a.flower[g, n] == seat and a.group[g, n] != new:
            old = a.group[g, n]
            for x in range(a.group.shape[1]):
                if a.group[g, x] == old:
                    a.group[g, x] = new
    a.group[g, h] = new
    k = a.kind[g, h]
    if FIRST_PRODUCTION <= k <= LAST_PRODUCTION:
        words += t.production_lanes[k - FIRST_PRODUCTION]
    a.production[g, new] = words
    a.flowers_left[g, seat] -= 1
    a.stats[g, seat, ST_FLOWERS_PLACED] += 1
    if a.flowers_left[g, seat] == 0:
        a.last_flower[g] = True  # spec question: also in solo (as the reference reads "end triggered")
        if t.solo:
            a.end[g] = END_WEED_LAST_FLOWER if seat == WEED else END_SOLO_WIN
            a.done[g] = True


@inlined
def resolve_ruins(g, hexes, count, a, t, log, logging, s):
    """Rules §6.1: settle the complete unsettled ruins among ``hexes[:count]`` (distinct) in ascending hex order; a
    unique majority of the flowers around one places a flower there. ``hexes`` is overwritten.

    A ruin is complete once every neighbour is arid or holds a flower; its
    neighbours are tile hexes (never ruins), so it completes only when it forms
    or when a flower lands next to it: the callers pass those hexes.
    """
    if a.done[g]:
        return
    neighbours_ext = t.place_tables[1]
    m = 0
    for k in range(count):
        h = hexes[k]
        if a.tile[g, h] != RUIN or a.settled[g, h]:
            continue
        complete = True
        for d in range(6):
            n = neighbours_ext[h, d]
            if a.kind[g, n] != ARID and a.flower[g, n] < 0:
                complete = False
        if complete:
            hexes[m] = h
            m += 1
    _sort_head(hexes, np.int64(m))
    owners = s.owners
    for k in range(m):
        if a.done[g]:  # a solo end is immediate: the ruins after the one that ended the game stay unsettled
            break
        h = hexes[k]
        owners[:] = 0
        for d in range(6):
            f = a.flower[g, neighbours_ext[h, d]]
            if f >= 0:
                owners[f] += 1
        winner = 0
        for seat in range(owners.size):
            if owners[seat] > owners[winner]:
                winner = seat
        unique = True
        for seat in range(owners.size):
            if seat != winner and owners[seat] == owners[winner]:
                unique = False
        a.settled[g, h] = True
        if unique and owners[winner] > 0 and a.flowers_left[g, winner] > 0:
            a.stats[g, winner, ST_FLOWERS_RUINS] += 1
            if logging:
                log[L_RUIN_FLOWERS][g] += 1
                _score_flower(g, h, np.int64(winner), a, t, s)
            put_flower(g, h, np.int64(winner), a, t)


@inlined
def _flower_beside(g, h, seat, a, t, log, logging, s):
    """A flower of ``seat`` on ``h``, then the ruins next to it settle (``logging``: the scores kept)."""
    if logging:
        _score_flower(g, h, np.int64(seat), a, t, s)
    put_flower(g, h, np.int64(seat), a, t)
    for d in range(6):
        s.hexes[d] = t.neighbours[h, d]
    resolve_ruins(g, s.hexes, np.int64(6), a, t, log, logging, s)


@inlined
def place_tile(g, slot, p, a, t, log, logging, s):
    """Rules §2.5, §3, §4.3: the mover lays the tile of ``slot`` (setup or face-up) at placement ``p`` (anchor * 6
    + rotation); enclosed single hexes become ruins; beetles are gained and the slot refilled."""
    phase = a.phase[g]
    seat = a.to_move[g]
    setup = phase == SETUP
    tl = a.setup_tiles[g, seat, min(slot, 2)] if setup else a.face_up[g, min(slot, 1)]
    shape = t.tile_shape[tl]
    neighbours_ext = t.place_tables[1]
    ruins = s.ruins
    count = 0
    for j in range(t.around.shape[2]):  # enclosed: empty, its empty neighbours exactly the tile's cells next to it
        x = t.around[shape, p, j]
        if a.tile[g, x] != EMPTY:
            continue
        covered = 0
        for d in range(6):
            if a.tile[g, neighbours_ext[x, d]] != EMPTY:
                covered += 1
        if 6 - covered == t.around_touch[shape, p, j]:
            ruins[count] = x
            count += 1
    for c in range(t.cells.shape[2]):
        h = t.cells[shape, p, c]
        a.tile[g, h] = tl
        a.part[g, h] = c
        a.kind[g, h] = t.tile_kind[tl, c]
        a.stump[g, h] = tl * TILE_HEXES + c if t.tile_kind[tl, c] > ARID else -1
        a.covered[g, h >> 6] |= np.uint64(1) << np.uint64(h & 63)
    for k in range(count):
        h = ruins[k]
        a.tile[g, h] = RUIN
        a.covered[g, h >> 6] |= np.uint64(1) << np.uint64(h & 63)
    s.grid_of[0] = -1
    a.tiles_on_map[g] += 1
    a.cache_valid[g, :] = False
    a.stats[g, seat, ST_TILES] += 1
    if logging:
        log[L_TILE][g] = tl
        log[L_RUINS_FORMED][g] = count
        _score_tile(g, shape, p, ruins, np.int64(count), a, t)
    got = s.got
    if setup:
        a.setup_tiles[g, seat, slot] = -1
        if slot == 0:
            light = 0
            for c in range(t.cells.shape[2] - 1, -1, -1):
                if t.tile_kind[tl, c] == LIGHT:
                    light = c
            a.light_hex[g, seat] = t.cells[shape, p, light]
        if t.setup_beetles:
            for r in range(4):
                got[r] = t.tile_beetles[tl, r]
            gain(g, seat, a, log, logging, got)
    else:
        if phase != WEED_EXPAND:
            for r in range(4):
                got[r] = t.tile_beetles[tl, r]
            gain(g, seat, a, log, logging, got)
        pointer = a.pile_pointer[g]
        if pointer < a.pile.shape[1]:
            a.face_up[g, slot] = a.pile[g, pointer]
            a.pile_pointer[g] += 1
        else:
            a.face_up[g, slot] = -1
        if phase == ACTION:
            a.stats[g, seat, ST_EXPANDS] += 1
        elif phase == BONUS_EXPAND:
            a.stats[g, seat, ST_BONUS_EXPANDS] += 1
    resolve_ruins(g, ruins, np.int64(count), a, t, log, logging, s)
    if not setup and not a.done[g]:
        a.phase[g] = CONTINUE


@inlined
def bloom(g, h, a, t, log, stump_log, logging, s):
    """Rules §4.4, §5.3, §6.2, §9.2: the mover pays (the weed does not), blooms ``h``, the ruins around settle,
    then the stump's bonus: a draw at once, an expand or bloom decision next."""
    seat = a.to_move[g]
    phase = a.phase[g]
    weed = phase == WEED_BLOOM
    if not weed:
        pay = s.pay
        bloom_payment(g, h, np.int64(seat), a.flower, a.group, a.tile, a.part, a.resources, a.production, t.tile_cost,
                      t.neighbours, pay)
        total = 0
        for r in range(4):
            a.resources[g, seat, r] -= pay[r]
            a.supply[g, r] += pay[r]
            total += pay[r]
        a.stats[g, seat, ST_PAID] += total
        if logging:
            reduced = 0
            for k in range(3):
                reduced += t.tile_cost[a.tile[g, h], a.part[g, h], k] - pay[5 + k]
            log[L_REDUCED][g] = reduced
            log[L_PAID][g] = total
            log[L_LIGHT_PAID][g] = pay[0]
    kind = a.kind[g, h]
    if logging:
        log[L_TILE][g] = a.tile[g, h]
        stump_log[g] = kind
        log[L_STUMP_POINTS][g] = t.tile_value[a.tile[g, h], a.part[g, h]] if kind == POINTS else 0
    if phase == ACTION:
        a.stats[g, seat, ST_BLOOMS] += 1
    elif phase == BONUS_BLOOM:  # spec question: the weed's extra blooms (and expands) are weed decisions
        a.stats[g, seat, ST_BONUS_BLOOMS] += 1
    _flower_beside(g, h, seat, a, t, log, logging, s)
    if a.done[g]:
        return
    a.phase[g] = CONTINUE
    a.extra[g] = False
    if not weed:
        if kind == KIND_DRAW:
            draw(g, np.bool_(True), a, log, logging, s.got)
        elif kind == KIND_EXPAND:
            a.phase[g] = BONUS_EXPAND
        elif kind == KIND_BLOOM:
            a.phase[g] = BONUS_BLOOM
    elif kind == KIND_EXPAND:
        a.phase[g] = WEED_EXPAND
    elif kind == KIND_BLOOM:
        a.phase[g] = WEED_BLOOM
        a.extra[g] = True


# --- legal actions --------------------------------------------------------------------------------------

@inner
def _ready_grid(g, a, t, s):
    """The lane bitboards of game ``g``'s map in the scratch (kept until a tile lands)."""
    if s.grid_of[0] != g:
        _map_lanes(g, a.tile, t.place_tables, s.lanes)
        s.grid_of[0] = g


@inner
def place_exists(g, tl, a, t, s):
    """Tile ``tl`` has a legal placement in game ``g``: its shape's legal placements (:func:`place_words`, kept for
    the decision that follows, which reads them all, and the other face-up tile's too: scanned now, on the map's
    bitboards at hand)."""
    shape = t.tile_shape[tl]
    place_words(g, shape, a, t, s)
    if a.phase[g] != SETUP:
        for k in range(2):
            if a.face_up[g, k] >= 0:
                place_words(g, t.tile_shape[a.face_up[g, k]], a, t, s)
    for w in range(a.place_cache.shape[2]):
        if a.place_cache[g, shape, w]:
            return True
    return False


@inner
def place_words(g, shape, a, t, s):
    """The legal placements of ``shape`` in game ``g`` into ``a.place_cache[g, shape]`` (bits), kept until the
    next tile lands."""
    if not a.cache_valid[g, shape]:
        _ready_grid(g, a, t, s)
        a.place_cache[g, shape, :] = 0
        _scan_lanes(shape, a.tiles_on_map[g] == 0, s.lanes, t.place_tables, a.place_cache[g, shape])
        a.cache_valid[g, shape] = True


@inner
def blooms(g, stamp, a, t, s):
    """The legal blooms of game ``g`` at a bloom decision (``a.bloom_cache[g]``, kept while ``a.bloom_stamp[g]``
    is ``stamp``); true if there is one."""
    if a.bloom_stamp[g] != stamp:
        legal_bloom_row(g, a.phase[g] == WEED_BLOOM, a.to_move, a.stump, a.flower, a.group, a.tile, a.part,
                        a.resources, a.production, a.flowers_left, t.tile_cost, t.neighbours, a.bloom_cache[g],
                        s.pay)
        a.bloom_stamp[g] = stamp
    for h in range(a.bloom_cache.shape[1]):
        if a.bloom_cache[g, h]:
            return True
    return False


@inner
def slot_tiles(g, a, tiles):
    """``tiles [3]``: the tile of each place slot of game ``g`` at its decision (-1: none)."""
    phase = a.phase[g]
    tiles[:] = -1
    if phase == SETUP:
        for k in range(3):
            tiles[k] = a.setup_tiles[g, a.to_move[g], k]
    elif phase == ACTION or phase == BONUS_EXPAND or phase == WEED_EXPAND:
        tiles[0] = a.face_up[g, 0]
        tiles[1] = a.face_up[g, 1]


# --- turn flow --------------------------------------------------------------------------------------

@inlined
def _draws_light(g, a):
    """The mover's Draw would gain light: the supply has light and the mover's flower is on its starting light
    stump (where its setup flower went); then the game is not :func:`blocked`."""
    seat = a.to_move[g]
    h = a.light_hex[g, seat]
    return a.supply[g, LIGHT_RESOURCE] > 0 and h >= 0 and a.flower[g, h] == seat


@inlined
def draws_something(g, seat, a):
    """Rules §4.2: a Draw would give ``seat`` a resource (a flower on a production stump whose kind is left)."""
    words = np.uint64(0)
    for h in range(a.flower.shape[1]):
        if a.flower[g, h] == seat:
            words += a.production[g, h]
    for r in range(4):
        if (words >> np.uint64(16 * r)) & np.uint64(0xFFFF) and a.supply[g, r] > 0:
            return True
    return False


@called
def blocked(g, stamp, a, t, s):
    """Rules §7.3 (``VorexGame.blocked``): at the mover's ACTION decision, no seat still to play can ever change
    the position: no face-up tile has a placement, and every seat with a turn under way or to come (all, or in
    the final round after a last flower the mover and the seats after it) has no bloom and would draw nothing;
    the weed, no free stump. The mover's blooms are kept for its decision; another seat's go to ``s.blooms``."""
    mover = a.to_move[g]
    if draws_something(g, mover, a) or blooms(g, stamp, a, t, s):
        return False
    for k in range(2):
        if a.face_up[g, k] >= 0 and place_exists(g, a.face_up[g, k], a, t, s):
            return False
    first = mover + 1 if a.last_flower[g] else 0
    found = False
    for seat in range(first, a.resources.shape[1]):
        if seat == mover:
            continue
        weed = t.solo and seat == WEED
        if not weed and draws_something(g, seat, a):
            return False
        a.to_move[g] = seat
        legal_bloom_row(g, weed, a.to_move, a.stump, a.flower, a.group, a.tile, a.part, a.resources, a.production,
                        a.flowers_left, t.tile_cost, t.neighbours, s.blooms, s.pay)
        a.to_move[g] = mover
        for h in range(s.blooms.size):
            found |= s.blooms[h]
        if found:
            return False
    return True


@inlined
def end_of_round(g, setup_round, a):
    """Rules §7.1, §7.2 (2-4 players): a round ends; a last flower placed ends the game, so does a normal round
    (``setup_round`` False) in which no decision offered a bloom or a place."""
    if a.last_flower[g]:
        a.end[g] = END_LAST_FLOWER
        a.done[g] = True
    elif not setup_round and not a.offered[g]:
        a.end[g] = END_BLOCKED
        a.done[g] = True
    a.offered[g] = False


@inlined
def end_turn(g, a, t):
    """Rules §4.1, §9.2: the mover's turn ends and the next seat's starts; at a round's end (2-4 players)
    :func:`end_of_round` checks first.

    Reading: a game ended at the round's end still shows the next turn set up (seat 0, ACTION, actions_left 2),
    as the reference does."""
    if a.done[g]:
        return
    mover = a.to_move[g]
    was_setup = a.phase[g] == SETUP
    a.turn[g] += 1
    setup_next = False
    if t.solo:
        nxt = 0 if was_setup else 1 - mover
    else:
        nxt = (mover + 1) % a.resources.shape[1]
        if nxt == 0:
            end_of_round(g, was_setup, a)
        else:
            setup_next = was_setup
    a.to_move[g] = nxt
    weed = t.solo and nxt == WEED
    if setup_next:
        a.phase[g], a.actions_left[g] = SETUP, 0
    elif weed:
        a.phase[g], a.actions_left[g] = WEED_BLOOM, WEED_BLOOMS
    else:
        a.phase[g], a.actions_left[g] = ACTION, t.actions_per_turn
    a.extra[g] = False


@inner
def finish_setup_turn(g, a, t, log, logging, s):
    """Rules §2.5: set aside setup tiles without a legal placement; a turn with none left ends with the free
    flower on the starting tile's light stump. True if the game runs on (its turn ended)."""
    seat = a.to_move[g]
    pending = False
    for k in range(3):
        tl = a.setup_tiles[g, seat, k]
        if tl >= 0:
            if place_exists(g, tl, a, t, s):
                pending = True
            else:
                a.setup_tiles[g, seat, k] = -1
    if pending:
        return False
    light = a.light_hex[g, seat]
    if light >= 0:
        _flower_beside(g, np.int64(light), seat, a, t, log, logging, s)
    if a.done[g]:
        return False
    end_turn(g, a, t)
    return True


@inlined
def next_action(g, a, t):
    """Rules §4.1: the mover's next action of the turn (ACTION, or the weed's WEED_BLOOM), or the next turn."""
    if a.actions_left[g] > 0:
        a.phase[g] = WEED_BLOOM if t.solo and a.to_move[g] == WEED else ACTION
        a.extra[g] = False
    else:
        end_turn(g, a, t)


@inlined
def continue_turn(g, stamp, a, t, log, logging, s):
    """Rules §4.1, §5.3: run game ``g`` on until it waits on a real decision or is over (``stamp``: the bloom
    cache's stamp of this step): the turn's next action or the next seat's turn here, in the caller, up to an
    ACTION decision of a round that offered one already (most decisions); the rest in :func:`_continue_checks`.
    At an ACTION decision the game ends if it is :func:`blocked` (rules §7.3), looked at only when the mover's
    Draw would gain no light (:func:`_draws_light`), which it nearly always does."""
    while not a.done[g]:
        phase = a.phase[g]
        if phase == CONTINUE:
            next_action(g, a, t)
        elif phase == ACTION and a.offered[g]:
            a.bloom_stamp[g] = -1
            if not _draws_light(g, a) and blocked(g, stamp, a, t, s):
                a.end[g], a.done[g] = END_BLOCKED, True
            return
        else:
            _continue_checks(g, stamp, a, t, log, logging, s)
            return


@called
def _continue_checks(g, stamp, a, t, log, logging, s):
    """:func:`continue_turn` from a decision that needs a look at the legal actions (or a setup turn's end); an
    ACTION decision may find the game :func:`blocked`."""
    while not a.done[g]:
        phase = a.phase[g]
        if phase == CONTINUE:
            next_action(g, a, t)
            continue
        if phase == SETUP:
            if finish_setup_turn(g, a, t, log, logging, s):
                continue
            return
        if phase == ACTION or phase == BONUS_BLOOM or phase == WEED_BLOOM:
            a.bloom_stamp[g] = -1
        if phase == ACTION and not a.offered[g]:
            found = blooms(g, stamp, a, t, s)
            for k in range(2):
                if not found and a.face_up[g, k] >= 0:
                    found = place_exists(g, a.face_up[g, k], a, t, s)
            a.offered[g] = found
            if not found and not _draws_light(g, a) and blocked(g, stamp, a, t, s):
                a.end[g], a.done[g] = END_BLOCKED, True
        elif phase == ACTION and not _draws_light(g, a) and blocked(g, stamp, a, t, s):
            a.end[g], a.done[g] = END_BLOCKED, True
        elif phase == BONUS_EXPAND or phase == WEED_EXPAND:
            found = False
            for k in range(2):
                if not found and a.face_up[g, k] >= 0:
                    found = place_exists(g, a.face_up[g, k], a, t, s)
            if not found:
                a.phase[g] = CONTINUE
                continue
        elif phase == BONUS_BLOOM or phase == WEED_BLOOM:
            if not blooms(g, stamp, a, t, s):
                if phase == BONUS_BLOOM:
                    a.phase[g] = CONTINUE
                    continue
                a.done[g] = True
                a.end[g] = END_WEED_NO_STUMP
        return


@inlined
def step_one(g, action, stamp, a, t, log, stump_log, logging, s):
    """Rules §4: running game ``g`` takes ``action``, then goes on to its next decision (:func:`continue_turn`);
    with ``logging`` the decision's event fields, among them the deciding seat's points gained by score line
    (``a.scores[g]``, every seat's lines, kept up to date where the map changes: :func:`_score_tile`,
    :func:`_score_flower`)."""
    seat = a.to_move[g]
    if logging:
        for c in range(4):
            log[L_POINT_LINES + c][g] -= a.scores[g, c, seat]
            log[L_POINTS][g] -= a.scores[g, c, seat]
    phase = a.phase[g]
    if phase == ACTION or (phase == WEED_BLOOM and not a.extra[g]):
        a.actions_left[g] -= 1
    if action < t.first_place:
        bloom(g, action - t.first_bloom, a, t, log, stump_log, logging, s)
    elif action < t.draw_action:
        within = t.cells.shape[1]
        code = action - t.first_place
        place_tile(g, code // within, code % within, a, t, log, logging, s)
    elif action == t.draw_action:
        draw(g, np.bool_(False), a, log, logging, s.got)
        a.phase[g] = CONTINUE
    else:
        a.phase[g] = CONTINUE
    continue_turn(g, stamp, a, t, log, logging, s)
    if logging:
        for c in range(4):
            log[L_POINT_LINES + c][g] += a.scores[g, c, seat]
            log[L_POINTS][g] += a.scores[g, c, seat]


@inner
def legal_row(g, stamp, a, t, s):
    """The legal actions of running game ``g`` by block: the blooms in ``a.bloom_cache[g]`` (a bloom decision)
    and the placements of slot k in ``a.place_cache[g, shape of s.tiles[k]]`` (``s.tiles``: the slots' tiles,
    :func:`slot_tiles`); returns (bloom decision, draw, decline)."""
    phase = a.phase[g]
    slot_tiles(g, a, s.tiles)
    for k in range(3):
        if s.tiles[k] >= 0:
            place_words(g, t.tile_shape[s.tiles[k]], a, t, s)
    bloomer = phase == ACTION or phase == BONUS_BLOOM or phase == WEED_BLOOM
    if bloomer:
        blooms(g, stamp, a, t, s)
    return bloomer, phase == ACTION, phase == BONUS_EXPAND or phase == BONUS_BLOOM


@inner
def choose_one(g, u, stamp, a, t, s):
    """Legal action number ``min(floor(u * n), n - 1)`` (ascending) of the ``n`` legal actions of running game
    ``g`` (``BatchedEngine.choose_uniform``)."""
    bloomer, draw_ok, decline_ok = legal_row(g, stamp, a, t, s)
    words = a.place_cache.shape[2]
    total = np.int64(draw_ok) + np.int64(decline_ok)
    if bloomer:
        for h in range(a.bloom_cache.shape[1]):
            total += a.bloom_cache[g, h]
    for k in range(3):
        if s.tiles[k] >= 0:
            shape = t.tile_shape[s.tiles[k]]
            for w in range(words):
                total += popcount(a.place_cache[g, shape, w])
    k = min(np.int64(u * total), total - 1)
    if bloomer:
        for h in range(a.bloom_cache.shape[1]):
            if a.bloom_cache[g, h]:
                if k == 0:
                    return t.first_bloom + h
                k -= 1
    per_slot = t.cells.shape[1]
    for slot in range(3):
        if s.tiles[slot] < 0:
            continue
        shape = t.tile_shape[s.tiles[slot]]
        for w in range(words):
            count = popcount(a.place_cache[g, shape, w])
            if k < count:
                return t.first_place + slot * per_slot + w * 64 + kth_set_bit(a.place_cache[g, shape, w], k)
            k -= count
    return t.draw_action if draw_ok and k == 0 else t.decline_action


STEP, CONTINUE_ONLY, CHOOSE = range(3)  # what :func:`turn_games` does


@kernel
def turn_games(what, rows, actions, u, stamp, a, t, log, stump_log, logging, chosen):
    """The batched engine's one compiled entry (one compile for the three uses): for each running game
    ``g = rows[i]``, ``what`` STEP: :func:`step_one` with ``actions[g]``; CONTINUE_ONLY: :func:`continue_turn`
    (a new game's setup; ``logging`` off); CHOOSE: ``chosen[i]``, :func:`choose_one` with ``u[i]``."""
    s = scratch(a, t)
    for i in range(rows.size):
        g = rows[i]
        if what == STEP:
            step_one(g, actions[g], stamp, a, t, log, stump_log, logging, s)
        elif what == CONTINUE_ONLY:
            continue_turn(g, stamp, a, t, log, logging, s)
        else:
            chosen[i] = choose_one(g, u[i], stamp, a, t, s)
