"""Compiled (numba) pieces of batched Overgrowth: legal placements, connection distances, greedy choices.

They read the bitboards of ``rules.py`` (bit ``row * columns + col``) through
:class:`Tables`, plain arrays of fixed dtypes built once per config, and loop
over the game axis instead of broadcasting over it, so each game does only
its own work (a flood stops as soon as that position is settled).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sims.core.kernels import helper, kernel, kth_set_bit, noise, noise_stream, popcount
from sims.overgrowth.config import ACTION_KINDS

WIN, LOSS = 1e9, -1e9
# kind codes of what a turn did: the four track actions, then the first-turn placement and the pass
OVERGROW, GROW, CAST, SPREAD, FIRST, PASS = range(len(ACTION_KINDS) + 2)


def bot_weights(weights) -> np.ndarray:
    """float64 ``[3]``: own distance, opponent distance, flowers weights of a bot's weights mapping."""
    return np.array([weights["own_distance"], weights["opponent_distance"], weights["flowers"]], dtype=np.float64)


@njit(cache=True, inline="always")
def dilate(board, boards, king):
    """Rules §1.1: ``board`` plus its neighbours (king or orthogonal steps), inside the board."""
    return dilate_bits(board, boards[0], boards[1], boards[2], boards[5], king)


@njit(cache=True, inline="always")
def dilate_bits(board, full, may_step_right, may_step_left, columns, king):
    """:func:`dilate` with the board's masks given one by one."""
    sideways = ((board & may_step_right) << np.uint64(1)) | ((board & may_step_left) >> np.uint64(1))
    if king:
        wide = board | (sideways & full)
        return (wide | (wide << columns) | (wide >> columns)) & full
    return (board | sideways | (board << columns) | (board >> columns)) & full


@kernel
def connection_distance(own, opp, boards, king, far):
    """``rules.connection_distance`` of one position: a layered flood from the mover's first area."""
    full, start, goal = boards[0], boards[3], boards[4]
    blocked = np.uint64(0)
    for area in (start, goal):
        if own & area:
            blocked |= area
    open_cells = ~(own | opp) & full & ~blocked
    reach = own & start
    level = 0
    while not (reach & goal):
        ring = dilate(reach, boards, king)
        grown = reach | (ring & own)
        if grown != reach:
            reach = grown
            continue
        layered = reach | ((ring | start) & open_cells)
        if layered == reach:
            return far
        level += 1
        reach = layered
    return level


@kernel
def position_score(own, opp, supply_left, boards, weights, king, far):
    """``Evaluation.position``'s score of one position reached by the mover."""
    mine = connection_distance(own, opp, boards, king, far)
    if mine == 0:
        return WIN
    diff = popcount(own) - popcount(opp)
    if supply_left == 0:
        return WIN if diff > 0 else LOSS if diff < 0 else 0.0
    theirs = connection_distance(opp, own, boards, king, far)
    return (weights[1] * theirs - weights[0] * mine) + weights[2] * diff


@kernel
def position_scores(own, opp, supply_left, boards, weights, king, far):
    """:func:`position_score` of arrays of positions."""
    out = np.empty(own.size, dtype=np.float64)
    for i in range(own.size):
        out[i] = position_score(own[i], opp[i], supply_left[i], boards, weights, king, far)
    return out


@njit(cache=True, inline="always")
def shift(board, cells, bits, full):
    """``Grid.shift`` of one board by a step given as its cells and signed bit shift."""
    moved = board & cells
    moved = moved << np.uint64(bits) if bits >= 0 else moved >> np.uint64(-bits)
    return moved & full


@njit(cache=True, inline="always")
def allowed_cells(own, supply, t):
    """Rules §5: the cells one more flower of ``own``'s player may take under the shaded-area rule (no area in
    which it already has a flower); none with an empty supply (§1.3)."""
    full = t.boards[0]
    closed = np.uint64(0)
    for area in (t.boards[3], t.boards[4]):
        if own & area:
            closed |= area
    return ~closed & full if supply >= 1 else np.uint64(0)


