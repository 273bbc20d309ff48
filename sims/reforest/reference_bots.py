"""Reforest's bots for the reference engine; they choose exactly what the batched bots choose.

They use only the reference contract (``legal_actions()``, ``apply()``,
``copy.deepcopy``, ``to_move``, ``turn``, ``done``, ``decisions``, the
``config`` the game was built with) and the spec's ``snapshot()`` dict. The
evaluation is the one of :mod:`sims.reforest.bots`, computed in plain Python
from a snapshot in the same order of float operations, so equal positions get
bit-identical values.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from sims.core.engine import ReferenceGame
from sims.core.ranking import OnePlyReferenceBot
from sims.core.reference_bots import ReferenceRandomBot  # noqa: F401 (the game's random bot)
from sims.reforest.config import DEFAULT_WEIGHTS, HAND_VALUE_SHARE, ROUNDS, ROW_SPACES, SPACE_ROW, ReforestConfig


class ReferenceGreedyBot(OnePlyReferenceBot):
    """One ply: each legal action applied to a copy, the turn finished with the lowest legal
    action at every further decision, the snapshot valued by :func:`evaluate`; the highest
    value wins, ties to the highest ``uniform_one(seed, f"bot/{seat}", decisions, slots=A)[action]``
    (ascending scan, a later action wins only when strictly better)."""

    def __init__(self, seat: int, weights=None):
        super().__init__(seat, weights)
        for name, value in DEFAULT_WEIGHTS.items():
            self.weights.setdefault(name, value)

    def values(self, game: ReferenceGame, seed: int, legal: Sequence[int]) -> list[float]:
        me, start_turn = game.to_move, game.turn
        values = []
        for action in legal:
            after = copy.deepcopy(game)
            after.apply(action)
            while not after.done and after.turn == start_turn:
                after.apply(after.legal_actions()[0])
            values.append(evaluate(game.config, after.snapshot(), me, self.weights))
        return values


def score(config: ReforestConfig, snap: Mapping[str, Any], seat: int) -> int:
    """The seat's score if the game ended now (the spec's six parts)."""
    region = snap["regions"][seat]
    plants = [s for stack in region for s in stack]
    energy = sum(sum(space) for space in snap["energy"][seat])
    total = sum(config.species[s].value for s in plants)
    for stack in region:
        if not stack:
            continue
        effect = config.species[stack[-1]].effect
        if effect.kind == "scoring_per_trait":
            total += effect.n * sum(1 for s in plants if effect.trait in config.species[s].traits)
        elif effect.kind == "scoring_per_energy":
            total += effect.n * energy
        elif effect.kind == "scoring_per_row_stack":
            total += effect.n * sum(1 for x in ROW_SPACES[effect.row] if len(region[x]) >= effect.k)
    total += config.energy_points * energy
    total += sum(config.visitors[v].points for v in snap["visitors_won"][seat])
    total += config.elevation_per_plant * sum(min(len(region[x]) for x in spaces) for spaces in ROW_SPACES)
    total += sum(snap["hands"][seat]) // config.hand_cards_per_point
    return total


def measure(config: ReforestConfig, snap: Mapping[str, Any], seat: int, goal) -> float:
    region = snap["regions"][seat]
    plants = [s for stack in region for s in stack]
    if goal.kind == "plants":
        return len(plants)
    if goal.kind == "trait":
        return sum(1 for s in plants if goal.arg in config.species[s].traits)
    if goal.kind == "row":
        return sum(len(region[x]) for x in range(len(region)) if SPACE_ROW[x] == goal.arg)
    if goal.kind == "energy":
        return sum(sum(space) for space in snap["energy"][seat])
    return max((config.species[s].height for s in plants), default=0.0)


def goals(config: ReforestConfig, snap: Mapping[str, Any], seat: int) -> int:
    """Contested visitors (carried, then this round's) the seat leads alone, or meets in solitaire."""
    players = len(snap["hands"])
    rounds = snap["rounds_ended"]
    contested = list(snap["carried"]) + ([snap["round_visitors"][rounds]] if rounds < ROUNDS else [])
    count = 0
    for v in contested:
        visitor = config.visitors[v]
        if players == 1:
            count += measure(config, snap, seat, visitor.solo_goal) >= visitor.solo_thresholds[rounds]
            continue
        mine = measure(config, snap, seat, visitor.goal)
        count += all(mine > measure(config, snap, other, visitor.goal) for other in range(players) if other != seat)
    return int(count)


def evaluate(config: ReforestConfig, snap: Mapping[str, Any], me: int, weights: Mapping[str, float]) -> float:
    """``eval(me) - max over opponents eval(opponent)`` (the batched bots' module docstring)."""
    players = len(snap["hands"])
    values = []
    for seat in range(players):
        region = snap["regions"][seat]
        lack = sum(max(len(region[x]) for x in spaces) - min(len(region[x]) for x in spaces) for spaces in ROW_SPACES)
        values.append(weights["points"] * score(config, snap, seat) + weights["hand_card"] * sum(snap["hands"][seat])
                      + weights["energy"] * sum(sum(space) for space in snap["energy"][seat])
                      + weights["visitor_goal"] * goals(config, snap, seat) - weights["elevation"] * lack)
    held_value = sum(count * config.species[s].value for s, count in enumerate(snap["hands"][me]))
    mine = values[me] + weights["hand_card"] * HAND_VALUE_SHARE * held_value
    if players == 1:
        return mine
    return mine - max(value for seat, value in enumerate(values) if seat != me)
