"""Vorex kernels against plainer readings: the lane scan of legal placements against the boundary walk of each
candidate, and the greedy's setup test against playing the placement."""

from __future__ import annotations

import numpy as np
from numba import njit

from sims.core.bots import RandomBot
from sims.core.rng import game_seeds
from sims.vorex import config
from sims.vorex.config import ROTATIONS
from sims.vorex.kernels import (EMPTY, RUIN, _hex_states, _open_hexes, _scan_placements, _setup_goes_on, bloom_payment,
                                legal_placements, new_grid)
from sims.vorex.reference import VorexGame
from sims.vorex.rules import SETUP, VorexEngine, VorexState
from sims.vorex.tables import nonzero2, unpack_words

CONFIG = config.load()


def random_step(engine: VorexEngine, state: VorexState, movers: list[RandomBot]) -> np.ndarray:
    """Every running game takes its mover's random action; returns which games ran."""
    active = ~state.done
    actions = np.full(state.size, -1)
    for seat, bot in enumerate(movers):
        turn = active & (state.to_move == seat)
        if turn.any():
            actions[turn] = bot.act(state, turn)[turn]
    engine.step(state, actions)
    state.decisions[active] += 1
    return active


def test_setup_goes_on_matches_the_engine_after_the_placement():
    """Every legal setup placement of random 2- and 3-player deals: :func:`_setup_goes_on` (the map's grid states
    updated around the covered hexes) says whether another setup tile of the mover fits, as the engine's
    legal placements say on the map with the tile and its ruins laid (and it leaves the grid states as they were)."""
    checked = {True: 0, False: 0, None: 0}  # None: no other setup tile left
    for players in (2, 3):
        engine = VorexEngine(CONFIG, players)
        board, tables = engine.board, engine.place_tables
        state = engine.init(game_seeds(23, np.arange(4)))
        movers = [RandomBot(engine, seat) for seat in range(engine.players)]
        states = np.zeros(state.tile.shape[1], np.int64)
        grid = (np.zeros(tables[6].size, np.int64), np.zeros(-(-tables[6].size // 64), np.uint64),
                np.zeros(-(-tables[6].size // 64), np.uint64))
        base = (np.zeros(grid[1].size, np.uint64), np.zeros(grid[1].size, np.uint64))
        row = np.zeros(board.place_rows // 64, np.uint64)
        saved = np.zeros(512, np.int64)
        while (state.phase == SETUP).any() and not state.done.all():
            for g in np.nonzero((state.phase == SETUP) & ~state.done)[0]:
                mover = int(state.to_move[g])
                tiles = state.setup_tiles[g, mover].astype(np.int64)
                _hex_states(g, state.tile, tables[1], states)
                _open_hexes(states, tables, grid[0], base[0], base[1])
                before = grid[0].copy()
                legal = engine.place_legal(state, np.array([g]), tiles[None, :])[0]
                for slot, p in zip(*nonzero2(legal)):
                    shape = engine.tile_shape[tiles[slot]]
                    enclosed = engine.enclosed(state, np.array([g]), board.around[shape, p][None, :],
                                               board.around_touch[shape, p][None, :])[0]
                    covered = np.r_[board.cells[shape, p], board.around[shape, p][enclosed]].astype(np.int64)
                    tile = state.tile[g][None, :].copy()
                    tile[0, covered] = 0  # any tile: legality reads only which hexes are covered
                    others = [t for k, t in enumerate(tiles) if k != slot and t >= 0]
                    shapes = np.array([engine.tile_shape[t] for t in others], dtype=np.int64)
                    expected = bool(legal_placements(np.zeros(shapes.size, np.int64), shapes, True, tile,
                                                     np.ones(1, np.int16), tables, row.size).any())
                    found = _setup_goes_on(g, mover, slot, state.setup_tiles, engine.tile_shape, covered,
                                           covered.size, tables, base, grid, saved, row)
                    assert found == expected, (players, g, slot, p)
                    assert np.array_equal(grid[0], before)
                    checked[expected if shapes.size else None] += 1
            random_step(engine, state, movers)
    assert checked[True] >= 1000 and checked[None] >= 500, checked


@njit(cache=True)
def walked_placements(games, shapes, tile, tiles_on_map, place_tables, words):
    """:func:`legal_placements` the plain way: every free candidate touching the forest walks its boundary
    (:func:`_scan_placements`, each a boundary walk of its own)."""
    legal = np.zeros((games.size, words), np.uint64)
    states, positions, free, edge = new_grid(place_tables)
    for i in range(games.size):
        _hex_states(games[i], tile, place_tables[1], states)
        _open_hexes(states, place_tables, positions, free, edge)
        _scan_placements(shapes[i], tiles_on_map[games[i]] == 0, False, positions, free, edge, place_tables, legal[i])
    return legal


def played_maps(engine: VorexEngine, seed: int, games: int) -> tuple[np.ndarray, np.ndarray]:
    """The maps (``tile``, ``tiles_on_map``) after every step of random games, the empty map first."""
    state = engine.init(game_seeds(seed, np.arange(games)))
    movers = [RandomBot(engine, seat) for seat in range(engine.players)]
    tiles, counts = [np.full_like(state.tile[:1], EMPTY)], [np.zeros(1, state.tiles_on_map.dtype)]
    while not state.done.all():
        active = random_step(engine, state, movers)
        tiles.append(state.tile[active])
        counts.append(state.tiles_on_map[active])
    return np.concatenate(tiles), np.concatenate(counts)


def assert_scans_agree(engine: VorexEngine, tile: np.ndarray, counts: np.ndarray) -> int:
    """The lane scan and the walks find the same legal placements of every shape on every map; the placements
    found (so a test can say it saw some)."""
    shapes = len(engine.config.shapes)
    games = np.repeat(np.arange(tile.shape[0]), shapes).astype(np.int64)
    kinds = np.tile(np.arange(shapes), tile.shape[0]).astype(np.int64)
    tile, counts = np.ascontiguousarray(tile), np.ascontiguousarray(counts)
    words = engine.board.place_rows // 64
    fast = legal_placements(games, kinds, False, tile, counts, engine.place_tables, words)
    plain = walked_placements(games, kinds, tile, counts, engine.place_tables, words)
    wrong = np.nonzero((fast != plain).any(axis=1))[0]
    assert wrong.size == 0, [(int(games[i]), int(kinds[i])) for i in wrong[:5]]
    return int(np.unpackbits(fast.view(np.uint8)).sum())


def assert_reference_agrees(engine: VorexEngine, tile: np.ndarray, counts: np.ndarray, maps: list[int]) -> None:
    """The lane scan finds the legal placements of the reference engine's reading (§3.1, §3.2) on played maps
    ``maps`` (the reference's holes are searched from an open forest, as play keeps it)."""
    cfg = engine.config
    game = VorexGame(cfg, engine.players, 0)
    tiles = [list(cfg.tile_shape).index(s) for s in range(len(cfg.shapes))]
    games = np.repeat(np.array(maps, np.int64), len(tiles))
    fast = legal_placements(games, np.tile(np.arange(len(tiles)), len(maps)), False, np.ascontiguousarray(tile),
                            np.ascontiguousarray(counts), engine.place_tables, engine.board.place_rows // 64)
    for i, g in enumerate(games):
        game.tile_at = [int(x) for x in tile[g, :engine.board.H]]
        game.placed_tiles = [0] * int(counts[g])
        expected = [a * ROTATIONS + k for a in range(engine.P) for k in range(ROTATIONS)
                    if game.placement_ruins(game.placement_cells(tiles[i % len(tiles)], a, k)) is not None]
        assert np.flatnonzero(unpack_words(fast[i], engine.P * ROTATIONS)).tolist() == expected, (int(g), i)


def test_lane_scan_finds_the_walked_placements_in_played_games():
    """Every map of seeded random games at 1 to 4 players (first tiles included), on the default table and on the
    smallest one (radius 4, where the forest reaches the table's edge); some also against the reference engine."""
    for overrides in ((), ("map.radius=4",)):
        cfg = config.load(overrides=overrides)
        for players in (1, 2, 3, 4):
            engine = VorexEngine(cfg, players)
            tile, counts = played_maps(engine, 40 + players, 3)
            assert (counts == 0).any() and counts.max() >= 10
            if overrides:  # tiles on the table's last playable ring
                ring = [h for h in range(engine.P) if config.distance(*cfg.hex_coords[h]) == cfg.radius]
                assert (tile[:, ring] != EMPTY).any()
            assert assert_scans_agree(engine, tile, counts) > 1000
            assert_reference_agrees(engine, tile, counts, [0, int(np.argmax(counts >= 8)), counts.size - 1])


def test_lane_scan_finds_the_walked_placements_on_ragged_maps():
    """Random maps full of holes, gaps and narrow passages (no rule forms them; legality reads only which hexes are
    covered): a tile or ruin on each playable hex at chance 0.15 to 0.6, the centre covered."""
    cfg = config.load(overrides=("map.radius=5",))
    engine = VorexEngine(cfg, 2)
    rng = np.random.default_rng(7)
    chance = rng.uniform(0.15, 0.6, size=(400, 1))
    tile = np.full((400, engine.board.H + 2), EMPTY, np.int16)
    tile[:, :engine.P] = np.where(rng.random((400, engine.P)) < chance, 0, EMPTY)
    tile[::7, :engine.P][tile[::7, :engine.P] == 0] = RUIN
    tile[:, cfg.centre] = 0
    counts = np.ones(400, np.int16)
    assert assert_scans_agree(engine, tile, counts) > 10000


def test_lane_scan_on_known_positions_touching_the_forest_twice():
    """A bar laid E from the centre (cells (0,0) to (3,0)) on two connected forests that each meet its boundary in two
    runs: one whose gap on the left holds 5 empty hexes (closed off: illegal), one whose gap there is the single hex
    (-1,0), enclosed (legal, a ruin there): the blocked lane (covered, or enclosed by the tile) makes it one run. The
    lane scan, the walk of each candidate and the reference engine agree."""
    engine = VorexEngine(CONFIG, 2)
    number = CONFIG.hex_number
    closing = [(2, -1), (2, -2), (1, -2), (0, -2), (-1, -1), (-2, 0), (-2, 1), (-2, 2), (-1, 2), (0, 2), (1, 1)]
    enclosing = [(2, -1), (1, -1), (0, -1), (-1, -1), (-2, 0), (-2, 1), (-1, 1), (0, 1)]
    tile = np.full((2, engine.board.H + 2), EMPTY, np.int16)
    for g, forest in enumerate((closing, enclosing)):
        tile[g, [number[h] for h in forest]] = 0
    counts = np.ones(2, np.int16)
    bar = list(CONFIG.tile_shape).index(0)
    p = number[(0, 0)] * ROTATIONS  # the bar's anchor, rotation 0 (E)
    games, shapes = np.arange(2, dtype=np.int64), np.zeros(2, np.int64)
    words = engine.board.place_rows // 64
    fast = legal_placements(games, shapes, False, tile, counts, engine.place_tables, words)
    walked = walked_placements(games, shapes, tile, counts, engine.place_tables, words)
    assert np.array_equal(fast, walked)
    assert [bool(fast[g, p >> 6] >> np.uint64(p & 63) & np.uint64(1)) for g in range(2)] == [False, True]
    game = VorexGame(CONFIG, 2, 0)
    ruins = []
    for g in range(2):
        game.tile_at = [int(x) for x in tile[g, :engine.board.H]]
        game.placed_tiles = [0]
        ruins.append(game.placement_ruins(game.placement_cells(bar, number[(0, 0)], 0)))
    assert ruins == [None, [number[(-1, 0)]]]


@njit(cache=True)
def paid_blooms(rows, free, to_move, stump, flower, group, tile, part, resources, production, flowers_left,
                tile_cost, neighbours, legal):
    """:func:`legal_blooms` the plain way: every free stump priced by :func:`bloom_payment`."""
    pay = np.zeros(8, np.int64)
    for i in range(rows.size):
        g = rows[i]
        seat = to_move[g]
        for h in range(legal.shape[1]):
            ok = (free[i] or flowers_left[g, seat] > 0) and stump[g, h] >= 0 and flower[g, h] < 0
            if ok and not free[i]:
                bloom_payment(g, h, np.int64(seat), flower, group, tile, part, resources, production, tile_cost,
                              neighbours, pay)
                ok = pay[0] <= resources[g, seat, 0]
            legal[i, h] = ok


def test_legal_blooms_price_every_free_stump_as_the_payment_does():
    """On the states of seeded random games at 1 to 4 players, the legal blooms of every running game's mover, paid
    and free (a weed bloom), are the free stumps whose payment's light the mover holds, each priced in full."""
    for players in (1, 2, 3, 4):
        engine = VorexEngine(CONFIG, players)
        state = engine.init(game_seeds(60 + players, np.arange(6)))
        movers = [RandomBot(engine, seat) for seat in range(engine.players)]
        counted = {False: 0, True: 0}  # legal blooms seen where some stump was refused for its price, and others
        while not state.done.all():
            rows = np.flatnonzero(~state.done)
            for free in (False, True):
                flags = np.full(rows.size, free)
                fast = engine.bloom_options(state, rows, flags)
                plain = np.zeros_like(fast)
                paid_blooms(rows, flags, state.to_move, state.stump, state.flower, state.group, state.tile, state.part,
                            state.resources, state.production, state.flowers_left, engine.tile_cost,
                            engine.board.neighbours, plain)
                assert np.array_equal(fast, plain), (players, free)
                stumps = (state.stump[rows, :engine.P] >= 0) & (state.flower[rows, :engine.P] < 0)
                counted[bool((stumps & ~fast).any())] += int(fast.sum())
            random_step(engine, state, movers)
        assert counted[True] > 20 and counted[False] > 20, (players, counted)