@njit(cache=True, inline="always")
def side_counts(own, t):
    """Cells beside at least 1, 2, 3, 4 ``own`` flowers: a bit-sliced count over the 4 orthogonal sides."""
    full = t.boards[0]
    one, two, three, four = np.uint64(0), np.uint64(0), np.uint64(0), np.uint64(0)
    for i in range(t.side_cells.size):
        side = shift(own, t.side_cells[i], t.side_shifts[i], full)
        four |= three & side
        three |= two & side
        two |= one & side
        one |= side
    return one, two, three, four


@njit(cache=True, inline="always")
def cast_reach(own, t):
    """Rules §4.3: the cells exactly ``cast_distance`` from an ``own`` flower along a line, whatever they hold."""
    cast = np.uint64(0)
    for i in range(t.cast_cells.size):
        cast |= shift(own, t.cast_cells[i], t.cast_shifts[i], t.boards[0])
    return cast


@kernel
def game_options(own, opp, marker_me, marker_opp, supply, home_area, t, singles, pairs):
    """Rules §3.1 to §5 (``OvergrowthGame.legal_placements`` of every slot): legal placements per slot into
    ``singles`` and ``pairs`` (left cells of spread pairs): slot 0 the first turn (§3.1), slot i + 1 the
    action the marker lands on with move i (§3.2, §4.1 to §4.4), under the shaded-area rule (§5)."""
    full = t.boards[0]
    singles[0] = home_area & ~(own | opp)  # the first turn's placement; ``home_area`` is 0 after it
    pairs[0] = np.uint64(0)
    empty = ~(own | opp) & full
    allowed = allowed_cells(own, supply, t)
    counts = side_counts(own, t)
    enough = counts[t.overgrow_sides - 1]
    touching = counts[0] & ~own
    free = empty & allowed
    by_kind = (opp & enough & allowed, dilate(own, t.boards, True) & ~own & free,
               cast_reach(own, t) & free, touching & free)
    spread_pairs = free & (free >> np.uint64(1)) & t.boards[6] & (touching | (touching >> np.uint64(1)))
    spread_pairs &= ~t.boards[7] if supply >= 2 else np.uint64(0)
    track = t.track_kind.size
    for i in range(t.moves.size):
        landing = (marker_me + t.moves[i]) % track
        kind = t.track_kind[landing]
        later = home_area == 0 and landing != marker_opp
        singles[i + 1] = by_kind[kind] if later else np.uint64(0)
        pairs[i + 1] = spread_pairs if later and kind == SPREAD else np.uint64(0)


@njit(cache=True, inline="always")
def can_act(kind, own, opp, supply, t):
    """Rules §4, §5: ``own``'s player has a legal placement for the action ``kind`` (after its first turn). A
    legal spread pair holds a legal single (the cell that touches), so spread singles decide."""
    allowed = allowed_cells(own, supply, t)
    free = ~(own | opp) & allowed
    if kind == GROW:
        return (dilate(own, t.boards, True) & free) != 0
    if kind == CAST:
        return (cast_reach(own, t) & free) != 0
    counts = side_counts(own, t)
    if kind == SPREAD:
        return (counts[0] & free) != 0
    return (opp & counts[t.overgrow_sides - 1] & allowed) != 0


@helper
def blocked(stones0, stones1, marker0, marker1, supply0, supply1, mover, t):
    """Rules §6.3 (``OvergrowthGame.blocked``): in this position (after both first turns, ``mover`` to play) no
    seat can ever place a flower again. The mover's own landings decide nearly every position, here, with the
    position in scalars (no array is passed); passing changes only the markers, so the actions each seat could
    play stay as they are (:func:`playable`), and :func:`passes_reach` follows the markers."""
    own, opp = (stones0, stones1) if mover == 0 else (stones1, stones0)
    mine, other = (marker0, marker1) if mover == 0 else (marker1, marker0)
    supply = supply0 if mover == 0 else supply1
    reach = t.reach[mine, other]
    for kind in (GROW, SPREAD, CAST, OVERGROW):  # the cheapest and likeliest first
        if (reach >> kind) & 1 and can_act(kind, own, opp, supply, t):
            return False
    return not passes_reach(playable(stones0, stones1, supply0, supply1, t), marker0, marker1, mover, t)


