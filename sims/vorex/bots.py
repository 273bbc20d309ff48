"""Vorex bots, batched: random, greedy (one ply) and planner (greedy rollouts).

The greedy evaluation of a position for seat ``s`` reads only public state
(the map, resources held) and is, in :data:`~sims.vorex.config.WEIGHT_NAMES`
order, the float64 sum ``w_score * score + w_flowers * flowers + ...`` of:

* ``score``: the seat's points if the game ended now (solo weed: minus the
  player's points, the weed's own are always 0);
* ``flowers``: the seat's flowers on the map;
* ``production``: the seat's flowers on production stumps (light included);
* ``resources``: resources held (all four kinds); ``light``: light held;
* ``tiles``: tiles on the map. Within one decision only the mover places
  tiles, so this ranks actions exactly as "tiles placed by the seat" would,
  and it can be read from a snapshot.

``reference_bots`` computes the same numbers from the reference engine's
snapshot, so both choose the same action.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import numpy as np

from sims.core.choice import ScoredBot
from sims.core.engine import BatchedBot
from sims.core.planner import WIN_BONUS, RolloutPlanner, reshuffle_unseen
from sims.core.rng import seat_uniforms, uniforms_at
from sims.vorex.config import ARID, GREEN, ROTATIONS, TILE_HEXES, WEIGHT_NAMES
from sims.vorex.rules import (
    ACTION,
    EMPTY,
    FIRST_PRODUCTION,
    LAST_PRODUCTION,
    SETUP,
    WEED,
    WEED_EXPAND,
    VorexEngine,
    VorexState,
    pack_bits,
    score_points,
)

CHUNK = 16384  # branched positions evaluated at once (bounds memory)


def evaluate(engine: VorexEngine, state: VorexState, seats: np.ndarray, weights: Mapping[str, float]) -> np.ndarray:
    """float64 ``[n]``: the greedy evaluation of every game of ``state`` for seat ``seats[i]``."""
    return weigh(features(engine, state, seats), weights)


def features(engine: VorexEngine, state: VorexState, seats: np.ndarray) -> dict[str, np.ndarray]:
    """The evaluation's features (int64 ``[n]`` each, :data:`WEIGHT_NAMES`) of every game for seat ``seats[i]``."""
    n = state.size
    index = np.arange(n)
    H = engine.H
    points = score_points(engine, state.tile, state.part, state.kind, state.flower, state.group, state.green,
                          state.brown)
    total = sum(points.values())
    score = total[index, seats]
    if engine.solo:
        score = np.where(seats == WEED, -total[:, 0], score)
    mine = state.flower[:, :H] == seats[:, None]
    kind = state.kind[:, :H]
    return {
        "score": score,
        "flowers": mine.sum(axis=1),
        "production": (mine & (kind >= FIRST_PRODUCTION) & (kind <= LAST_PRODUCTION)).sum(axis=1),
        "resources": state.resources[index, seats].astype(np.int64).sum(axis=1),
        "light": state.resources[index, seats, 0].astype(np.int64),
        "tiles": state.tiles_on_map.astype(np.int64),
    }


def weigh(found: Mapping[str, np.ndarray], weights: Mapping[str, float]) -> np.ndarray:
    """float64: the weighted sum of the features, term by term in :data:`WEIGHT_NAMES` order."""
    value = np.zeros(np.shape(found["score"]), dtype=np.float64)
    for name in WEIGHT_NAMES:
        value = value + float(weights.get(name, 0.0)) * found[name].astype(np.float64)
    return value


