"""Compiled loops over the game axis for the hot pieces of the batched Vorex engine and its bots.

Each kernel replaces the numpy code of one piece (the batched engine stays
one reading of the rules): end-of-game points, the greedy evaluation's
features and the point change of a placement (computed without playing it
where that is quick), bloom payments, and placement and bloom legality. The
greedy choice built on them is in :mod:`sims.vorex.bot_kernels`. Inputs are the state's arrays (C-contiguous, their
fixed dtypes) and the board's tables; ``rows`` picks the games to read.
Hex arrays have ``W = H + 2`` columns: ``H`` is an empty hex outside the
window, ``H + 1`` a covered one.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sims.core.kernels import called, helper, inlined, inner, kernel, lowest_bit_index, popcount
from sims.vorex.config import ARID, HEX_KINDS, POINTS, ROTATIONS, TILE_HEXES

EMPTY, RUIN = -1, -2
FIRST_PRODUCTION, LAST_PRODUCTION = HEX_KINDS.index("light"), HEX_KINDS.index("insect")
KIND_DRAW = HEX_KINDS.index("draw")
POINT_COLUMNS = ("points_flowers", "points_stumps", "points_green", "points_brown")
# the features of the greedy evaluation, in WEIGHT_NAMES order
SCORE, FLOWERS, PRODUCTION, RESOURCES, LIGHT_HELD, TILES = range(6)
G1, G2, G3, G4, G5 = range(5)  # green objectives (GREEN order; -1: none)
B1, B2, B3, B4, B5 = range(5)  # brown objectives (BROWN order)


@inner
def _game_points(g, tile, part, kind, flower, group, green, brown, neighbours, tile_value, tile_stumps,
                 solo, out, per_tile, group_size, group_prod):
    """Point columns ``out [4, S]`` of game row ``g``; ``per_tile [S, T]``, ``group_size`` and ``group_prod``
    ``[W]`` are scratch (any contents). Only the game's own green and brown objectives are counted."""
    H = neighbours.shape[0]
    S = out.shape[1]
    objective, rule = green[g], brown[g]
    out[:] = 0
    by_tile = objective == G2 or objective == G5
    by_group = rule == B3 or rule == B5
    if by_tile:
        per_tile[:] = 0
    for h in range(H):  # one pass; a group's label is its smallest hex, met before its other flowers
        if objective == G4 and tile[g, h] == RUIN:  # the ruins with a flower of the seat next to them
            for s in range(S):
                for d in range(6):
                    if flower[g, neighbours[h, d]] == s:
                        out[2, s] += 1
                        break
        seat = flower[g, h]
        if seat < 0:
            continue
        out[0, seat] += 1
        if kind[g, h] == POINTS:
            out[1, seat] += tile_value[tile[g, h], part[g, h]]
        if rule == B1 and group[g, h] == h:  # the groups, counted in the brown column
            out[3, seat] += 1
        if objective == G1:  # the flowers with an empty neighbour
            for d in range(6):
                if tile[g, neighbours[h, d]] == EMPTY:
                    out[2, seat] += 1
                    break
        elif objective == G3:  # the flowers with 2 arid neighbours at least
            arid = 0
            for d in range(6):
                if kind[g, neighbours[h, d]] == ARID:
                    arid += 1
            if arid >= 2:
                out[2, seat] += 1
        elif by_tile and tile[g, h] >= 0:
            per_tile[seat, tile[g, h]] += 1
        if rule == B2 or rule == B4:
            own = 0
            others = 0
            for d in range(6):
                f = flower[g, neighbours[h, d]]
                if f == seat:
                    own += 1
                elif f >= 0:
                    others += 1
            if rule == B2 and others >= 2:
                out[3, seat] += 2
            if rule == B4 and own <= 2:
                out[3, seat] += 1
        elif by_group:
            label = group[g, h]
            if label == h:
                group_size[h] = 0
                group_prod[h] = False
            group_size[label] += 1
            if FIRST_PRODUCTION <= kind[g, h] <= LAST_PRODUCTION:
                group_prod[label] = True
    if by_tile:  # the seat's flowers by tile: whole tiles, or tiles reached
        for s in range(S):
            for t in range(per_tile.shape[1]):
                if per_tile[s, t] > 0:
                    if objective == G5:
                        out[2, s] += 1
                    elif per_tile[s, t] == tile_stumps[t]:
                        out[2, s] += 2
    if by_group:  # groups with a production flower, groups of 3 flowers or more
        for h in range(H):
            seat = flower[g, h]
            if seat >= 0 and group[g, h] == h:
                if rule == B3 and group_prod[h]:
                    out[3, seat] += 2
                if rule == B5 and group_size[h] >= 3:
                    out[3, seat] += 3
    elif rule == B1:  # 2 more for the most groups (solo: the player)
        most = out[3, 0]
        for s in range(1, S):
            most = max(most, out[3, s])
        for s in range(S):
            if (s == 0) if solo else out[3, s] == most:
                out[3, s] += 2
    if solo:
        for c in range(4):
            out[c, 1] = 0  # the weed scores nothing