@helper
def playable(stones0, stones1, supply0, supply1, t):
    """Bit ``seat * 4 + kind`` set when the seat has a legal placement for action ``kind`` (rules §4, §5)."""
    found = 0
    for seat in range(2):
        own, opp = (stones0, stones1) if seat == 0 else (stones1, stones0)
        supply = supply0 if seat == 0 else supply1
        for kind in range(4):
            if can_act(kind, own, opp, supply, t):
                found |= 1 << (seat * 4 + kind)
    return found


@helper
def passes_reach(playable, space0, space1, mover, t):
    """Rules §3.3, §6.3: from markers on ``space0`` and ``space1``, ``mover`` to play, every player passing while
    it has no placement, does some turn offer its player a move onto an action it can play (bit
    ``seat * 4 + kind`` of ``playable``)? The passes are forced (:func:`pass_landing`), so the markers and seat
    to move come back to a position seen within two turns per marker position, and repeat from there."""
    track = t.track_kind.size
    seat = mover
    for _ in range(2 * track * track + 1):
        mine, other = (space0, space1) if seat == 0 else (space1, space0)
        if t.reach[mine, other] & (playable >> (seat * 4)) & 15:
            return True
        if seat == 0:
            space0 = pass_landing(mine, other, t)
        else:
            space1 = pass_landing(mine, other, t)
        seat = 1 - seat
    return False


@njit(cache=True, inline="always")
def mover_position(g, stones, markers, supply, to_move, turn, t):
    """``(own, opp, marker_me, marker_opp, supply, home_area)`` of game ``g``'s player to move; ``home_area``
    is the seat's shaded area on its first turn (rules §3.1), else 0."""
    me = np.int64(to_move[g])
    home_area = t.boards[3 + me] if turn[g] < 2 else np.uint64(0)
    return (stones[g, me], stones[g, 1 - me], markers[g, me], markers[g, 1 - me], supply[g, me], home_area)


@kernel
def options(stones, markers, supply, to_move, turn, done, t):
    """Rules §3.3 (``OvergrowthGame.legal_actions``): uint64 ``singles[B, slots]``, ``pairs[B, slots]``,
    legal placements of each game's player to move (none in finished games); the pass is legal where all are
    empty."""
    size, slots = stones.shape[0], t.moves.size + 1
    singles = np.zeros((size, slots), dtype=np.uint64)
    pairs = np.zeros((size, slots), dtype=np.uint64)
    for g in range(size):
        if not done[g]:
            own, opp, marker_me, marker_opp, left, home_area = mover_position(g, stones, markers, supply, to_move,
                                                                              turn, t)
            game_options(own, opp, marker_me, marker_opp, left, home_area, t, singles[g], pairs[g])
    return singles, pairs


@kernel
def _game_actions(g, stones, markers, supply, to_move, turn, t, weights, stream, singles, pairs, actions, scores,
                  noises, cache):
    """Legal actions of game ``g`` in ascending order with their placement scores and noise; returns the count.

    ``singles``, ``pairs`` and ``cache`` (each placement's score) are work space.
    """
    own, opp, marker_me, marker_opp, left, home_area = mover_position(g, stones, markers, supply, to_move, turn, t)
    game_options(own, opp, marker_me, marker_opp, left, home_area, t, singles, pairs)
    placements = t.placement_bits.size
    cache[:] = np.nan
    count = 0
    for slot in range(singles.size):
        for kind in range(2):
            board = singles[slot] if kind == 0 else pairs[slot]
            while board:
                low = board & (~board + np.uint64(1))
                cell = popcount(low - np.uint64(1))
                board ^= low
                placement = cell if kind == 0 else t.pair_of_left_cell[cell]
                if np.isnan(cache[placement]):
                    bits = t.placement_bits[placement]
                    cache[placement] = position_score(own | bits, opp & ~bits, left - t.placement_size[placement],
                                                      t.boards, weights, t.king, t.far)
                action = slot * placements + placement
                actions[count] = action
                scores[count] = cache[placement]
                noises[count] = noise(stream, action)
                count += 1
    return count