def placement_features(engine: VorexEngine, state: VorexState, games: np.ndarray, actions: np.ndarray):
    """The features after ``place`` actions (pairs), computed without playing them, where that is exact.

    Returns ``(direct, found)``: ``direct`` [m] marks the pairs computed here and
    ``found`` their features. Exact for an expand (not a setup placement) that
    forms no ruin: the step then only adds the tile (its hexes and ``tiles``)
    and its beetles; no flower, group, ruin or other tile changes, so among the
    points only G1 (flowers losing their last open neighbour) and G3 (flowers
    reaching 2 arid neighbours) move, and only for flowers next to the tile.
    """
    board, P = engine.board, engine.P
    direct = np.zeros(games.size, dtype=bool)
    phase = state.phase[games]
    candidate = (actions >= engine.offsets["place"]) & (actions < engine.offsets["draw"]) & (phase != SETUP)
    if not candidate.any():
        return direct, {}
    pick = np.nonzero(candidate)[0]
    unique, where = np.unique(games[pick], return_inverse=True)
    slot, within = np.divmod(actions[pick] - engine.offsets["place"], P * ROTATIONS)
    tiles = state.face_up[games[pick], slot].astype(np.int64)
    shape = engine.tile_shape[tiles]
    movers = state.to_move[unique].astype(np.int64)
    weed = (movers == WEED) if engine.solo else np.zeros(unique.size, dtype=bool)
    scorer = np.where(weed, 0, movers)  # whose points the score is (the weed's score is minus the player's)
    # per hex of each game, packed in one byte: empty neighbours (bits 0-2), covered (3), a flower of the
    # scorer (4), arid neighbours (5-7)
    W = engine.H + 2
    covered = state.tile[unique] != EMPTY
    open_count = (~covered[:, board.neighbours_ext]).sum(axis=2, dtype=np.uint8)
    arid = (state.kind[unique][:, board.neighbours_ext] == ARID).sum(axis=2, dtype=np.uint8)
    info = (open_count | covered.astype(np.uint8) << 3 | (state.flower[unique] == scorer[:, None]).astype(np.uint8) << 4
            | arid << 5)
    # [M, m] layout (around hex, candidate): the sums over around hexes run down contiguous rows
    placement = shape * (P * ROTATIONS) + within
    M = board.around.shape[2]
    around_hex = np.take(board.around.reshape(-1, M).T, placement, axis=1)  # [M, m]
    around_hex += where * W
    around = info.ravel()[around_hex]
    # the tile takes the hex's last empty neighbours
    closing = (around & 7) == np.take(board.around_touch.reshape(-1, M).T, placement, axis=1)
    ruin = (closing & ((around & 8) == 0)).any(axis=0)
    flower = (around & 16) > 0
    green = state.green[unique[where]]
    delta = np.zeros(pick.size, dtype=np.int64)
    g1 = green == GREEN.index("G1")
    if g1.any():
        delta -= np.where(g1, (flower & closing).sum(axis=0), 0)
    g3 = green == GREEN.index("G3")
    if g3.any():
        arid_bits = ((engine.tile_kind == ARID) @ (1 << np.arange(TILE_HEXES))).astype(np.uint8)  # bit i: hex i arid
        arid_cells = arid_bits[tiles]
        touching = np.take(board.around_cell_bits.reshape(-1, M).T, shape * ROTATIONS + within % ROTATIONS, axis=1)
        added = POPCOUNT4[touching & arid_cells]
        before = around >> 5
        reached = flower & (before < 2) & (before + added >= 2)
        delta += np.where(g3, reached.sum(axis=0), 0)
    base = features(engine, branch(state, unique, caches=False), movers)
    score = base["score"][where] + np.where(weed[where], -delta, delta)

    g = games[pick]
    seats = movers[where]
    beetles = np.where((state.phase[g] == WEED_EXPAND)[:, None], 0, engine.tile_beetles[tiles])
    got = np.minimum(beetles, state.supply[g]).astype(np.int64)
    held = state.resources[g, seats].astype(np.int64) + got
    keep = ~ruin
    direct[pick[keep]] = True
    found = {
        "score": score[keep],
        "flowers": base["flowers"][where[keep]],
        "production": base["production"][where[keep]],
        "resources": (held[:, 0] + held[:, 1] + held[:, 2] + held[:, 3])[keep],
        "light": held[keep, 0],
        "tiles": base["tiles"][where[keep]] + 1,
    }
    return direct, found


# SELECT_BIT[b, r]: the position of the r-th set bit (ascending) of byte b
SELECT_BIT = np.array([[[i for i in range(8) if b >> i & 1][r] if r < bin(b).count("1") else 0 for r in range(8)]
                       for b in range(256)], dtype=np.int64)


