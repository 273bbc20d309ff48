"""The Vorex greedy bot's compiled choice: every legal bloom, placement and
draw valued by the greedy's weights, one game at a time over the game axis.

Placements that change no point are valued without playing them (most are
found in one bit test per placement); the others
and every bloom are played on a one-game copy (``_copy_game``) with the
engine's rule kernels of :mod:`sims.vorex.kernels`, then scored by the same
features as :func:`sims.vorex.kernels.seat_features`.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from sims.core.kernels import inlined, inner, kernel, lowest_bit_index, noise, noise_stream, popcount
from sims.vorex.config import ARID, END_REASONS, LIGHT, POINTS
from sims.vorex.kernels import (
    _read_at,
    B2, B3, B4, B5, EMPTY, FIRST_PRODUCTION, FLOWERS, G1, G2, G3, G5, KIND_DRAW, LAST_PRODUCTION, LIGHT_HELD,
    PRODUCTION, RESOURCES, RUIN, SCORE, TILES, _cell_index, _flower_and_ruins, _formed_ruins, _group_first,
    _hex_states, _neighbour_counts, _open_hexes, _placement_change, _seat_features, _settle_ruins, _setup_goes_on,
    _sort_head, _game_points, bloom_payment,
)
from sims.vorex.turn_kernels import ACTION, legal_row, scratch, step_one

END_STALL, END_SOLO_WIN = END_REASONS.index("stall"), END_REASONS.index("solo_win")


@inner
def _copy_game(g, game, one):
    """Game row ``g`` of the map and the resources into the one-game copy ``one``."""
    tile, part, kind, flower, group, green, brown, resources, tiles_on_map, flowers_left, settled = game
    tile1, part1, kind1, flower1, group1, green1, brown1, resources1, tiles1, left1, settled1 = one
    for h in range(tile.shape[1]):
        tile1[0, h] = tile[g, h]
        part1[0, h] = part[g, h]
        kind1[0, h] = kind[g, h]
        flower1[0, h] = flower[g, h]
        group1[0, h] = group[g, h]
        settled1[0, h] = settled[g, h]
    green1[0] = green[g]
    brown1[0] = brown[g]
    for s in range(resources.shape[1]):
        for r in range(resources.shape[2]):
            resources1[0, s, r] = resources[g, s, r]
    tiles1[0] = tiles_on_map[g]
    for s in range(left1.size):
        left1[s] = flowers_left[g, s]


@inlined
def _light_cell(t, tile_kind):
    """The cell of starting tile ``t`` that takes the setup flower: its first light stump, else its first cell."""
    for c in range(tile_kind.shape[1]):
        if tile_kind[t, c] == LIGHT:
            return c
    return 0


@inlined
def _groups_joined(g, h, seat, kind, flower, group, neighbours, rule):
    """(groups of ``seat`` next to hex ``h`` in game row ``g``, of them those with a production flower (``rule``
    B3) or with 3 flowers or more (B5), the flowers of those groups)."""
    joined = 0
    marked = 0
    size = 0
    for d in range(6):
        if not _group_first(g, h, d, seat, flower, group, neighbours):
            continue
        joined += 1
        if rule == B3 or rule == B5:
            label = group[g, neighbours[h, d]]
            members = 0
            produces = False
            for x in range(neighbours.shape[0]):
                if flower[g, x] == seat and group[g, x] == label:
                    members += 1
                    produces |= FIRST_PRODUCTION <= kind[g, x] <= LAST_PRODUCTION
            size += members
            marked += produces if rule == B3 else members >= 3
    return joined, marked, size


@inlined
def _most_groups(seat, joined, groups):
    """The change of ``seat``'s brown line under B1 (``groups [S]``: the lines before, with the +2 for the most)
    when its groups grow by ``1 - joined``."""
    most = groups[0]
    for x in range(groups.size):
        most = max(most, groups[x])
    new = groups[seat] - 2 if groups[seat] == most else groups[seat]
    new += 1 - joined
    top = new
    for x in range(groups.size):
        if x != seat:
            top = max(top, groups[x] - 2 if groups[x] == most else groups[x])
    return new + 2 * (new == top) - groups[seat]


@inlined
def _setup_flower_change(g, c, s, p, t, seat, tile, kind, flower, group, green, brown, neighbours, tile_value,
                         tile_stumps, tile_kind, cells, solo, groups):
    """``seat``'s point change from the setup flower landing on cell ``c`` of tile ``t`` just placed at ``p`` (shape
    ``s``), forming no ruin, in game row ``g`` (:func:`_played_placement` plays the same): no ruin is next to it
    (a ruin's neighbours are all covered), so none settles and G4 does not move. The tile's own change is
    :func:`_placement_change`'s; ``groups [S]``: the brown lines before (B1)."""
    h = cells[s, p, c]
    change = 1
    if tile_kind[t, c] == POINTS:
        change += tile_value[t, c]
    empty = False
    arid = 0
    own = 0
    others = 0
    for d in range(6):
        n = neighbours[h, d]
        k = _cell_index(n, s, p, cells)
        if k >= 0:
            arid += tile_kind[t, k] == ARID
            continue
        empty |= tile[g, n] == EMPTY
        arid += kind[g, n] == ARID
        f = flower[g, n]
        if f == seat:
            own += 1
        elif f >= 0:
            others += 1
    objective = green[g]
    if objective == G1:
        change += empty
    elif objective == G3:
        change += arid >= 2
    elif objective == G5:
        change += 1
    elif objective == G2 and tile_stumps[t] == 1:
        change += 2
    rule = brown[g]
    if rule == B2:
        change += 2 * (others >= 2)
    elif rule == B4:
        change += own <= 2
        for d in range(6):
            n = neighbours[h, d]
            if flower[g, n] == seat:
                mine = 0
                for e in range(6):
                    mine += flower[g, neighbours[n, e]] == seat
                change -= mine == 2
    else:
        joined, marked, size = _groups_joined(g, h, seat, kind, flower, group, neighbours, rule)
        if rule == B3:
            produces = FIRST_PRODUCTION <= tile_kind[t, c] <= LAST_PRODUCTION or marked > 0
            change += 2 * (np.int64(produces) - marked)
        elif rule == B5:
            change += 3 * ((size + 1 >= 3) - marked)
        elif solo:
            change += 1 - joined
        else:
            change += _most_groups(seat, joined, groups)
    return change


@inner
def _played_placement(g, s, p, t, slot, ends, mover, got, game, tables, place_tables, light_hex, open_nb, one,
                      scratch):
    """The one-game copy ``one`` of game row ``g`` after placement ``p`` of tile ``t`` (shape ``s``): the ruins
    it forms settle (ascending), and after a setup placement (``slot`` >= 0) that ends the mover's setup
    (``ends``: no other setup tile fits) a flower lands on the light stump of the starting tile, and the ruins
    next to it settle. ``got [4]``: the beetles the mover takes; ``open_nb``: the empty neighbours of the
    game's map."""
    tile, part, kind, flower, group, green, brown, resources, tiles_on_map, flowers_left, settled = game
    neighbours, tile_value, tile_stumps, tile_kind, tile_shape, around, around_touch, solo = tables
    tile1, part1, kind1, flower1, group1, green1, brown1, resources1, tiles1, left1, settled1 = one
    columns, per_tile, group_size, group_prod, states, grid, row, ruins = scratch
    cells = place_tables[2]
    _copy_game(g, game, one)
    tiles1[0] += 1
    count = _formed_ruins(g, s, p, tile, open_nb, around, around_touch, ruins)
    if count > 1:
        _sort_head(ruins, np.int64(count))
    for c in range(cells.shape[2]):
        h = cells[s, p, c]
        tile1[0, h] = t
        part1[0, h] = c
        kind1[0, h] = tile_kind[t, c]
    for k in range(count):
        tile1[0, ruins[k]] = RUIN
    for r in range(4):
        resources1[0, mover, r] += got[r]
    _settle_ruins(ruins, np.int64(count), flower1, group1, kind1, settled1, left1, neighbours, solo, columns[0])
    if slot >= 0 and ends:
        light = light_hex[g, mover]
        if slot == 0:
            light = cells[s, p, _light_cell(t, tile_kind)]
        if light >= 0:
            _flower_and_ruins(np.int64(light), mover, one, neighbours, solo, ruins, columns[0])


@inner
def _ends_setup_apart(g, mover, slot, s, p, count, setup_tiles, light_hex, around):
    """Placement ``p`` (shape ``s``) of the mover's last setup tile, not the starting one (``slot`` > 0), forms no
    ruin (``count``) and does not touch the starting tile's light stump: it ends the setup, and the flower that
    then lands on the light stump (with the ruins it settles, all of whose neighbours are already covered) and
    the tile change the points apart, as an expand's and the flower's changes (see :func:`greedy_choice`)."""
    light = light_hex[g, mover]
    if slot == 0 or count > 0 or light < 0:
        return False
    for k in range(setup_tiles.shape[2]):
        if k != slot and setup_tiles[g, mover, k] >= 0:
            return False
    for j in range(around.shape[2]):
        if around[s, p, j] == light:
            return False
    return True


@inner
def _light_flower(g, mover, light, game, tables, one, scratch):
    """The one-game copy ``one`` of game row ``g`` once the ``mover``'s setup ends (no tile placed): a flower on
    the light stump ``light`` and the ruins next to it settled."""
    neighbours, tile_value, tile_stumps, tile_kind, tile_shape, around, around_touch, solo = tables
    tile1, part1, kind1, flower1, group1, green1, brown1, resources1, tiles1, left1, settled1 = one
    columns, per_tile, group_size, group_prod, states, grid, row, ruins = scratch
    _copy_game(g, game, one)
    _flower_and_ruins(np.int64(light), mover, one, neighbours, solo, ruins, columns[0])


@inlined
def _copy_features(mover, one, tables, scratch, found):
    """``found [6]``: the features for ``mover`` of the one-game copy ``one``."""
    neighbours, tile_value, tile_stumps, tile_kind, tile_shape, around, around_touch, solo = tables
    tile1, part1, kind1, flower1, group1, green1, brown1, resources1, tiles1, left1, settled1 = one
    columns, per_tile, group_size, group_prod = scratch[0], scratch[1], scratch[2], scratch[3]
    _seat_features(np.int64(0), mover, tile1, part1, kind1, flower1, group1, green1, brown1, resources1, tiles1,
                   neighbours, tile_value, tile_stumps, solo, found, columns, per_tile, group_size, group_prod)


@inner
def _setup_certain(places, slot, tiles, tile_shape, cells, boundary, zone, stamp):
    """A legal placement of another setup tile (bits of ``places [slots, words]``, tiles ``tiles [slots]``, -1:
    none; not slot ``slot``) whose cells and boundary walk avoid the hexes marked ``zone[h] == stamp``: it stays
    legal once the marked hexes' states change (legality reads only the states of a placement's cells and walk).
    Tries a few placements only (false: not known)."""
    tries = 0
    for k in range(places.shape[0]):
        if k == slot or tiles[k] < 0:
            continue
        s = tile_shape[tiles[k]]
        for w in range(places.shape[1]):
            bits = places[k, w]
            while bits:
                q = w * 64 + lowest_bit_index(bits)
                bits &= bits - np.uint64(1)
                near = False
                for c in range(cells.shape[2]):
                    near |= zone[cells[s, q, c]] == stamp
                for j in range(boundary.shape[2]):
                    near |= zone[boundary[s, q, j]] == stamp
                if not near:
                    return True
                tries += 1
                if tries == 16:
                    return False
    return False


@inlined
def _hot_hexes(g, tile, flower, objective, scorer, open_nb, arid_nb, hex_grid, hot):
    """``hot [T, grid words]``, grid bitboards (bit x % 64 of word x // 64 for grid position x): for each count
    ``t + 1`` of a placement's cells next to a hex, the hexes whose change a placement so touching them can value.
    The empty hexes with ``t + 1`` empty neighbours (they become ruins), the scorer's flowers with ``t + 1`` empty
    neighbours under G1 (they lose the last) and, for every ``t``, those with fewer than 2 arid neighbours under
    G3 (they may reach 2)."""
    hot[:] = 0
    touches = hot.shape[0]
    for h in range(hex_grid.size - 2):
        x = hex_grid[h]
        bit = np.uint64(1) << np.uint64(x & 63)
        empty = open_nb[h]
        if tile[g, h] == EMPTY or (objective == G1 and flower[g, h] == scorer):
            if 1 <= empty <= touches:
                hot[empty - 1, x >> 6] |= bit
        elif objective == G3 and flower[g, h] == scorer and arid_nb[h] < 2:
            for t in range(touches):
                hot[t, x >> 6] |= bit


@inlined
def _busy_word(s, k, w, hot, around_shift, around_touches):
    """Word ``w`` of the grid bitboard of the anchors whose placement of shape ``s`` in rotation ``k`` touches a
    hot hex (:func:`_hot_hexes`) with the matching count of its cells; the others form no ruin and change no
    point."""
    found = np.uint64(0)
    for j in range(around_shift.shape[2]):
        t = around_touches[s, k, j]
        if t > 0:
            found |= _read_at(hot[t - 1], w, around_shift[s, k, j])
    return found


@inner
def _production_held(g, seat, flower, kind, out):
    """``out [4]``: the flowers of ``seat`` on production stumps in game row ``g``, by resource (light, mushroom,
    water, insect): what a draw gains before the supply's cap."""
    out[:4] = 0
    for h in range(flower.shape[1] - 2):
        if flower[g, h] == seat and FIRST_PRODUCTION <= kind[g, h] <= LAST_PRODUCTION:
            out[kind[g, h] - FIRST_PRODUCTION] += 1


@inlined
def _played_bloom(g, h, mover, pays, game, tables, production, tile_cost, supply, one, scratch, stock):
    """The one-game copy ``one`` of game row ``g`` after ``mover`` blooms stump ``h``: the payment (``pays``: not
    a weed bloom, :func:`bloom_payment`), the flower (groups merge), the complete ruins next to it settle
    (ascending) and a draw stump's bonus draw, unless the flower ended a solo game. ``stock [12]`` is scratch."""
    tile, part, kind, flower, group, green, brown, resources, tiles_on_map, flowers_left, settled = game
    neighbours, tile_value, tile_stumps, tile_kind, tile_shape, around, around_touch, solo = tables
    tile1, part1, kind1, flower1, group1, green1, brown1, resources1, tiles1, left1, settled1 = one
    columns, per_tile, group_size, group_prod, states, grid, row, ruins = scratch
    _copy_game(g, game, one)
    supply_left = stock[8:]
    for r in range(4):
        supply_left[r] = supply[g, r]
    if pays:
        bloom_payment(g, h, mover, flower, group, tile, part, resources, production, tile_cost, neighbours, stock)
        for r in range(4):
            resources1[0, mover, r] -= stock[r]
            supply_left[r] += stock[r]
    if _flower_and_ruins(h, mover, one, neighbours, solo, ruins, columns[0]):
        if pays and kind[g, h] == KIND_DRAW:
            _production_held(np.int64(0), mover, flower1, kind1, stock)
            for r in range(4):
                resources1[0, mover, r] += min(stock[r], supply_left[r])


@inner
def _weigh(found, weights):
    """The value of features ``found``: ``sum(weights[c] * found[c])``, summed in feature order."""
    v = 0.0
    for c in range(6):
        v = v + weights[c] * np.float64(found[c])
    return v


@inner
def _offer_value(i, a, v, stream, every, j, index, action, value, tie):
    """Action ``a`` of row ``i`` with value ``v``: the value and noise written at entry ``j`` (``every``; returns
    the next entry), or kept as row ``i``'s choice if it beats it (higher value, ties to the higher noise; an
    equal one keeps the earlier, lower action)."""
    if every:
        index[j], action[j], value[j], tie[j] = i, a, v, noise(stream, a)
        return j + 1
    if v >= value[i]:
        u = noise(stream, a)
        if v > value[i] or u > tie[i]:
            action[i], value[i], tie[i] = a, v, u
    return j


@inner
def _offer(i, a, found, weights, stream, every, j, index, action, value, tie):
    """:func:`_offer_value` of action ``a`` with features ``found``."""
    return _offer_value(i, a, _weigh(found, weights), stream, every, j, index, action, value, tie)


GreedyScratch = namedtuple("GreedyScratch", (
    "found", "plain", "known", "base", "lit_base", "open_nb", "arid_nb", "base_states", "got", "stock", "formed",
    "seen", "owners", "one", "work", "zone", "cover", "saved", "base_open", "hot", "busy", "busy_at", "stamps",
    "groups"))


@kernel
def greedy_scratch(tile, part, kind, flower, group, green, brown, resources, tiles_on_map, settled, tile_value,
                   around, around_touches, place_tables):
    """The scratch of :func:`greedy_choice` for a state of these arrays and tables."""
    players = resources.shape[1]
    placements = around.shape[1]
    W = tile.shape[1]
    cells = place_tables[2]
    one = (np.empty((1, W), tile.dtype), np.empty((1, W), part.dtype), np.empty((1, W), kind.dtype),
           np.empty((1, W), flower.dtype), np.empty((1, W), group.dtype), np.empty(1, green.dtype),
           np.empty(1, brown.dtype), np.empty((1,) + resources.shape[1:], resources.dtype),
           np.empty(1, tiles_on_map.dtype), np.empty(players, np.int64), np.empty((1, W), settled.dtype))
    G = place_tables[6].size
    grid = (np.zeros(G, np.int64), np.zeros(-(-G // 64), np.uint64), np.zeros(-(-G // 64), np.uint64))
    work = (np.zeros((4, players), np.int64), np.zeros((players, tile_value.shape[0]), np.int64), np.zeros(W, np.int64),
            np.zeros(W, np.bool_), np.zeros(W, np.int64), grid, np.zeros(-(-placements // 64), np.uint64),
            np.zeros(around.shape[2] + cells.shape[2], np.int64))
    cover = np.zeros(around.shape[2] + cells.shape[2], np.int64)
    return GreedyScratch(
        np.zeros(6, np.int64), np.zeros(2), np.zeros(2, np.bool_), np.zeros(6, np.int64), np.zeros(6, np.int64),
        np.zeros(W, np.int64), np.zeros(W, np.int64), np.zeros(W, np.int64), np.zeros(4, np.int64),
        np.zeros(12, np.int64), np.zeros(around.shape[2], np.int64), np.zeros(W, np.bool_),
        np.zeros(players, np.int64), one, work, np.zeros(W, np.int64), cover, np.zeros(14 * cover.size, np.int64),
        (np.zeros(grid[1].size, np.uint64), np.zeros(grid[1].size, np.uint64)),
        np.zeros((around_touches.max(), grid[1].size), np.uint64), np.zeros((6, grid[1].size), np.uint64),
        np.zeros((6, grid[1].size), np.int64), np.zeros(2, np.int64), np.zeros(players, np.int64))


@kernel
def greedy_choice(rows, blooms, places, draw, decline, every, weights, seeds, key, decisions, codes, tile, part,
                  kind, flower, group, green, brown, resources, tiles_on_map, flowers_left, settled, production, phase,
                  to_move, face_up, setup_tiles, light_hex, supply, neighbours, tile_value, tile_stumps, solo,
                  tile_shape, tile_kind, tile_beetles, tile_cost, setup_beetles, arid_cells, around, around_touch,
                  around_cell_bits, around_shift, around_touches, place_tables, gs):
    """The greedy values of the legal actions of games ``rows`` for the mover: ``sum(weights[c] * features[c])``
    over the features after the action, summed in feature order, and the noise
    ``noise(noise_stream(seeds[g], key, decisions[g]), action)``. The legal actions: blooms ``blooms [n, P]``,
    placements ``places [n, slots, words]`` (bit p % 64 of word p // 64 of slot ``slot`` is action
    ``first_place + slot * placements + p``), ``draw [n]`` and ``decline [n]``; ``codes``: first_bloom,
    first_place, the draw and the decline action, the SETUP, WEED_EXPAND and WEED_BLOOM phases.

    Returns ``(index, action, value, noise)``: with ``every``, one entry per legal action, by row then action
    (``index``: the row number ``i`` of ``rows``); else the greedy choice of each row (the highest value, ties to
    the highest noise, then the lowest action; action -1: no legal action).

    A decline changes nothing the evaluation reads, and a draw only the
    mover's resources. A bloom is played on a one-game copy of the map
    (:func:`_played_bloom`). Placements are valued without playing them where
    that is quick. Unless a ruin it forms takes a flower, an expand only adds the
    tile (its hexes and ``tiles``), its beetles and the ruins; no flower,
    group or other tile changes, so among the points only G1 (the scorer's
    flowers whose last empty neighbours the tile and the ruins take), G3 (those
    reaching 2 arid neighbours; ``arid_cells[t]``: bit c set iff cell c of tile
    t is arid) and G4 (new ruins next to the scorer's flowers) move. Other
    placements are played on a one-game copy of the map (:func:`_played_placement`): those whose ruins take a
    flower, and setup ones unless another setup tile of the mover still fits
    (:func:`_setup_certain`, a quick sufficient test, else the exact :func:`_setup_goes_on`; then a setup
    placement is an expand), or the setup surely ends apart from the tile (:func:`_ends_setup_apart`: an expand on the features with the
    light stump's flower), or the starting tile laid last forms no ruin (an expand and the change of the flower on
    its light stump, :func:`_setup_flower_change`).

    First, per decision, bitboards on the grid (:func:`_hot_hexes`,
    :func:`_busy_word`) mark the anchors whose placement touches a hex that
    could become a ruin or move G1 or G3; every other placement forms no ruin
    and changes no point, and skips those checks.

    ``gs``: the scratch (:func:`greedy_scratch`), kept between calls (the planner's rollouts make it once for all).
    """
    first_bloom, first_place, draw_action, decline_action = codes[0], codes[1], codes[2], codes[3]
    setup, weed_expand, weed_bloom = codes[4], codes[5], codes[6]
    n = rows.size
    slots, words = places.shape[1], places.shape[2]
    size = n
    if every:
        size = 0
        for i in range(n):
            size += draw[i] + decline[i]
            for h in range(blooms.shape[1]):
                size += blooms[i, h]
            for slot in range(slots):
                for w in range(words):
                    size += popcount(places[i, slot, w])
    index = np.full(size, -1, np.int64)
    action = np.full(size, -1, np.int64)
    value = np.full(size, -np.inf)
    tie = np.full(size, -1.0)
    placements = around.shape[1]
    neighbours_ext = place_tables[1]
    cells = place_tables[2]
    found, plain, known, base, lit_base = gs.found, gs.plain, gs.known, gs.base, gs.lit_base
    open_nb, arid_nb, base_states, got, stock, formed = gs.open_nb, gs.arid_nb, gs.base_states, gs.got, gs.stock, gs.formed
    seen, owners, one, scratch, zone, cover, saved = gs.seen, gs.owners, gs.one, gs.work, gs.zone, gs.cover, gs.saved
    base_open, hot, busy, busy_at, groups = gs.base_open, gs.hot, gs.busy, gs.busy_at, gs.groups
    columns, per_tile, group_size, group_prod, grid = scratch[0], scratch[1], scratch[2], scratch[3], scratch[5]
    game = (tile, part, kind, flower, group, green, brown, resources, tiles_on_map, flowers_left, settled)
    tables = (neighbours, tile_value, tile_stumps, tile_kind, tile_shape, around, around_touch, solo)
    stamp, busy_stamp = gs.stamps[0], gs.stamps[1]
    hex_grid = place_tables[7]
    j = np.int64(0)
    for i in range(n):
        g = rows[i]
        mover = np.int64(to_move[g])
        weed = solo and mover == 1
        in_setup = phase[g] == setup
        stream = noise_stream(seeds[g], key, decisions[g])
        _seat_features(g, mover, tile, part, kind, flower, group, green, brown, resources, tiles_on_map,
                       neighbours, tile_value, tile_stumps, solo, base, columns, per_tile, group_size, group_prod)
        if in_setup:
            for x in range(groups.size):
                groups[x] = columns[3, x]  # the brown lines, for a setup flower's change (B1)
        for h in range(blooms.shape[1]):
            if blooms[i, h]:
                _played_bloom(g, h, mover, phase[g] != weed_bloom, game, tables, production, tile_cost, supply,
                              one, scratch, stock)
                _copy_features(mover, one, tables, scratch, found)
                j = _offer(i, first_bloom + h, found, weights, stream, every, j, index, action, value, tie)
        ready = False
        lit = False
        for slot in range(slots):
            t = setup_tiles[g, mover, slot] if in_setup else face_up[g, slot] if slot < face_up.shape[1] else -1
            if t < 0:
                continue  # no tile, no legal placement
            s = tile_shape[t]
            known[:] = False  # the values of the slot's placements that change no point, from base and lit_base
            busy_stamp += 1
            for r in range(4):
                if in_setup:
                    got[r] = min(tile_beetles[t, r], supply[g, r]) if setup_beetles else 0
                else:
                    got[r] = 0 if phase[g] == weed_expand else min(tile_beetles[t, r], supply[g, r])
            for w in range(words):
                bits = places[i, slot, w]
                while bits:
                    p = w * 64 + lowest_bit_index(bits)
                    bits &= bits - np.uint64(1)
                    if not ready:
                        _neighbour_counts(g, tile, kind, neighbours_ext, open_nb, arid_nb)
                        _hot_hexes(g, tile, flower, green[g], 0 if weed else mover, open_nb, arid_nb, hex_grid, hot)
                        if in_setup:
                            _hex_states(g, tile, neighbours_ext, base_states)
                            _open_hexes(base_states, place_tables, grid[0], base_open[0], base_open[1])
                        ready = True
                    x = hex_grid[p // 6]
                    k = p % 6
                    if busy_at[k, x >> 6] != busy_stamp:  # computed once per decision, slot and word
                        busy[k, x >> 6] = _busy_word(s, k, x >> 6, hot, around_shift, around_touches)
                        busy_at[k, x >> 6] = busy_stamp
                    quiet = not (busy[k, x >> 6] >> np.uint64(x & 63)) & np.uint64(1)
                    count = 0 if quiet else _formed_ruins(g, s, p, tile, open_nb, around, around_touch, formed)
                    full = False
                    goes_on = False
                    delta = 0
                    if in_setup and tiles_on_map[g] > 0:  # a legal placement away from the changed hexes goes on
                        stamp += 1
                        for k in range(cells.shape[2] + count):
                            h = cells[s, p, k] if k < cells.shape[2] else formed[k - cells.shape[2]]
                            zone[h] = stamp
                            for d in range(6):
                                zone[neighbours_ext[h, d]] = stamp
                        goes_on = _setup_certain(places[i], slot, setup_tiles[g, mover], tile_shape, cells,
                                                 place_tables[3], zone, stamp)
                    if in_setup and not goes_on:  # the exact test, on the map with the tile and its ruins
                        for c in range(cells.shape[2]):
                            cover[c] = cells[s, p, c]
                        for k in range(count):
                            cover[cells.shape[2] + k] = formed[k]
                        goes_on = _setup_goes_on(g, mover, slot, setup_tiles, tile_shape, cover,
                                                 cells.shape[2] + count, place_tables, base_open, grid, saved,
                                                 scratch[6])
                    start = 0  # 0: base, 1: lit_base
                    landed = False  # the setup flower lands on the starting tile placed (its change: ``change``)
                    change = 0
                    light = 0
                    if in_setup and not goes_on:
                        # it may end the mover's setup: played, unless it surely ends it apart from the flower
                        full = not _ends_setup_apart(g, mover, slot, s, p, count, setup_tiles, light_hex, around)
                        if not full:
                            if not lit:
                                _light_flower(g, mover, light_hex[g, mover], game, tables, one, scratch)
                                _copy_features(mover, one, tables, scratch, lit_base)
                                lit = True
                            start = 1
                        elif slot == 0 and count == 0 and not weed:
                            light = _light_cell(t, tile_kind)
                            change = _setup_flower_change(g, light, s, p, t, mover, tile, kind, flower, group, green,
                                                          brown, neighbours, tile_value, tile_stumps, tile_kind, cells,
                                                          solo, groups)
                            full = False
                            landed = True
                    if not full and not quiet and (count > 0 or green[g] == G1 or green[g] == G3):
                        # otherwise nothing the placement changes moves the points
                        full, delta = _placement_change(g, s, p, t, 0 if weed else mover, kind, flower, green,
                                                        flowers_left, open_nb, arid_nb, tile_kind, cells, around,
                                                        around_touch, around_cell_bits, arid_cells[t],
                                                        neighbours_ext, formed, count, seen, owners)
                    if full:
                        _played_placement(g, s, p, t, slot if in_setup else -1, not goes_on, mover, got, game,
                                          tables, place_tables, light_hex, open_nb, one, scratch)
                        _copy_features(mover, one, tables, scratch, found)
                        v = _weigh(found, weights)
                    elif delta == 0 and known[start] and not landed:
                        v = plain[start]  # the same features as the slot's other placements that change no point
                    else:
                        for c in range(6):
                            found[c] = lit_base[c] if start else base[c]
                        found[SCORE] += -delta if weed else delta
                        found[RESOURCES] += got[0] + got[1] + got[2] + got[3]
                        found[LIGHT_HELD] += got[0]
                        found[TILES] += 1
                        if landed:
                            found[SCORE] += change
                            found[FLOWERS] += 1
                            found[PRODUCTION] += FIRST_PRODUCTION <= tile_kind[t, light] <= LAST_PRODUCTION
                        v = _weigh(found, weights)
                        if delta == 0 and not landed:
                            plain[start], known[start] = v, True
                    j = _offer_value(i, first_place + slot * placements + p, v, stream, every, j, index, action,
                                     value, tie)
        if draw[i]:
            _production_held(g, mover, flower, kind, stock)
            for c in range(6):
                found[c] = base[c]
            for r in range(4):
                x = min(stock[r], supply[g, r])
                found[RESOURCES] += x
                if r == 0:
                    found[LIGHT_HELD] += x
            j = _offer(i, draw_action, found, weights, stream, every, j, index, action, value, tie)
        if decline[i]:
            j = _offer(i, decline_action, base, weights, stream, every, j, index, action, value, tie)
    gs.stamps[0], gs.stamps[1] = stamp, busy_stamp
    if not every:
        index[:] = np.arange(n)
    return index, action, value, tie




@inner
def _rank(g, seat, a, t, s):
    """Rules §8.5: ``seat``'s rank in finished game ``g`` (``engine.results``: solo 1 for a win of the player, 0
    for a stall), its points by score line left in ``s.lines``."""
    if a.end[g] == END_STALL:
        return 0
    if t.solo:
        return 1 if (a.end[g] == END_SOLO_WIN) == (seat == 0) else 2
    _game_points(g, a.tile, a.part, a.kind, a.flower, a.group, a.green, a.brown, t.neighbours, t.tile_value,
                 t.tile_stumps, t.solo, s.lines, s.per_tile, s.group_size, s.group_prod)
    players = s.lines.shape[1]
    mine = s.lines[0, seat] + s.lines[1, seat] + s.lines[2, seat] + s.lines[3, seat]
    held = a.resources[g, seat, 0] + a.resources[g, seat, 1] + a.resources[g, seat, 2] + a.resources[g, seat, 3]
    rank = 1
    for x in range(players):
        score = s.lines[0, x] + s.lines[1, x] + s.lines[2, x] + s.lines[3, x]
        other = a.resources[g, x, 0] + a.resources[g, x, 1] + a.resources[g, x, 2] + a.resources[g, x, 3]
        if score > mine or (score == mine and other > held):
            rank += 1
    return rank


@kernel
def roll_out(a, t, extra, codes, seeds, decisions, weights, keys, seat, start_turn, turns, depth, stamp, win_bonus,
             log, stump_log, worth):
    """The planner's rollouts (:meth:`sims.core.planner.RolloutPlanner.roll_out`), each game of the branch ``a``
    in one loop: while it runs, has taken fewer than ``depth`` decisions and is not at its horizon (``turns`` > 0:
    turn ``start_turn[g] + turns`` reached; else ``seat``'s ACTION decision of a later turn than ``start_turn[g]``),
    the mover's greedy choice (:func:`greedy_choice` with ``weights`` and the noise key ``keys[mover]``) is played
    (:func:`~sims.vorex.turn_kernels.step_one`). ``worth[g]``: ``seat``'s evaluation at the end, less
    ``win_bonus`` times its rank in a finished game. ``extra``: the greedy's tables arid_cells,
    around_cell_bits, around_shift, around_touches; ``log``, ``stump_log``: zero-length."""
    s = scratch(a, t)
    arid_cells, around_cell_bits, around_shift, around_touches = extra
    P = a.bloom_cache.shape[1]
    words = a.place_cache.shape[2]
    row = np.zeros(1, np.int64)
    blooms1 = np.zeros((1, P), np.bool_)
    places1 = np.zeros((1, 3, words), np.uint64)
    draw1 = np.zeros(1, np.bool_)
    decline1 = np.zeros(1, np.bool_)
    every = np.bool_(False)
    found = np.zeros(6, np.int64)
    gs = greedy_scratch(a.tile, a.part, a.kind, a.flower, a.group, a.green, a.brown, a.resources, a.tiles_on_map,
                        a.settled, t.tile_value, t.around, around_touches, t.place_tables)
    for g in range(worth.size):
        taken = 0
        while taken < depth and not a.done[g]:
            if turns > 0:
                if a.turn[g] >= start_turn[g] + turns:
                    break
            elif a.to_move[g] == seat and a.phase[g] == ACTION and a.turn[g] > start_turn[g]:
                break
            bloomer, draw1[0], decline1[0] = legal_row(g, stamp, a, t, s)
            for h in range(P):
                blooms1[0, h] = bloomer and a.bloom_cache[g, h]
            places1[:] = 0
            for k in range(3):
                if s.tiles[k] >= 0:
                    places1[0, k, :] = a.place_cache[g, t.tile_shape[s.tiles[k]]]
            row[0] = g
            chosen = greedy_choice(
                row, blooms1, places1, draw1, decline1, every, weights, seeds, keys[a.to_move[g]], decisions, codes,
                a.tile, a.part, a.kind, a.flower, a.group, a.green, a.brown, a.resources, a.tiles_on_map,
                a.flowers_left, a.settled, a.production, a.phase, a.to_move, a.face_up, a.setup_tiles, a.light_hex,
                a.supply, t.neighbours, t.tile_value, t.tile_stumps, t.solo, t.tile_shape, t.tile_kind,
                t.tile_beetles, t.tile_cost, t.setup_beetles, arid_cells, t.around, t.around_touch, around_cell_bits,
                around_shift, around_touches, t.place_tables, gs)[1]
            step_one(g, chosen[0], stamp, a, t, log, stump_log, np.bool_(False), s)
            decisions[g] += 1
            taken += 1
        _seat_features(g, seat, a.tile, a.part, a.kind, a.flower, a.group, a.green, a.brown, a.resources,
                       a.tiles_on_map, t.neighbours, t.tile_value, t.tile_stumps, t.solo, found, s.lines,
                       s.per_tile, s.group_size, s.group_prod)
        worth[g] = _weigh(found, weights)
        if a.done[g]:
            rank = _rank(g, seat, a, t, s)
            if rank > 0:
                worth[g] = worth[g] - win_bonus * rank