@kernel
def scored_games(stones, markers, supply, to_move, turn, active, seeds, decisions, purpose_keys, t, weights,
                 best_only):
    """Every legal action of the active games (by game, then action) with its score and noise (the stream of
    ``purpose_keys[seat to move]``); with ``best_only`` each game's best one alone (highest score, then noise).
    Flat ``games, actions, scores, noise``."""
    size, slots, placements = active.size, t.moves.size + 1, t.placement_bits.size
    most = slots * placements
    found = (np.empty(most, np.int64), np.empty(most), np.empty(most))  # one game's actions, scores, noise
    games = np.empty(size if best_only else size * most, dtype=np.int64)
    actions, scores, noises = np.empty(games.size, np.int64), np.empty(games.size), np.empty(games.size)
    singles, pairs, cache = np.empty(slots, np.uint64), np.empty(slots, np.uint64), np.empty(placements)
    filled = 0
    for g in range(size):
        if not active[g]:
            continue
        stream = noise_stream(seeds[g], purpose_keys[to_move[g]], decisions[g])
        count = _game_actions(g, stones, markers, supply, to_move, turn, t, weights, stream, singles, pairs,
                              found[0], found[1], found[2], cache)
        first = 0
        if best_only and count:
            for i in range(1, count):
                if found[1][i] > found[1][first] or (found[1][i] == found[1][first] and found[2][i] >= found[2][first]):
                    first = i
            count = 1
        games[filled:filled + count] = g
        actions[filled:filled + count] = found[0][first:first + count]
        scores[filled:filled + count] = found[1][first:first + count]
        noises[filled:filled + count] = found[2][first:first + count]
        filled += count
    return games[:filled], actions[:filled], scores[:filled], noises[:filled]


@kernel
def _kth_action(singles, pairs, k, placements, pair_of_left_cell):
    """The ``k``-th (0-based) legal action in ascending order of per-slot placement bitboards."""
    for slot in range(singles.size):
        for kind in range(2):
            board = singles[slot] if kind == 0 else pairs[slot]
            count = popcount(board)
            if k < count:
                cell = kth_set_bit(board, k)
                return slot * placements + (cell if kind == 0 else pair_of_left_cell[cell])
            k -= count
    return -1


@kernel
def choose_uniform(stones, markers, supply, to_move, turn, rows, u, t):
    """``OvergrowthEngine.choose_uniform``: int64 ``[rows.size]``, in each game of ``rows`` legal action number
    ``min(floor(u * n), n - 1)`` of its ``n`` in ascending order; the pass where no placement is legal."""
    slots, placements = t.moves.size + 1, t.placement_bits.size
    chosen = np.full(rows.size, t.pass_action, dtype=np.int64)
    singles, pairs = np.empty(slots, np.uint64), np.empty(slots, np.uint64)
    for i in range(rows.size):
        g = rows[i]
        own, opp, marker_me, marker_opp, left, home_area = mover_position(g, stones, markers, supply, to_move, turn, t)
        game_options(own, opp, marker_me, marker_opp, left, home_area, t, singles, pairs)
        total = 0
        for slot in range(slots):
            total += popcount(singles[slot]) + popcount(pairs[slot])
        if total:
            chosen[i] = _kth_action(singles, pairs, min(np.int64(u[i] * total), total - 1), placements,
                                    t.pair_of_left_cell)
    return chosen


@kernel
def connects(own, boards, king):
    """Rules §6.1 (``OvergrowthGame.connects``): ``own`` flowers form a chain from area 0 to area 1."""
    start, goal = boards[3], boards[4]
    if not (own & start) or not (own & goal):
        return False
    region = own & start
    while True:
        grown = dilate(region, boards, king) & own
        if grown == region:
            return (region & goal) != 0
        region = grown


@njit(cache=True, inline="always")
def pass_landing(marker, opp_marker, t):
    """Rules §3.3 (``OvergrowthGame.pass_landing``): where a passing marker goes, the first allowed move not
    ending on the other marker; it stays where no move is allowed."""
    track = t.track_kind.size
    for move in t.moves:
        if (marker + move) % track != opp_marker:
            return (marker + move) % track
    return marker