def _kth_bit(words: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Position of the ``k``-th set bit (ascending; bit j % 64 of word j // 64) of each row of uint64 ``words``
    ``[m, K]``; every row has more than ``k[i]``."""
    index = np.arange(words.shape[0])
    counts = np.bitwise_count(words)
    total = np.cumsum(counts, axis=1, dtype=np.int64)
    word = np.argmax(total > k[:, None], axis=1)
    k = k - (total[index, word] - counts[index, word])
    found = words[index, word].astype("<u8").view(np.uint8).reshape(-1, 8)
    counts = np.bitwise_count(found)
    total = np.cumsum(counts, axis=1, dtype=np.int64)
    byte = np.argmax(total > k[:, None], axis=1)
    k = k - (total[index, byte] - counts[index, byte])
    return word * 64 + byte * 8 + SELECT_BIT[found[index, byte], k]


POPCOUNT4 = np.array([bin(x).count("1") for x in range(16)], dtype=np.uint8)
CACHES = ("place_cache", "cache_valid", "bloom_cache", "bloom_stamp")


def branch(state: VorexState, rows: np.ndarray, caches: bool = True) -> VorexState:
    """:func:`~sims.core.engine.take_games`, not logging; ``caches=False`` leaves out the kept legal placements
    and blooms (they are refilled when needed; a tile placement drops them anyway)."""
    values = {}
    for item in dataclasses.fields(state):
        value = getattr(state, item.name)
        if item.name in CACHES and not caches:
            values[item.name] = np.zeros((rows.size,) + value.shape[1:], dtype=value.dtype)
        elif isinstance(value, np.ndarray) and value.ndim >= 1 and value.shape[0] == state.size:
            values[item.name] = value[rows]
        elif isinstance(value, list):
            values[item.name] = []
        else:
            values[item.name] = value
    if not caches:
        values["bloom_stamp"] -= 1
    values["logging"] = False
    return type(state)(**values)


class RandomBot(BatchedBot):
    """Uniform among legal actions: with ``n`` legal actions in ascending order and
    ``u = uniforms(seed, "bot/<seat>", decisions)[:, 0]``, legal action number ``min(floor(u * n), n - 1)``;
    ``<seat>`` is the seat to move, so one call chooses for every random seat."""

    engine: VorexEngine
    plays_any_seat = True

    def act(self, state: VorexState, active: np.ndarray) -> np.ndarray:
        engine = self.engine
        chosen = np.full(state.size, -1, dtype=np.int64)
        rows = np.nonzero(active & ~state.done)[0]
        if rows.size == 0:
            return chosen
        blooms, places, draw, decline = engine.legal_blocks(state, rows, packed=True)
        blooms = pack_bits(blooms)
        bloom_count = np.bitwise_count(blooms).sum(axis=1, dtype=np.int64)
        places = places.reshape(rows.size, -1)  # [n, 3 * place_words]: slot-major bits
        place_count = np.bitwise_count(places).sum(axis=1, dtype=np.int64)
        count = bloom_count + place_count + draw + decline
        u = seat_uniforms(state.seeds[rows], state.to_move[rows], state.decisions[rows])
        k = np.minimum((u * count).astype(np.int64), count - 1)  # as sims.core.choice.choose_uniform
        action = np.where(draw, engine.config.draw_action, engine.config.decline_action)
        bloom = np.nonzero(k < bloom_count)[0]
        if bloom.size:
            action[bloom] = engine.offsets["bloom"] + _kth_bit(blooms[bloom], k[bloom])
        k = k - bloom_count
        place = np.nonzero((k >= 0) & (k < place_count))[0]
        if place.size:
            slot, within = np.divmod(_kth_bit(places[place], k[place]), engine.board.place_rows)
            action[place] = engine.offsets["place"] + slot * engine.P * ROTATIONS + within
        chosen[rows] = action
        return chosen


class GreedyBot(ScoredBot):
    """One ply: every legal action is applied to a copy of the game and the position evaluated for the mover.

    The highest evaluation wins (see the module docstring); equal values go to
    the highest noise ``uniforms_at(seed, "bot/<seat>", decisions, action)``.
    The same choice as ``reference_bots.ReferenceGreedyBot``.
    """

    engine: VorexEngine

    def __init__(self, engine: VorexEngine, seat: int, weights: Mapping[str, float] | None = None,
                 stream: str | None = None):
        super().__init__(engine, seat, weights)
        self.stream = stream or f"bot/{seat}"

    def scored_actions(self, state: VorexState, active: np.ndarray):
        """Flat ``games, actions, value, noise`` over every legal action of the active games, by game."""
        engine = self.engine
        rows = np.nonzero(active & ~state.done)[0]
        games, actions = engine.legal_pairs(state, rows)
        value = np.empty(games.size, dtype=np.float64)
        direct, found = placement_features(engine, state, games, actions)
        if direct.any():
            value[direct] = weigh(found, self.weights)
        place = (actions >= engine.offsets["place"]) & (actions < engine.offsets["draw"])
        for played, caches in ((np.nonzero(~direct & place)[0], False), (np.nonzero(~place)[0], True)):
            for start in range(0, played.size, CHUNK):
                part = played[start:start + CHUNK]
                after = branch(state, games[part], caches)
                movers = after.to_move.astype(np.int64)
                engine.step(after, actions[part])
                value[part] = evaluate(engine, after, movers, self.weights)
        noise = uniforms_at(state.seeds[games], self.stream, state.decisions[games], actions)
        return games, actions, value, noise


class PlannerBot(RolloutPlanner, GreedyBot):
    """Rollouts: the best ``candidates`` greedy actions, each played on by greedy bots.

    A rollout runs until this seat's next ACTION decision of a later turn, the
    end of the game, or ``depth`` decisions. The pile below the face-up tiles
    is reshuffled first with the planner's own stream (its order is hidden).
    Every seat in a rollout plays greedy with the stream ``plan/<my seat>/<seat>``.
    A candidate is worth my evaluation at the rollout's end (a finished game:
    winning first), ties go to the greedy value, then the noise.
    """

    default_candidates = 4
    default_depth = 8
    rollout_bot_class = GreedyBot
    turn_phase = ACTION

    def worth(self, branch: VorexState) -> np.ndarray:
        """My evaluation; a finished game's rank counts first."""
        worth = evaluate(self.engine, branch, np.full(branch.size, self.seat, dtype=np.int64), self.weights)
        if branch.done.any():
            ranks = self.engine.results(branch).rank[:, self.seat].astype(np.float64)
            worth = np.where(branch.done & (ranks > 0), worth - WIN_BONUS * ranks, worth)
        return worth

    def hide_unseen(self, branch: VorexState) -> None:
        """Shuffle the tiles not yet revealed (which tiles remain is public, their order is not)."""
        branch.pile = reshuffle_unseen(branch.pile, branch.pile_pointer, branch.seeds, f"plan/{self.seat}/pile",
                                       branch.decisions)
