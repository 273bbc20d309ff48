"""Vorex bot kernels against the engine: the greedy's setup test decides as playing the placement does."""

from __future__ import annotations

import numpy as np

from sims.core.bots import RandomBot
from sims.core.rng import game_seeds
from sims.vorex import config
from sims.vorex.kernels import _hex_states, _open_hexes, _setup_goes_on, legal_placements
from sims.vorex.rules import SETUP, VorexEngine
from sims.vorex.tables import nonzero2

CONFIG = config.load()


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
            active = ~state.done
            actions = np.full(state.size, -1)
            for seat, bot in enumerate(movers):
                turn = active & (state.to_move == seat)
                if turn.any():
                    actions[turn] = bot.act(state, turn)[turn]
            engine.step(state, actions)
            state.decisions[active] += 1
    assert checked[True] >= 1000 and checked[None] >= 500, checked