@njit(cache=True, inline="always")
def check_end(me, own, opp, supply_left, t, codes):
    """Rules §6.1, §6.2 (``OvergrowthGame.check_end``): ``(winner, end reason)`` after ``me``'s action: a
    connection wins; else an empty supply ends the game on flower count (equal counts: the tie code); end
    reason 0 while the game goes on. ``codes``: end reasons connection and flowers, and the tie winner."""
    if connects(own, t.boards, t.king):
        return me, codes[0]
    if supply_left == 0:
        mine, theirs = popcount(own), popcount(opp)
        return (me if mine > theirs else 1 - me if mine < theirs else codes[2]), codes[1]
    return me, np.int64(0)


@kernel
def step(stones, markers, supply, to_move, turn, done, winner, end, actions_of_kind, placed, lost, actions, t,
         codes):
    """Rules §3.4 (``OvergrowthGame.apply``): each unfinished game's mover takes its action: the marker moves
    (§3.2, or :func:`pass_landing`), the flowers go on the placement's cells (§1.3, an overgrown flower is
    its owner's loss, §4.1), then :func:`check_end`, then :func:`blocked` (§6.3: more flowers on the board win).
    Returns the kind code of each game's action (-1 in
    finished games) and the flowers it put on the board, the mover's score change (a placement's cells hold
    none of the mover's flowers, §3.3). ``codes``: end reasons connection and flowers, the tie winner, and end
    reason blocked."""
    track, placements = t.track_kind.size, t.placement_bits.size
    full, right, left, area0, area1, columns = t.boards[0], t.boards[1], t.boards[2], t.boards[3], t.boards[4], \
        t.boards[5]
    kinds = np.full(done.size, -1, dtype=np.int8)
    points = np.zeros(done.size, dtype=np.int8)
    for g in range(done.size):
        if done[g]:
            continue
        me = np.int64(to_move[g])
        them = 1 - me
        action, marker, opp_marker = np.int64(actions[g]), markers[g, me], markers[g, them]
        bits, count = np.uint64(0), 0
        if action == t.pass_action:
            kind = PASS
            marker = pass_landing(marker, opp_marker, t)
        else:
            slot, placement = divmod(action, placements)
            kind = FIRST
            if slot > 0:
                marker = (marker + t.moves[slot - 1]) % track
                kind = t.track_kind[marker]
            bits, count = t.placement_bits[placement], t.placement_size[placement]
        own, opp = stones[g, me] | bits, stones[g, them] & ~bits
        stones[g, me], stones[g, them], markers[g, me] = own, opp, marker
        supply[g, me] -= count
        actions_of_kind[g, me, kind] += 1
        placed[g, me] += count
        if kind == OVERGROW:
            lost[g, them] += 1
        kinds[g] = kind
        points[g] = count
        won, reason = check_end(me, own, opp, supply[g, me], t, codes)
        if reason:
            winner[g], end[g], done[g] = won, reason, True
        turn[g] += 1
        to_move[g] = them
        # rules §6.3, after placements only: a pass leaves a position that was not blocked as it was (the passes
        # that follow are the same). The usual case is settled here, on scalars: a move of the next mover lands
        # on grow and it has a free cell beside its flowers; else :func:`blocked` decides.
        if not reason and kind != PASS and turn[g] >= 2:
            grows = (t.reach[markers[g, them], markers[g, me]] >> GROW) & 1
            if grows:
                closed = (area0 if opp & area0 else np.uint64(0)) | (area1 if opp & area1 else np.uint64(0))
                grows = (dilate_bits(opp, full, right, left, columns, True) & ~(own | opp) & ~closed & full) != 0
            if not grows and blocked(stones[g, 0], stones[g, 1], markers[g, 0], markers[g, 1], supply[g, 0],
                                     supply[g, 1], them, t):
                mine, theirs = popcount(stones[g, 0]), popcount(stones[g, 1])
                winner[g] = 0 if mine > theirs else 1 if mine < theirs else codes[2]
                end[g], done[g] = codes[3], True
    return kinds, points