@kernel
def points(rows, tile, part, kind, flower, group, green, brown, neighbours, tile_value, tile_stumps, players,
           solo):
    """int64 ``[n, 4, S]``: the point columns (:data:`POINT_COLUMNS`) of games ``rows``."""
    W = tile.shape[1]
    out = np.zeros((rows.size, 4, players), np.int64)
    per_tile = np.zeros((players, tile_value.shape[0]), np.int64)
    group_size = np.zeros(W, np.int64)
    group_prod = np.zeros(W, np.bool_)
    for i in range(rows.size):
        _game_points(rows[i], tile, part, kind, flower, group, green, brown, neighbours, tile_value, tile_stumps,
                     solo, out[i], per_tile, group_size, group_prod)
    return out


@inner
def _seat_features(g, seat, tile, part, kind, flower, group, green, brown, resources, tiles_on_map, neighbours,
                   tile_value, tile_stumps, solo, found, columns, per_tile, group_size, group_prod):
    """``found [6]``: the greedy evaluation's features of game row ``g`` for ``seat``; the rest is scratch."""
    _game_points(g, tile, part, kind, flower, group, green, brown, neighbours, tile_value, tile_stumps,
                 solo, columns, per_tile, group_size, group_prod)
    scorer = 0 if solo and seat == 1 else seat  # the weed's score is minus the player's points
    score = columns[0, scorer] + columns[1, scorer] + columns[2, scorer] + columns[3, scorer]
    found[SCORE] = -score if scorer != seat else score
    mine = 0
    production = 0
    for h in range(neighbours.shape[0]):
        if flower[g, h] == seat:
            mine += 1
            if FIRST_PRODUCTION <= kind[g, h] <= LAST_PRODUCTION:
                production += 1
    found[FLOWERS] = mine
    found[PRODUCTION] = production
    held = 0
    for r in range(4):
        held += resources[g, seat, r]
    found[RESOURCES] = held
    found[LIGHT_HELD] = resources[g, seat, 0]
    found[TILES] = tiles_on_map[g]


@kernel
def seat_features(rows, seats, tile, part, kind, flower, group, green, brown, resources, tiles_on_map,
                  neighbours, tile_value, tile_stumps, solo):
    """int64 ``[n, 6]``: the greedy evaluation's features (score, flowers, production, resources, light, tiles)
    of games ``rows`` for ``seats`` (solo: the weed's score is minus the player's points)."""
    players = resources.shape[1]
    found = np.zeros((rows.size, 6), np.int64)
    columns = np.zeros((4, players), np.int64)
    per_tile = np.zeros((players, tile_value.shape[0]), np.int64)
    group_size = np.zeros(tile.shape[1], np.int64)
    group_prod = np.zeros(tile.shape[1], np.bool_)
    for i in range(rows.size):
        _seat_features(rows[i], seats[i], tile, part, kind, flower, group, green, brown, resources, tiles_on_map,
                       neighbours, tile_value, tile_stumps, solo, found[i], columns, per_tile, group_size,
                       group_prod)
    return found


@inner
def _neighbour_counts(g, tile, kind, neighbours_ext, open_nb, arid_nb):
    """The empty and the arid neighbours of every hex of game row ``g``."""
    for h in range(open_nb.size):
        empty = 0
        arid = 0
        for d in range(6):
            n = neighbours_ext[h, d]
            if tile[g, n] == EMPTY:
                empty += 1
            if kind[g, n] == ARID:
                arid += 1
        open_nb[h] = empty
        arid_nb[h] = arid


@inlined
def _cell_index(h, s, p, cells):
    """Which cell of placement ``p`` of shape ``s`` hex ``h`` is (-1: none)."""
    for c in range(cells.shape[2]):
        if cells[s, p, c] == h:
            return c
    return -1


@inlined
def _ruin_takes_flower(g, h, s, p, t, tile_kind, kind, flower, flowers_left, cells, neighbours_ext, owners):
    """Ruin ``h`` formed by placement ``p`` of tile ``t`` (shape ``s``) is complete (every neighbour arid or with a
    flower) and a unique majority of the flowers around it has a flower left for it."""
    owners[:] = 0
    for d in range(6):
        n = neighbours_ext[h, d]
        c = _cell_index(n, s, p, cells)
        if c >= 0:
            if tile_kind[t, c] != ARID:
                return False
        elif flower[g, n] >= 0:
            owners[flower[g, n]] += 1
        elif kind[g, n] != ARID:
            return False
    winner = 0
    for seat in range(owners.size):
        if owners[seat] > owners[winner]:
            winner = seat
    for seat in range(owners.size):
        if seat != winner and owners[seat] == owners[winner]:
            return False
    return owners[winner] > 0 and flowers_left[g, winner] > 0


