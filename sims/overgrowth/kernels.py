"""Compiled (numba) pieces of the batched bots: connection distances and greedy scoring, one game at a time.

They read the same bitboards as ``rules.py`` (bit ``row * columns + col``)
through :class:`Tables`, plain arrays of fixed dtypes built once per config,
and loop over the game axis instead of broadcasting over it, so each game and
placement stops its flood as soon as it is settled. The batched engine still
decides legality; these functions only score and choose.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from sims.core.grid import KING
from sims.core.rng import _GOLDEN, _MUL1, _MUL2, _SLOT_OFFSET, _TOP53

WIN, LOSS = 1e9, -1e9


class Tables(NamedTuple):
    """What the kernels need of an Overgrowth config, as numpy arrays."""

    boards: np.ndarray  # uint64 [6]: full board, cells that may step right / left, areas 0 and 1, columns
    placement_bits: np.ndarray  # uint64 [placements]
    placement_size: np.ndarray  # int64 [placements]
    pair_of_left_cell: np.ndarray  # int64 [cells]: pair placement with that left cell, -1 in the last column
    weights: np.ndarray  # float64 [3]: own distance, opponent distance, flowers
    king: bool  # connection by the 8 neighbours (else the 4 orthogonal ones)
    far: int  # the distance of an impossible connection
    pass_action: int


def make_tables(geo, weights) -> Tables:
    """:class:`Tables` of a ``rules.Geometry`` and a bot's weights mapping."""
    grid = geo.grid
    boards = np.array([grid.full, grid.shift(grid.full, 0, -1), grid.shift(grid.full, 0, 1),
                       geo.area[0], geo.area[1], grid.columns], dtype=np.uint64)
    return Tables(
        boards=boards,
        placement_bits=np.ascontiguousarray(geo.placement_bits, dtype=np.uint64),
        placement_size=np.ascontiguousarray(geo.placement_size, dtype=np.int64),
        pair_of_left_cell=np.ascontiguousarray(geo.pair_of_left_cell, dtype=np.int64),
        weights=np.array([weights["own_distance"], weights["opponent_distance"], weights["flowers"]],
                         dtype=np.float64),
        king=geo.connection is KING,
        far=int(geo.far),
        pass_action=int(geo.config.pass_action),
    )


@njit(cache=True, inline="always")
def mix64(z):
    """The splitmix64 finaliser of ``sims.core.rng.mix64`` on one uint64."""
    z = z + _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _MUL1
    z = (z ^ (z >> np.uint64(27))) * _MUL2
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def noise_stream(seed, purpose_key, counter):
    """The stream word of ``uniforms_at(seed, purpose, counter, ...)``; :func:`noise` adds the slot."""
    return mix64(mix64(seed ^ purpose_key) ^ mix64(np.uint64(counter)))


@njit(cache=True, inline="always")
def noise(stream, slot):
    """``uniforms_at`` for one slot of a stream word."""
    return np.float64(mix64(stream ^ mix64(np.uint64(slot) + _SLOT_OFFSET)) >> np.uint64(11)) * _TOP53


@njit(cache=True, inline="always")
def dilate(board, boards, king):
    """``board`` plus its neighbours (king or orthogonal steps), inside the board."""
    full, may_step_right, may_step_left, columns = boards[0], boards[1], boards[2], boards[5]
    sideways = ((board & may_step_right) << np.uint64(1)) | ((board & may_step_left) >> np.uint64(1))
    if king:
        wide = board | (sideways & full)
        return (wide | (wide << columns) | (wide >> columns)) & full
    return (board | sideways | (board << columns) | (board >> columns)) & full


@njit(cache=True)
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


