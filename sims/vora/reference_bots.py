"""Vora's bots for the reference engine; the batched bots must choose exactly the same actions.

Both draw their random numbers from :mod:`sims.core.rng` with purpose
``"bot/<seat>"`` and the game's decision counter (``game.decisions``, which
counts every decision of the game: main actions and sub-decisions alike), and
list legal actions in ascending order. They play every decision, the
sub-decisions (RECIPIENT, EXTRA, BIG) included.
"""

from __future__ import annotations

from collections.abc import Sequence

import math

from sims.core.ranking import OnePlyReferenceBot
from sims.core.reference_bots import ReferenceRandomBot  # noqa: F401 (the game's random bot)
from sims.vora.config import FARM_SPECIALS, VoraConfig, weight_vector
from sims.vora.reference import MAIN, VoraGame, family_points, farm_score

# Main actions that leave an empty cell for the refill even when they collect nothing.
EMPTYING = ("double", "pick_up")


class ReferenceGreedyBot(OnePlyReferenceBot):
    """One ply on every decision: the action that most improves my family score against the best opponent.

    For each legal action ``a`` the game is cloned and ``a`` applied (the
    clone runs on to its next decision or the end of the turn: collections,
    falls, refill). With ``S_s`` the family score of seat ``s``'s farm
    (:func:`farm_score`: the sum over kinds, in kind order, of the points of
    each count, as float64), before and after::

        value(a) = (S_me_after - S_me_before) - max over opponents o of (S_o_after - S_o_before)

    With weights (``config.WEIGHT_NAMES``, unset ones from ``config.DEFAULT_WEIGHTS``, which give the value
    above) the value is ``score * (S_me_after - S_me_before) - rival * max over opponents (...)``, plus, when
    ``near``, ``specials`` or ``cubes`` is not 0, ``near * dN + specials * dS + cubes * dC`` with the changes
    of my farm's :func:`farm_features` (summed in that order).

    The highest value wins; equal values go to the action with the highest
    noise ``uniform_one(seed, f"bot/{seat}", game.decisions, slots=config.num_actions)[a]``
    (actions are scanned in ascending order and a later action replaces the
    best only if its value is strictly higher, or equal with strictly higher
    noise). Farms are public and the refill changes no farm, so the value uses
    nothing hidden.

    No loops: a main action that pushes back a push-back, or returns to a
    meadow of the last main actions, is worth -inf (:func:`repeats_previous`),
    so it is played only when every legal action does. A single push-back
    stays allowed. Without this rule two greedy
    players can push one cube back and forth until the turn cap.
    """

    def values(self, game: VoraGame, seed: int, legal: Sequence[int]) -> list[float]:
        me = game.to_move
        before = [farm_score(game.config, farm) for farm in game.farms]
        base = farm_features(game.config, game.farms[me])
        values = []
        for action in legal:
            after = game.clone()
            after.apply(action)
            repeat = repeats_previous(game, action, after)
            values.append(-math.inf if repeat else self.value(after, me, before, base))
        return values

    def value(self, after: VoraGame, me: int, before: list[float], base: tuple[int, int, int]) -> float:
        """``score`` times my score change minus ``rival`` times the largest score change of an opponent, plus the
        weighed changes of my farm's features from ``base``."""
        score, rival, near, specials, cubes = weight_vector(self.weights)
        changes = [farm_score(after.config, farm) - old for farm, old in zip(after.farms, before)]
        largest = max(change for seat, change in enumerate(changes) if seat != me)
        value = score * changes[me] - rival * largest
        if near != 0.0 or specials != 0.0 or cubes != 0.0:
            found = farm_features(after.config, after.farms[me])
            value += near * (found[0] - base[0]) + specials * (found[1] - base[1]) + cubes * (found[2] - base[2])
        return value


def farm_features(config: VoraConfig, farm: Sequence[int]) -> tuple[int, int, int]:
    """The greedy's features of one farm: kinds one cube short of more points (:func:`family_points`), kinds with
    a from-farm special held (``config.FARM_SPECIALS``: pig, crow, wolf), cubes."""
    near = sum(family_points(config, count + 1) > family_points(config, count) for count in farm)
    specials = sum(kind >= 0 and farm[kind] >= 1 for kind in map(config.kind_with, FARM_SPECIALS))
    return near, specials, sum(farm)


def repeats_previous(game: VoraGame, action: int, after: VoraGame) -> bool:
    """The bots' no-loop rule: does main ``action`` (``game`` before it, ``after`` once applied, before any
    refill) loop? A push-back (back to ``game.meadows_before[0]``, the meadow the last main action found) loops
    only when ``game.meadow`` is a remembered meadow (the last action was itself a push-back or a return); any
    other action loops when it leaves a remembered meadow (``game.meadows_before``, last first).

    Only an action that collects nothing and empties no cell can (a refill then has nothing to fill), so for
    the others the meadow after the refill is not compared.
    """
    if game.phase != MAIN or game.config.decode(action)[0] in EMPTYING or after.events[-1]["collected"]:
        return False
    if after.meadow == game.meadows_before[0]:
        return game.meadow in game.meadows_before
    return after.meadow in game.meadows_before