@inlined
def _formed_ruins(g, s, p, tile, open_nb, around, around_touch, out):
    """How many empty hexes placement ``p`` (shape ``s``) would ruin in game row ``g``, written to ``out``:
    those whose last empty neighbours the tile takes."""
    count = 0
    for j in range(around.shape[2]):
        h = around[s, p, j]
        if tile[g, h] == EMPTY and open_nb[h] == around_touch[s, p, j]:
            out[count] = h
            count += 1
    return count


@inlined
def _placement_change(g, s, p, t, scorer, kind, flower, green, flowers_left, open_nb, arid_nb, tile_kind, cells,
                      around, around_touch, around_cell_bits, arid_cells, neighbours_ext, formed, count, seen, owners):
    """(needs playing, the scorer's point change) of placement ``p`` of tile ``t`` (shape ``s``) in game row ``g``,
    from the counts of empty and arid neighbours before it and the ruins it forms (``formed[:count]``,
    :func:`_formed_ruins`): see :func:`greedy_choice`. ``seen`` (``[W]``, all False on entry and on return) and
    ``owners`` are scratch."""
    for k in range(count):
        if _ruin_takes_flower(g, formed[k], s, p, t, tile_kind, kind, flower, flowers_left, cells, neighbours_ext,
                              owners):
            return True, 0
    objective = green[g]
    delta = 0
    if objective == G1 and count == 0:  # the scorer's flowers whose empty neighbours are all the tile's cells
        for j in range(around.shape[2]):
            x = around[s, p, j]
            if flower[g, x] == scorer and open_nb[x] > 0 and open_nb[x] == around_touch[s, p, j]:
                delta -= 1
    elif objective == G1:  # the scorer's flowers next to the tile or a new ruin that lose their last empty neighbour
        for k in range(around.shape[2] + 6 * count):
            x = around[s, p, k] if k < around.shape[2] else neighbours_ext[formed[(k - around.shape[2]) // 6], k % 6]
            if seen[x] or flower[g, x] != scorer:
                continue
            seen[x] = True
            closed = 0
            for d in range(6):
                n = neighbours_ext[x, d]
                if _cell_index(n, s, p, cells) >= 0:
                    closed += 1
                else:
                    for r in range(count):
                        if formed[r] == n:
                            closed += 1
            if open_nb[x] > 0 and open_nb[x] == closed:
                delta -= 1
        for k in range(around.shape[2] + 6 * count):
            x = around[s, p, k] if k < around.shape[2] else neighbours_ext[formed[(k - around.shape[2]) // 6], k % 6]
            seen[x] = False
    elif objective == G3:  # the scorer's flowers next to the tile reaching 2 arid neighbours
        for j in range(around.shape[2]):
            h = around[s, p, j]
            arid = arid_nb[h]
            if flower[g, h] != scorer or arid >= 2:
                continue
            arid += popcount(around_cell_bits[s, p % around_cell_bits.shape[1], j] & arid_cells)
            if arid >= 2:
                delta += 1
    elif objective == G4:  # the new ruins next to a flower of the scorer
        for k in range(count):
            for d in range(6):
                if flower[g, neighbours_ext[formed[k], d]] == scorer:
                    delta += 1
                    break
    return False, delta


@inlined
def _sort_head(values, count):
    """``values[:count]`` sorted ascending in place."""
    for k in range(1, count):
        x = values[k]
        j = k - 1
        while j >= 0 and values[j] > x:
            values[j + 1] = values[j]
            j -= 1
        values[j + 1] = x


@inner
def _put_flower(h, seat, flower, group, neighbours):
    """A flower of ``seat`` on hex ``h`` of a one-game map (row 0): the groups next to it merge under the smallest
    label (the group's smallest hex)."""
    flower[0, h] = seat
    new = h
    for d in range(6):
        n = neighbours[h, d]
        if flower[0, n] == seat and group[0, n] < new:
            new = group[0, n]
    for d in range(6):
        n = neighbours[h, d]
        if flower[0, n] == seat:
            old = group[0, n]
            if old != new:
                for x in range(neighbours.shape[0]):
                    if group[0, x] == old:
                        group[0, x] = new
    group[0, h] = new


@inner
def _settle_ruins(ruins, count, flower, group, kind, settled, flowers_left, neighbours, solo, owners):
    """The complete unsettled ruins among ``ruins[:count]`` (hexes of a one-game map, ascending) settle: each takes
    a flower of the unique majority of the flowers around it (if that seat has one left); a solo game ends at a
    last flower (``owners [P]`` is scratch)."""
    players = flowers_left.size
    for k in range(count):
        h = ruins[k]
        if settled[0, h]:
            continue
        complete = True
        owners[:] = 0
        for d in range(6):
            n = neighbours[h, d]
            if flower[0, n] >= 0:
                owners[flower[0, n]] += 1
            elif kind[0, n] != ARID:
                complete = False
        if not complete:
            continue
        settled[0, h] = True
        winner = 0
        for s in range(players):
            if owners[s] > owners[winner]:
                winner = s
        ties = 0
        for s in range(players):
            if owners[s] == owners[winner]:
                ties += 1
        if ties == 1 and owners[winner] > 0 and flowers_left[winner] > 0:
            _put_flower(h, np.int64(winner), flower, group, neighbours)
            flowers_left[winner] -= 1
            if solo and flowers_left[winner] == 0:
                return


@helper
def _setup_goes_on(g, mover, slot, setup_tiles, tile_shape, covered, count, place_tables, base, grid, saved, row):
    """Another setup tile of ``mover`` (not slot ``slot``) has a legal placement once hexes ``covered[:count]``
    are covered too. ``base``: the ``free`` and ``edge`` bitboards of the map before (:func:`_open_hexes`);
    ``grid``: its grid hex states and scratch bitboards, the states changed here and restored (``saved`` holds
    the changed positions' old states)."""
    others = 0
    for k in range(setup_tiles.shape[2]):
        if k != slot and setup_tiles[g, mover, k] >= 0:
            others += 1
    if others == 0:
        return False
    playable, neighbours_ext, hex_grid = place_tables[0], place_tables[1], place_tables[7]
    window = neighbours_ext.shape[0] - 2  # the sentinels are not on the grid
    positions, free, edge = grid
    for w in range(free.size):
        free[w] = base[0][w]
        edge[w] = base[1][w]
    m = 0
    for k in range(count):
        h = covered[k]
        x = hex_grid[h]
        saved[m], saved[m + 1] = x, positions[x]
        m += 2
        positions[x] = COVERED
        bit = np.uint64(1) << np.uint64(x & 63)
        free[x >> 6] &= ~bit
        edge[x >> 6] &= ~bit
        for d in range(6):
            n = neighbours_ext[h, d]
            y = hex_grid[n]
            if n < window and positions[y] != COVERED:
                saved[m], saved[m + 1] = y, positions[y]
                m += 2
                positions[y] += 1
                if n < playable:
                    edge[y >> 6] |= np.uint64(1) << np.uint64(y & 63)
    found = False
    for k in range(setup_tiles.shape[2]):
        other = setup_tiles[g, mover, k]
        if k != slot and other >= 0 and _scan_placements(tile_shape[other], np.bool_(False), np.bool_(True), positions,
                                                          free, edge, place_tables, row):
            found = True
            break
    while m > 0:
        m -= 2
        positions[saved[m]] = saved[m + 1]
    return found


@inner
def _flower_and_ruins(h, seat, one, neighbours, solo, ruins, owners):
    """A flower of ``seat`` on hex ``h`` of the one-game copy ``one``; unless that ends a solo game the complete
    ruins next to it settle (ascending; ``ruins`` and ``owners [P]`` are scratch). True if the game goes on."""
    tile1, part1, kind1, flower1, group1, green1, brown1, resources1, tiles1, left1, settled1 = one
    _put_flower(np.int64(h), np.int64(seat), flower1, group1, neighbours)
    left1[seat] -= 1
    if solo and left1[seat] == 0:
        return False
    count = 0
    for d in range(6):
        n = neighbours[h, d]
        if tile1[0, n] == RUIN:
            ruins[count] = n
            count += 1
    if count > 1:
        _sort_head(ruins, np.int64(count))
    _settle_ruins(ruins, np.int64(count), flower1, group1, kind1, settled1, left1, neighbours, solo, owners)
    return not (solo and (left1[0] == 0 or left1[1] == 0))


@inlined
def _group_first(g, h, d, seat, flower, group, neighbours):
    """Neighbour ``d`` of hex ``h`` in game row ``g`` holds a flower of ``seat``, the first of its group among the
    neighbours of ``h``."""
    n = neighbours[h, d]
    if flower[g, n] != seat:
        return False
    for e in range(d):
        m = neighbours[h, e]
        if flower[g, m] == seat and group[g, m] == group[g, n]:
            return False
    return True


@called
def bloom_payment(g, h, mover, flower, group, tile, part, resources, production, tile_cost, neighbours, pay):
    """``pay [8+]``: in ``pay[:4]`` (light, mushroom, water, insect) what blooming stump ``h`` of game row ``g``
    costs ``mover``: the cost less the production of the mover's groups next to it, each group once (its light
    production first covers what the resources held do not, then the rest), paid in kind, the shortfall in light.
    ``pay[4:8]`` is scratch."""
    pay[:8] = 0
    for d in range(6):
        if _group_first(g, h, d, mover, flower, group, neighbours):
            word = production[g, group[g, neighbours[h, d]]]
            for r in range(4):
                pay[4 + r] += np.int64((word >> np.uint64(16 * r)) & np.uint64(0xFFFF))
    wild = pay[4]
    for k in range(3):  # need[k] in pay[5 + k]
        pay[5 + k] = max(tile_cost[tile[g, h], part[g, h], k] - pay[5 + k], 0)
    for k in range(3):
        x = min(wild, max(pay[5 + k] - resources[g, mover, k + 1], 0))
        pay[5 + k] -= x
        wild -= x
    for k in range(3):
        x = min(wild, pay[5 + k])
        pay[5 + k] -= x
        wild -= x
    for k in range(3):
        held = resources[g, mover, k + 1]
        pay[0] += max(pay[5 + k] - held, 0)
        pay[1 + k] = min(pay[5 + k], held)


COVERED = 7  # hex state of a covered hex (an empty one: its covered neighbours, 0 to 6)


@helper
def _hex_states(g, tile, neighbours_ext, states):
    """``states[h]``: COVERED, or the covered neighbours of empty hex ``h`` of game row ``g``."""
    for h in range(states.size):
        if tile[g, h] != EMPTY:
            states[h] = COVERED
            continue
        c = 0
        for d in range(6):
            if tile[g, neighbours_ext[h, d]] != EMPTY:
                c += 1
        states[h] = c


@helper
def _closes_one_region(states, anchor, shifts, touch):
    """The boundary walk of a free placement meeting the forest (grid positions ``anchor + shifts[j]``, and
    ``touch``: the tile cells next to each step): the gaps (runs of empty hexes along the walk) become separate
    empty regions, all closed but one; true iff at most one gap holds a "bad" hex, empty and not becoming a single
    enclosed hex (its covered neighbours and the tile's cells next to it are not all 6). ``states``: the grid
    hex states (:func:`_open_hexes`). The walk meets a covered hex.

    One lap: a gap is counted when its first bad hex is met; the gap the walk
    starts in and the one it ends in are the same when both ends are empty,
    counted twice if both its stretches hold a bad hex."""
    seen = 0  # the current gap holds a bad hex
    met = 0  # the walk has met a covered hex
    head = 0  # the stretch before the first covered hex holds a bad hex
    bad_gaps = 0
    for j in range(shifts.size):  # branch-free: this loop is the hot one
        state = states[anchor + shifts[j]]
        covered = np.int64(state == COVERED)
        bad = np.int64(state != 6 - touch[j]) & (1 - covered)
        met |= covered
        seen &= 1 - covered
        new = bad & (1 - seen)
        bad_gaps += new
        head |= new & (1 - met)
        seen |= new
    return bad_gaps - (head & seen) <= 1


@helper
def _open_hexes(states, place_tables, grid, free, edge):
    """The hex ``states`` (:func:`_hex_states`) on the grid (``hex_grid``): ``grid`` (positions outside the window
    stay 0, an empty hex), and as bitboards (bit x % 64 of word x // 64 for position x) ``free``, the empty
    playable hexes, and ``edge``, those with a covered neighbour."""
    playable, hex_grid = place_tables[0], place_tables[7]
    free[:] = 0
    edge[:] = 0
    for h in range(hex_grid.size - 2):
        x = hex_grid[h]
        grid[x] = states[h]
        if h < playable and states[h] != COVERED:
            bit = np.uint64(1) << np.uint64(x & 63)
            free[x >> 6] |= bit
            if states[h] > 0:
                edge[x >> 6] |= bit


@njit(cache=True, inline="always")
def _read_at(board, w, shift):
    """Word ``w`` of a grid bitboard read ``shift`` positions on: its bit j is bit ``w * 64 + j + shift`` of
    ``board`` (0 off the board)."""
    start = w * 64 + shift
    q = start >> 6
    r = np.uint64(start & 63)
    low = board[q] if 0 <= q < board.size else np.uint64(0)
    if r == 0:
        return low
    high = board[q + 1] if 0 <= q + 1 < board.size else np.uint64(0)
    return (low >> r) | (high << (np.uint64(64) - r))


@helper
def _edge_words(edge, first):
    """The first and last nonzero words of bitboard ``edge`` (all words if ``first``: no tile is down yet)."""
    if first:
        return 0, edge.size - 1
    low, high = edge.size, -1
    for w in range(edge.size):
        if edge[w]:
            low = min(low, w)
            high = w
    return low, high


@helper
def _scan_placements(s, first, first_only, grid, free, edge, place_tables, row):
    """Sets in ``row`` (bit p % 64 of word p // 64) the legal placements p of shape ``s`` on a map given by its
    grid hex states and bitboards ``grid``, ``free``, ``edge`` (:func:`_open_hexes`; ``first``: no tile is down
    yet); true if there is one. ``first_only``: stops at the first.

    Per rotation, the anchors whose 4 cells are free and touch the forest come
    64 grid positions at a time (each cell is a fixed shift of the anchor's
    position); only those walk their boundary."""
    boundary_touch, covers_centre, grid_hex = place_tables[4], place_tables[5], place_tables[6]
    cell_shift, boundary_shift = place_tables[8], place_tables[9]
    found = False
    low, high = _edge_words(edge, first)
    for k in range(ROTATIONS):
        near, far = cell_shift[s, k, 0], cell_shift[s, k, 0]
        for c in range(1, TILE_HEXES):
            near, far = min(near, cell_shift[s, k, c]), max(far, cell_shift[s, k, c])
        # the anchors whose cells can meet an edge hex lie in these words
        start = max(0, (low * 64 - far) >> 6)
        stop = min(free.size, ((high * 64 + 63 - near) >> 6) + 1)
        for w in range(start, stop):
            fit = np.uint64(0xFFFFFFFFFFFFFFFF)
            touch = np.uint64(0)
            for c in range(TILE_HEXES):
                fit &= _read_at(free, w, cell_shift[s, k, c])
                if not first:
                    touch |= _read_at(edge, w, cell_shift[s, k, c])
            if not first:
                fit &= touch
            while fit:
                x = w * 64 + lowest_bit_index(fit)
                fit &= fit - np.uint64(1)
                p = grid_hex[x] * ROTATIONS + k
                if first:
                    ok = covers_centre[s, p]
                else:
                    ok = _closes_one_region(grid, x, boundary_shift[s, k], boundary_touch[s, k])
                if ok:
                    row[p >> 6] |= np.uint64(1) << np.uint64(p & 63)
                    found = True
                    if first_only:
                        return True
    return found


# the lane bitboards of a map (:func:`_map_lanes`): LANE_BLOCKED + t - 1 holds the covered hexes and the empty ones
# with exactly 6 - t covered neighbours (a boundary hex next to t tile cells that the tile would enclose)
LANE_FREE, LANE_EDGE, LANE_COVERED, LANE_BLOCKED = range(4)
# the cell shifts' columns after the cells: the earlier rotation covering the same hexes (-1: none), and the shift
SAME_ROTATION, SAME_SHIFT = TILE_HEXES, TILE_HEXES + 1


@kernel
def new_grid(place_tables):
    """Scratch for :func:`_hex_states` and :func:`_open_hexes`: the hex states, the grid, ``free`` and ``edge``."""
    size = place_tables[6].size
    return (np.zeros(place_tables[1].shape[0], np.int64), np.zeros(size, np.int64),
            np.zeros(-(-size // 64), np.uint64), np.zeros(-(-size // 64), np.uint64))


@kernel
def new_lanes(place_tables):
    """Scratch for :func:`_map_lanes` and :func:`_scan_lanes`: uint64 ``[LANE_BLOCKED + most tile cells next to a
    boundary hex + ROTATIONS, padded words]``, the last ROTATIONS rows the legal anchors of each rotation of a scan."""
    return np.zeros((LANE_BLOCKED + place_tables[4].max() + ROTATIONS, place_tables[10].size), np.uint64)


@njit(cache=True, inline="always")
def _lane_word(lanes, b, i, shift):
    """Padded word ``i`` of lane bitboard ``lanes[b]`` read ``shift`` grid positions on (bit j: position
    ``64 * i + j + shift``, less the padding). Unsigned indices: no check for negative ones."""
    q = np.uint64(i + (shift >> 6))
    r = np.uint64(shift & 63)
    return (lanes[b, q] >> r) | ((lanes[b, q + np.uint64(1)] << np.uint64(1)) << (np.uint64(63) - r))


@helper
def _map_lanes(g, tile, place_tables, lanes):
    """``lanes`` (:func:`new_lanes`): the map of game row ``g`` as padded bitboards on the grid (bit x % 64 of
    word pad + x // 64 for grid position x): its free hexes (empty and playable), those with a covered neighbour,
    the covered hexes, and with them the empty ones by their covered neighbours (LANE_BLOCKED + t - 1: exactly
    6 - t). The neighbours are counted 64 positions at a time, in three bit planes."""
    hex_grid, playable, direction_shift = place_tables[7], place_tables[10], place_tables[11]
    words = -(-place_tables[6].size // 64)
    pad = (playable.size - words) // 2
    lanes[LANE_COVERED, :] = 0
    word, bits = pad, np.uint64(0)  # the playable hexes lie on the grid in order: their bits gathered a word at a time
    for h in range(place_tables[0]):
        x = hex_grid[h]
        if pad + (x >> 6) != word:
            lanes[LANE_COVERED, word] = bits
            word, bits = pad + (x >> 6), np.uint64(0)
        bits |= np.uint64(tile[g, h] != EMPTY) << np.uint64(x & 63)
    lanes[LANE_COVERED, word] |= bits
    for h in range(place_tables[0], hex_grid.size - 2):  # the sentinels are not on the grid
        if tile[g, h] != EMPTY:
            x = hex_grid[h]
            lanes[LANE_COVERED, pad + (x >> 6)] |= np.uint64(1) << np.uint64(x & 63)
    for i in range(pad, pad + words):
        one = np.uint64(0)
        two = np.uint64(0)
        four = np.uint64(0)
        for d in range(6):
            v = _lane_word(lanes, LANE_COVERED, i, direction_shift[d])
            carry = one & v
            one ^= v
            four |= two & carry
            two ^= carry
        covered = lanes[LANE_COVERED, i]
        free = playable[i] & ~covered
        lanes[LANE_FREE, i] = free
        lanes[LANE_EDGE, i] = free & (one | two | four)
        for t in range(1, lanes.shape[0] - LANE_BLOCKED - ROTATIONS + 1):
            n = 6 - t
            lanes[LANE_BLOCKED + t - 1, i] = covered | (~covered & (one if n & 1 else ~one) & (two if n & 2 else ~two)
                                                        & (four if n & 4 else ~four))


@helper
def _scan_lanes(s, first, lanes, place_tables, row):
    """Sets in ``row`` the legal placements of shape ``s`` (as :func:`_scan_placements`) on a map given by its
    lane bitboards (:func:`_map_lanes`; ``first``: no tile is down yet); true if there is one.

    Per rotation, 64 anchors at a time: their 4 cells free, then the
    boundary walk of :func:`_closes_one_region` in every lane at once, on
    one lane: the blocked hexes (covered, or empty and enclosed by the tile,
    LANE_BLOCKED). An enclosed hex's neighbours along the walk are covered,
    so every gap between blocked hexes holds a bad hex: the placement is
    legal iff its walk meets a blocked hex (then it touches the forest) and
    the blocked hexes form one run around it (at most one gap). A rotation
    covering the hexes of an earlier one (a symmetric shape: the cell shifts'
    columns SAME_ROTATION and SAME_SHIFT, :class:`sims.vorex.tables.Board`)
    reads that rotation's legal anchors, kept in the last rows of ``lanes``,
    shifted."""
    boundary_touch, covers_centre, grid_hex = place_tables[4], place_tables[5], place_tables[6]
    cell_shift, boundary_shift = place_tables[8], place_tables[9]
    words = -(-grid_hex.size // 64)
    pad = (lanes.shape[1] - words) // 2
    kept = lanes.shape[0] - ROTATIONS
    low, high = 0, words - 1
    if not first:
        low, high = words, -1
        for w in range(words):
            if lanes[LANE_EDGE, pad + w]:
                low = min(low, w)
                high = w
    none = np.uint64(0)
    for k in range(ROTATIONS):
        c0, c1, c2, c3 = cell_shift[s, k, 0], cell_shift[s, k, 1], cell_shift[s, k, 2], cell_shift[s, k, 3]
        # the anchors whose cells can meet an edge hex lie in these words
        start = max(0, (low * 64 - max(max(c0, c1), max(c2, c3))) >> 6)
        stop = min(words, ((high * 64 + 63 - min(min(c0, c1), min(c2, c3))) >> 6) + 1)
        same = cell_shift[s, k, SAME_ROTATION] if not first else -1
        lanes[kept + k, :] = 0
        for w in range(start, stop):
            i = pad + w
            if same >= 0:
                fit = _lane_word(lanes, kept + same, i, cell_shift[s, k, SAME_SHIFT])
            else:
                fit = (_lane_word(lanes, LANE_FREE, i, c0) & _lane_word(lanes, LANE_FREE, i, c1)
                       & _lane_word(lanes, LANE_FREE, i, c2) & _lane_word(lanes, LANE_FREE, i, c3))
                if fit and not first:
                    # runs of blocked hexes: their starts counted (saturating in two bits), the walk read as a cycle
                    start_hit = _lane_word(lanes, LANE_BLOCKED - 1 + boundary_touch[s, k, 0], i, boundary_shift[s, k, 0])
                    last, met, one, two = start_hit, start_hit, none, none
                    for j in range(1, boundary_shift.shape[2]):
                        hit = _lane_word(lanes, LANE_BLOCKED - 1 + boundary_touch[s, k, j], i, boundary_shift[s, k, j])
                        new = hit & ~last
                        two |= one & new
                        one |= new
                        met |= hit
                        last = hit
                    fit &= met & ~(two | (one & start_hit & ~last))
            if first and fit:
                fit = _first_anchors(fit, w, s, k, grid_hex, covers_centre)
            lanes[kept + k, i] = fit
    # each anchor's legal rotations (6 bits) into the row at once, anchors a word at a time
    last = row.size - 1
    found = False
    one = np.uint64(1)
    for i in range(pad, pad + words):
        f0, f1, f2 = lanes[kept, i], lanes[kept + 1, i], lanes[kept + 2, i]
        f3, f4, f5 = lanes[kept + 3, i], lanes[kept + 4, i], lanes[kept + 5, i]
        anchors = f0 | f1 | f2 | f3 | f4 | f5
        if anchors:
            found = True
        while anchors:
            j = np.uint64(lowest_bit_index(anchors))
            anchors &= anchors - one
            m = (((f0 >> j) & one) | (((f1 >> j) & one) << one) | (((f2 >> j) & one) << np.uint64(2))
                 | (((f3 >> j) & one) << np.uint64(3)) | (((f4 >> j) & one) << np.uint64(4))
                 | (((f5 >> j) & one) << np.uint64(5)))
            p = grid_hex[(i - pad) * 64 + np.int64(j)] * ROTATIONS
            q, r = p >> 6, np.uint64(p & 63)
            row[q] |= m << r
            row[min(q + 1, last)] |= (m >> one) >> (np.uint64(63) - r)
    return found


@njit(cache=True, inline="always")
def _first_anchors(fit, w, s, k, grid_hex, covers_centre):
    """The anchors of ``fit`` (grid word ``w``) whose placement of shape ``s`` in rotation ``k`` covers the centre."""
    kept = np.uint64(0)
    while fit:
        j = lowest_bit_index(fit)
        fit &= fit - np.uint64(1)
        if covers_centre[s, grid_hex[w * 64 + j] * ROTATIONS + k]:
            kept |= np.uint64(1) << np.uint64(j)
    return kept


@kernel
def legal_placements(games, shapes, first_only, tile, tiles_on_map, place_tables, words):
    """uint64 ``[m, words]``: the legal placements of shape ``shapes[i]`` on the map of game ``games[i]``, bit
    p % 64 of word p // 64 for placement p = anchor * 6 + rotation.

    The cells are free (playable and empty) and one touches the forest (the
    first tile covers the centre instead); the boundary walk closes no region
    holding more than a single hex (:func:`_scan_lanes`). ``first_only``: only
    the first one found (to know whether there is one; :func:`_scan_placements`).
    """
    neighbours_ext = place_tables[1]
    legal = np.zeros((games.size, words), np.uint64)
    states, positions, free, edge = new_grid(place_tables)
    lanes = new_lanes(place_tables)
    last = -1
    for i in range(games.size):
        g = games[i]
        first = tiles_on_map[g] == 0
        if first_only:  # the scan that stops at the first
            if g != last:
                _hex_states(g, tile, neighbours_ext, states)
                _open_hexes(states, place_tables, positions, free, edge)
            _scan_placements(shapes[i], first, np.bool_(True), positions, free, edge, place_tables, legal[i])
        else:
            if g != last:
                _map_lanes(g, tile, place_tables, lanes)
            _scan_lanes(shapes[i], first, lanes, place_tables, legal[i])
        last = g
    return legal


@inner
def _light_without_production(tile_cost, c, held1, held2, held3):
    """The light a mover holding ``held1..3`` (mushroom, water, insect) pays for stump ``c`` (tile * TILE_HEXES + part) with
    no production next to it: each kind it lacks, in light. With production, :func:`bloom_payment` asks no more."""
    t, p = c // TILE_HEXES, c % TILE_HEXES
    return (max(np.int64(tile_cost[t, p, 0]) - held1, 0) + max(np.int64(tile_cost[t, p, 1]) - held2, 0)
            + max(np.int64(tile_cost[t, p, 2]) - held3, 0))


@inner
def legal_bloom_row(g, free, to_move, stump, flower, group, tile, part, resources, production, flowers_left,
                    tile_cost, neighbours, legal, pay):
    """Rules §4.4, §5, §9.2: ``legal [P]``: the legal blooms of the mover of game row ``g``: the free stumps, if
    the mover has a flower left and (``free``: a weed bloom, no cost) the light held covers what the payment
    (:func:`bloom_payment`) takes in light. ``pay [8]`` is scratch.

    The free stumps are marked 64 hexes a word, then that word's are priced: the light paid without production
    (:func:`_light_without_production`) is the most any payment takes, and exactly what it takes when none of the
    mover's flowers is next to the stump; only the others work out the payment."""
    seat = to_move[g]
    can = free or flowers_left[g, seat] > 0
    priced = can and not free
    light = np.int64(resources[g, seat, 0])
    held1, held2, held3 = np.int64(resources[g, seat, 1]), np.int64(resources[g, seat, 2]), np.int64(resources[g, seat, 3])
    for w in range(-(-legal.size // 64)):
        bits = np.uint64(0)
        for j in range(min(64, legal.size - w * 64)):
            ok = can & (stump[g, w * 64 + j] >= 0) & (flower[g, w * 64 + j] < 0)
            legal[w * 64 + j] = ok
            bits |= np.uint64(ok) << np.uint64(j)
        if not priced:
            continue
        while bits:
            h = w * 64 + lowest_bit_index(bits)
            bits &= bits - np.uint64(1)
            if light >= _light_without_production(tile_cost, np.int64(stump[g, h]), held1, held2, held3):
                continue
            near = False
            for d in range(6):
                if flower[g, neighbours[h, d]] == seat:
                    near = True
            if near:
                bloom_payment(g, h, np.int64(seat), flower, group, tile, part, resources, production, tile_cost,
                              neighbours, pay)
                near = pay[0] <= light
            legal[h] = near


@kernel
def legal_blooms(rows, free, to_move, stump, flower, group, tile, part, resources, production, flowers_left,
                 tile_cost, neighbours, legal):
    """``legal [n, P]``: :func:`legal_bloom_row` of games ``rows[i]`` (``free[i]``: a weed bloom)."""
    pay = np.zeros(8, dtype=np.int64)
    for i in range(rows.size):
        legal_bloom_row(rows[i], free[i], to_move, stump, flower, group, tile, part, resources, production,
                        flowers_left, tile_cost, neighbours, legal[i], pay)