@njit(cache=True, inline="always")
def popcount(board):
    """Set bits of one uint64 (the SWAR bit count)."""
    board = board - ((board >> np.uint64(1)) & np.uint64(0x5555555555555555))
    board = (board & np.uint64(0x3333333333333333)) + ((board >> np.uint64(2)) & np.uint64(0x3333333333333333))
    board = (board + (board >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((board * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True)
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


@njit(cache=True)
def position_scores(own, opp, supply_left, boards, weights, king, far):
    """:func:`position_score` of arrays of positions."""
    out = np.empty(own.size, dtype=np.float64)
    for i in range(own.size):
        out[i] = position_score(own[i], opp[i], supply_left[i], boards, weights, king, far)
    return out


@njit(cache=True)
def _game_actions(singles, pairs, own, opp, supply, stream, boards, placement_bits, placement_size,
                  pair_of_left_cell, weights, king, far, actions, scores, noises, cache):
    """Legal actions of one game in ascending order with their placement scores and noise; returns the count.

    ``singles`` and ``pairs`` are the game's per-slot placement bitboards;
    ``cache`` holds each placement's score (NaN until computed).
    """
    placements = placement_bits.size
    cache[:] = np.nan
    count = 0
    for slot in range(singles.size):
        for kind in range(2):
            board = singles[slot] if kind == 0 else pairs[slot]
            while board:
                low = board & (~board + np.uint64(1))
                cell = popcount(low - np.uint64(1))
                board ^= low
                placement = cell if kind == 0 else pair_of_left_cell[cell]
                if np.isnan(cache[placement]):
                    bits = placement_bits[placement]
                    cache[placement] = position_score(own | bits, opp & ~bits, supply - placement_size[placement],
                                                      boards, weights, king, far)
                action = slot * placements + placement
                actions[count] = action
                scores[count] = cache[placement]
                noises[count] = noise(stream, action)
                count += 1
    return count


@njit(cache=True)
def greedy_choices(singles, pairs, own, opp, supply, active, seeds, decisions, purpose_key, boards, placement_bits,
                   placement_size, pair_of_left_cell, weights, king, far, pass_action):
    """int64 ``[B]``: each active game's best-scoring legal action, ties to the highest noise; else the pass."""
    size, slots = singles.shape
    placements = placement_bits.size
    chosen = np.full(size, pass_action, dtype=np.int64)
    actions = np.empty(slots * placements, dtype=np.int64)
    scores = np.empty(slots * placements, dtype=np.float64)
    noises = np.empty(slots * placements, dtype=np.float64)
    cache = np.empty(placements, dtype=np.float64)
    for g in range(size):
        if not active[g]:
            continue
        stream = noise_stream(seeds[g], purpose_key, decisions[g])
        count = _game_actions(singles[g], pairs[g], own[g], opp[g], supply[g], stream, boards, placement_bits,
                              placement_size, pair_of_left_cell, weights, king, far,
                              actions, scores, noises, cache)
        best = -1
        for i in range(count):
            if best < 0 or scores[i] > scores[best] or (scores[i] == scores[best] and noises[i] >= noises[best]):
                best = i
        if best >= 0:
            chosen[g] = actions[best]
    return chosen


@njit(cache=True)
def scored_actions(singles, pairs, own, opp, supply, active, seeds, decisions, purpose_key, boards, placement_bits,
                   placement_size, pair_of_left_cell, weights, king, far):
    """Flat ``(games, actions, scores, noise)`` of every legal action of the active games, by game then action."""
    size, slots = singles.shape
    placements = placement_bits.size
    total = 0
    for g in range(size):
        if active[g]:
            for slot in range(slots):
                total += popcount(singles[g, slot]) + popcount(pairs[g, slot])
    games = np.empty(total, dtype=np.int64)
    actions = np.empty(total, dtype=np.int64)
    scores = np.empty(total, dtype=np.float64)
    noises = np.empty(total, dtype=np.float64)
    cache = np.empty(placements, dtype=np.float64)
    filled = 0
    for g in range(size):
        if not active[g]:
            continue
        stream = noise_stream(seeds[g], purpose_key, decisions[g])
        count = _game_actions(singles[g], pairs[g], own[g], opp[g], supply[g], stream, boards, placement_bits,
                              placement_size, pair_of_left_cell, weights, king, far,
                              actions[filled:], scores[filled:], noises[filled:], cache)
        games[filled:filled + count] = g
        filled += count
    return games, actions, scores, noises
