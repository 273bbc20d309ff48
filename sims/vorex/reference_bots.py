"""Vorex's bots for the reference engine; the batched bots (:mod:`sims.vorex.bots`) choose exactly the same actions.

They use the reference game only through the engine contract
(``legal_actions()``, ``apply()``, ``copy.deepcopy``, ``snapshot()``, ``to_move``,
``decisions``) plus its ``config`` and ``player_count`` (solo or not). The
objectives are derived from the seed as the spec's setup does. Random numbers
come from :mod:`sims.core.rng` with purpose ``"bot/<seat>"`` and the game's
decision counter.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence

import numpy as np

from sims.core.engine import ReferenceGame
from sims.core.ranking import OnePlyReferenceBot
from sims.core.reference_bots import ReferenceRandomBot  # noqa: F401 (the game's random bot)
from sims.core.rng import shuffle_order
from sims.vorex.config import ARID, BROWN, GREEN, HEX_KINDS, POINTS, WEIGHT_NAMES, VorexConfig

RUIN = -2
PRODUCTION = {HEX_KINDS.index(k) for k in ("light", "mushroom", "water", "insect")}


def objectives(config: VorexConfig, seed: int) -> tuple[str, str]:
    """The game's (green, brown) objective names, as setup draws them."""
    seeds = np.array([seed], dtype=np.uint64)
    green = (GREEN[int(shuffle_order(seeds, "objectives/green", 0, 5)[0, 0])] if config.green == "random"
             else config.green)
    brown = (BROWN[int(shuffle_order(seeds, "objectives/brown", 0, 5)[0, 0])] if config.brown == "random"
             else config.brown)
    return green, brown


def seat_points(config: VorexConfig, snapshot: Mapping, green: str, brown: str, solo: bool) -> list[int]:
    """Every seat's points if the game ended now (the weed's: 0), from a snapshot."""
    tiles, parts, flowers = snapshot["tile"], snapshot["part"], snapshot["flower"]
    seats = len(snapshot["flowers_left"])
    neighbours = [[int(n) for n in row] for row in config.neighbours]
    H = len(tiles)

    def kind(h: int) -> int:
        return config.tile_hex_kind[tiles[h], parts[h]] if tiles[h] >= 0 else -1

    kinds = [kind(h) for h in range(H)]
    near = [[n for n in neighbours[h] if n >= 0] for h in range(H)]
    labels = {}
    for h in range(H):  # groups: flood fill from each unlabelled flower
        if flowers[h] < 0 or h in labels:
            continue
        todo, labels[h] = [h], h
        while todo:
            x = todo.pop()
            for n in near[x]:
                if flowers[n] == flowers[h] and n not in labels:
                    labels[n] = h
                    todo.append(n)
    group_counts, results = [], []
    for s in range(seats):
        mine = [h for h in range(H) if flowers[h] == s]
        own = set(mine)
        placed = len(mine)
        stumps = sum(int(config.tile_hex_value[tiles[h], parts[h]]) for h in mine if kinds[h] == POINTS)
        g = {
            "G1": sum(1 for h in mine if any(tiles[n] == -1 for n in neighbours[h]) or -1 in neighbours[h]),
            "G2": 0,
            "G3": sum(1 for h in mine if sum(1 for n in near[h] if kinds[n] == ARID) >= 2),
            "G4": sum(1 for h in range(H) if tiles[h] == RUIN and any(n in own for n in near[h])),
            "G5": len({tiles[h] for h in mine if tiles[h] >= 0}),
            "none": 0,
        }
        per_tile: dict[int, list[int]] = {}
        for h in range(H):
            if tiles[h] >= 0 and kinds[h] > ARID:
                per_tile.setdefault(tiles[h], []).append(h)
        g["G2"] = 2 * sum(1 for hexes in per_tile.values() if all(flowers[h] == s for h in hexes))
        members: dict[int, list[int]] = {}
        for h in mine:
            members.setdefault(labels[h], []).append(h)
        group_counts.append(len(members))
        b = {
            "B2": 2 * sum(1 for h in mine if sum(1 for n in near[h] if flowers[n] >= 0 and flowers[n] != s) >= 2),
            "B3": 2 * sum(1 for hexes in members.values() if any(kinds[h] in PRODUCTION for h in hexes)),
            "B4": sum(1 for h in mine if sum(1 for n in near[h] if n in own) <= 2),
            "B5": 3 * sum(1 for hexes in members.values() if len(hexes) >= 3),
        }
        results.append((placed, stumps, g[green], b))
    most = max(group_counts)
    points = []
    for s, (placed, stumps, green_points, b) in enumerate(results):
        if solo and s == 1:
            points.append(0)
            continue
        b["B1"] = group_counts[s] + (2 if (solo or group_counts[s] == most) else 0)
        points.append(placed + stumps + green_points + b[brown])
    return points


def evaluate(config: VorexConfig, snapshot: Mapping, seat: int, green: str, brown: str, solo: bool,
             weights: Mapping[str, float]) -> float:
    """The greedy evaluation of a snapshot for ``seat`` (see :mod:`sims.vorex.bots`)."""
    points = seat_points(config, snapshot, green, brown, solo)
    tiles, parts, flowers = snapshot["tile"], snapshot["part"], snapshot["flower"]
    mine = [h for h, f in enumerate(flowers) if f == seat]
    held = snapshot["resources"][seat]
    features = {
        "score": -points[0] if solo and seat == 1 else points[seat],
        "flowers": len(mine),
        "production": sum(1 for h in mine if tiles[h] >= 0 and config.tile_hex_kind[tiles[h], parts[h]] in PRODUCTION),
        "resources": sum(held),
        "light": held[0],
        "tiles": len({t for t in tiles if t >= 0}),
    }
    value = 0.0
    for name in WEIGHT_NAMES:
        value = value + float(weights.get(name, 0.0)) * float(features[name])
    return value


class ReferenceGreedyBot(OnePlyReferenceBot):
    """One ply: the legal action whose resulting position evaluates best for the mover.

    For each legal action (ascending) the game is deep-copied, the action
    applied and the snapshot evaluated (:func:`evaluate`). The highest value
    wins; equal values go to the highest noise
    ``uniform_one(seed, f"bot/{seat}", game.decisions, slots=num_actions)[action]``.
    """

    def values(self, game: ReferenceGame, seed: int, legal: Sequence[int]) -> list[float]:
        config = game.config
        solo = getattr(game, "player_count", game.players) == 1
        green, brown = objectives(config, seed)
        me = game.to_move
        values = []
        for action in legal:
            after = copy.deepcopy(game)
            after.apply(action)
            values.append(evaluate(config, after.snapshot(), me, green, brown, solo, self.weights))
        return values
