"""The batched engine's invariants (:meth:`sims.vorex.rules.VorexEngine.invariants`): what holds in every position
random play reaches, checked by the conformance tests after every step."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from sims.vorex.config import ARID, TILE_HEXES
from sims.vorex.kernels import EMPTY, RUIN
from sims.vorex.tables import group_labels, pack_bits, production_totals

if TYPE_CHECKING:
    from sims.vorex.rules import VorexEngine, VorexState


def invariants(engine: VorexEngine, state: VorexState) -> dict[str, np.ndarray]:
    """The engine's invariants (:meth:`VorexEngine.invariants`): named bool ``[B]`` checks."""
    cfg, H = engine.config, engine.H
    start = np.array(cfg.initial_supply(engine.player_count), dtype=np.int64)
    start[0] += sum(cfg.seat_start_light(engine.player_count))
    total = state.supply.astype(np.int64) + state.resources.sum(axis=1)
    flowers = np.stack([(state.flower[:, :H] == s).sum(axis=1) for s in range(engine.players)], axis=1)
    budget = np.full(engine.players, cfg.flowers)
    if engine.solo:
        budget[1] = cfg.weed_flowers  # the weed's seat
    tile = state.tile[:, :H]
    on_map = np.zeros((state.size, engine.tile_count), dtype=np.int64)
    for t in range(engine.tile_count):
        on_map[:, t] = (tile == t).sum(axis=1)
    elsewhere = np.zeros_like(on_map)
    unseen = np.arange(state.pile.shape[1])[None, :] >= state.pile_pointer[:, None]
    for source in (np.where(unseen, state.pile, -1), state.face_up, state.setup_tiles.reshape(state.size, -1)):
        for t in range(engine.tile_count):
            elsewhere[:, t] += (source == t).sum(axis=1)
    ruins = tile == RUIN
    ruin_nb = state.tile[:, engine.board.neighbours[:H]] >= 0  # [B, H, 6]
    return {
        "resources conserved": (total == start[None, :]).all(axis=1),
        "no negative resources": (state.resources >= 0).all(axis=(1, 2)) & (state.supply >= 0).all(axis=1),
        "flowers conserved": ((flowers + state.flowers_left) == budget[None, :]).all(axis=1)
                             & (state.flowers_left >= 0).all(axis=1),
        "a tile is 4 hexes or off the map": np.isin(on_map, (0, TILE_HEXES)).all(axis=1)
                                             & (elsewhere <= 1).all(axis=1)
                                             & (((on_map > 0) & (elsewhere > 0)).sum(axis=1) == 0),
        "ruins are surrounded by tiles": (~ruins | ruin_nb.all(axis=2)).all(axis=1),
        "group labels are the smallest hex of each group":
            (state.group[:, :H] == group_labels(state.flower, engine.board.neighbours_ext)[:, :H]).all(axis=1),
        "flowers only on stumps and ruins": ((state.flower[:, :H] < 0) | ruins
                                             | (state.kind[:, :H] > ARID)).all(axis=1),
        "kept arrays match the map": kept_arrays_match(engine, state),
    }


def kept_arrays_match(engine: VorexEngine, state: VorexState) -> np.ndarray:
    """bool ``[B]``: production, covered and stump equal a rebuild from the map
    (:meth:`VorexEngine.forget_cache`)."""
    rows = np.arange(state.size)
    production = production_totals(state.flower, state.kind, state.group, rows)  # at group labels, 0 elsewhere
    stump = np.where(state.kind > ARID, state.tile.astype(np.int64) * TILE_HEXES + state.part, -1)
    return ((state.covered == pack_bits(state.tile != EMPTY)).all(axis=1)
            & (state.stump == stump).all(axis=1)
            & (state.production == production).all(axis=1))
