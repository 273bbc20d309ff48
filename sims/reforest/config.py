"""Reforest's config: schema, cross-checks, tables, and the action numbering.

This module is all the two engines share (besides :mod:`sims.core.rng`): the
numbers and content of the game and how a decision is written as an integer.
The rules are written twice, once in ``reference.py`` (plain Python, the
oracle) and once in ``rules.py`` (batched numpy).

Rules and rulings: docs/rules/reforest.md (section numbers cited in the code).

Ruling, effects "in any order" (docs/rules/reforest.md §5.5): the engines
resolve the effects a play triggers in one fixed order (the covered plant's,
then reactions by space number, then the played plant's own), not in an
order the player chooses. The order can matter (draws and stores take the
same deck top card): over 60 seeded random games at each of 2, 3 and 4
players, 285 of 7,975 plays queued two or more effects, and in 170 of them
another order left a different position (every effect used, draws from the
deck; 48 with draws from the nursery).

Region geometry
---------------
Each seat's region has 6 spaces in a pyramid, numbered::

              [5]            high row   (row 2)
           [3]   [4]         middle row (row 1)
        [0]   [1]   [2]      low row    (row 0)

``SPACE_ROW = (0, 0, 0, 1, 1, 2)``. Adjacent spaces (placement):
:data:`ADJACENT_PAIRS`; *payment spaces* of a target space (itself and its
adjacent spaces): :meth:`ReforestConfig.payment_spaces`. A space holds a
*stack*: its *plants* bottom to top and its *energy* (a count per species).
The plants of a stack have strictly increasing heights from the bottom up,
so a stack holds at most :attr:`ReforestConfig.max_stack_plants` plants.

Content
-------
``[[species]]`` in config order; species index = position. Cards of a species
are identical, so every pile is a count per species except the deck, which is
an order: *card ids* ``0 .. total-1`` are laid out species by species in
config order (species 0's ``count`` copies first); ``card_species[id]`` is the
species of card ``id``. A species has ``cost`` (printed cost), ``rows``
(allowed rows), ``shade`` (``sun``: becomes energy when covered; ``half_sun``:
stays as an understory plant that keeps its value and traits and loses its
effect), ``height`` (metres), ``value`` (points), ``traits`` (indices into
``[cards].traits``) and at most one ``effect`` (a string, ``""`` for none).
Effect kinds (:data:`EFFECT_KINDS`; ``t`` a trait, ``r`` a row, ``k``, ``n``
integers >= 1; "this stack" is the space of the plant that owns the effect):

==================================  ==============================================================
``on_play_draw n``                  when played: draw ``n``
``on_play_store n``                 when played: store ``n`` (top deck cards as energy under this stack)
``on_play_discount_per_trait t n``  when played: cost minus ``n`` per plant with ``t`` (automatic)
``passive_discount_trait t n``      passive: each plant with ``t`` you play costs ``n`` less (automatic)
``passive_hand_limit n``            passive: your hand limit is ``n`` higher (automatic)
``react_play_trait_draw t n``       reaction: when you play another plant with ``t``, draw ``n``
``react_play_trait_store t n``      reaction: when you play another plant with ``t``, store ``n``
``after_gather_draw n``             after each of your Gather actions: draw ``n``
``after_gather_store n``            after each of your Gather actions: store ``n``
``on_covered_draw n``               when this canopy plant is covered: draw ``n``
``on_covered_store n``              when this canopy plant is covered: store ``n`` (under its stack)
``scoring_per_trait t n``           scoring: ``n`` per plant with ``t`` in your region (itself included)
``scoring_per_energy n``            scoring: ``n`` per stored energy card in your region
``scoring_per_row_stack r k n``     scoring: ``n`` per space of row ``r`` whose stack holds ``k``+ plants
==================================  ==============================================================

``[[visitors]]`` in config order (visitor index = position): ``points``, a
multiplayer ``goal`` and a ``solo_goal`` with three ``solo_thresholds`` (one
per round). A goal is a *measure* of a region (:data:`MEASURES`): ``plants``
(plants in the region), ``trait t`` (plants with trait ``t``), ``row r``
(plants in the stacks of row ``r``), ``energy`` (stored energy cards),
``tallest`` (the greatest height among the region's plants, 0 without any).

Conventions both engines share (the rules themselves: docs/rules/reforest.md)
----------------------------------------------------------------------------
* Setup with ``P`` players: the first ``deck.size[P-1]`` card ids of the
  setup shuffle are kept, position 0 the top of the deck; seat 0 takes the
  top ``hand.start + hand.start_extra[0]`` cards, then seat 1 its hand from
  the next, and so on; then the nursery slots in slot order; then
  ``deck.tucked[P-1]`` cards under the round-1 visitor and as many under
  the round-2 visitor. ``vorder[0..2]`` of
  the visitor shuffle are the round-end visitors of rounds 1 to 3.
* Phases (:data:`PHASES`): ``main``, ``pay`` (one decision per unit owed),
  ``gather``, ``solo_discard``, ``effect`` (use / decline), ``draw`` (one pick
  a card, no stop), ``hand_limit``. Every decision with at least one legal
  action is presented, even with a single option. ``state.turn`` counts
  completed turns; ``to_move`` is the active seat during the whole turn. The
  end of a turn: hand-limit discards, nursery refill, ``turn += 1``, the
  game-end check, ``to_move = (to_move + 1) % P``, phase ``main``.
* A deck reset lays the pool out as a sorted list of species ids; the card at
  position ``i`` of the new deck (0 = top) is ``pool[perm[i]]`` with ``perm =
  shuffle_order(seed, "deck", resets, n)`` (``resets`` counted from 1, ``n``
  the pool size). A batched engine may draw ``random_bits`` for the largest
  ``n`` and argsort only the first ``n`` slots of each game: slot bits do not
  depend on ``n``, so the permutations are the same.
* Game-end check: multiplayer ``rounds_ended == 3 and (to_move + 1) % P ==
  0``; solitaire ``state.turn >= t3 + 2``, ``t3`` the turn count when round 3
  ended. End reason ``"complete"``; ``limits.max_turns`` completed turns give
  ``"stall"`` (checked by the play loop before a decision; rank 0 for every
  seat). Multiplayer rank = 1 + the number of seats with a strictly higher
  score; solitaire rank 1 iff score > target, else 2.

Hidden information (what a bot may read)
----------------------------------------
Everything public: every region's plants, every stack's energy *count*, the
nursery, the discard pile's contents, the deck's and the tucked piles' sizes,
every seat's hand *size*, visitors (round-end row, carried, won, removed),
rounds ended, the phase and the current play (species, space, amount owed),
the effect queue. Private to a seat: its own hand and its own energy species.
Never: the deck order, the tucked or put-away cards, others' hands.

Random streams
--------------
* ``shuffle_order(seed, "deck", 0, total_cards)``: the setup shuffle;
* ``shuffle_order(seed, "visitors", 0, num_visitors)``: the visitor layout;
* ``shuffle_order(seed, "deck", k, n)``: the k-th reset (k = 1, 2, 3, ...;
  ``n`` the pool size).
Rules draw nothing else. Bots draw from ``"bot/<seat>"`` (and their own
``"plan/..."`` streams) with ``state.decisions`` as the counter, as in the
other games.

Action numbering
----------------
``S`` species, 6 spaces, ``N`` nursery slots; a *source* is a nursery slot
``0 .. N-1`` or ``N`` for the deck. One flat range, blocks in this order
(``offset`` of a block = the sum of the sizes before it)::

    block         size    phase(s)           fields      code within the block
    gather        1       main               -           0
    play          S*6     main               species, space   species * 6 + space
    pay_hand      S       pay                species     species
    pay_energy    6       pay                space       space
    take          N+1     gather, draw       source      source
    stop          1       gather             -           0
    use           1       effect             -           0
    decline       1       effect             -           0
    discard       S       hand_limit         species     species
    solo_discard  N+1     solo_discard       source      source

With the shipped config (S = 31, N = 3) there are 266 actions. Legal actions
are always listed in ascending order.

Records
-------
``results()`` seat columns (int64 ``[B, P]``, :data:`SEAT_COLUMNS`): the six
``points_*`` above; ``cards_played``; ``cost_paid`` (effective costs);
``paid_from_hand``; ``paid_from_energy``; ``gathers`` (Gather actions);
``cards_gathered`` (gather picks); ``cards_drawn`` (effect draw picks);
``cards_stored`` (cards stored by effects); ``plants_covered``;
``energy_from_cover`` (sun plants turned to energy); ``effects_used``;
``effects_declined``; ``hand_discards``; ``solo_discards``; ``visitors_won``;
``plants``, ``energy``, ``hand`` (held at the end). Game columns (int64
``[B]``, :data:`GAME_COLUMNS`): ``rounds_ended``, ``deck_resets``,
``visitors_unawarded`` (discarded after round 3 or removed in solitaire),
``solo_target`` (0 with 2+ players). End reasons: :data:`END_REASONS`.

Events (one row per event, in the order they happened): ``game`` (int64),
``decision`` (int32, the decision during which it happened), ``turn`` (int32,
``state.turn`` then), ``seat`` (int8, the acting seat; for ``visitor`` rows the
winner, -1 if none), ``event`` (:data:`EVENT_KINDS`), ``species`` (name, ""
if none), ``played`` (the species name on ``play`` rows, else "": the design
component column), ``space`` (int8, -1), ``source`` (int8, -1), ``amount``
(int16), ``visitor`` (name, ""). Kinds: ``play`` (space, amount = effective
cost), ``pay_hand``, ``pay_energy`` (space; species = the energy card),
``cover`` (species = the covered plant, space, amount 1 if it became energy
else 0), ``gather`` and ``draw`` (source), ``store`` (space), ``effect``
(species = the effect's plant, space, amount 1 used / 0 declined; skipped
effects have no row), ``discard`` (hand limit), ``solo_discard`` (source),
``round_end`` (amount = the round, 1 to 3), ``visitor`` (amount 1 won or
earned, 0 carried, -1 discarded or removed), ``deal`` (a card of a seat's
starting hand, species, source = the deck, amount 1; logged at setup, before
the first decision, decision 0 and turn 0, one row per card in deck order). ``points`` (a visitor's points
on a won or earned visitor row), ``gave`` (the cards an effect used drew or
stored) and ``card_points`` (on a play row, what the card scores at the end:
its value while it is a plant, plus its scoring effect if it ends in the
canopy). No ``score`` column (reports read one as a running score).

Snapshot (``snapshot()``, equal between the engines): ``{"hands": [[count per
species] per seat], "regions": [[[species bottom to top] per space] per seat],
"energy": [[[count per species] per space] per seat], "visitors_won":
[[visitor ids in award order] per seat], "round_visitors": [3 ids],
"carried": [ids], "nursery": [species or -1 per slot], "deck": [species, top
first], "discard": [count per species], "tucked": [[count per species] x 2],
"rounds_ended": int, "turn": int, "to_move": int, "phase": str, "end": str}``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Iterable

import numpy as np

from sims.core.actions import ActionBlocks
from sims.core.spec import (
    ConfigError,
    Float,
    Int,
    List,
    LoadedConfig,
    Optional,
    Record,
    bot_tables,
    bot_weight_fields,
    Str,
    Table,
    load_config,
    item_key,
)

# --- geometry (fixed by the rulebook) -----------------------------------------------------

SPACES = 6
ROWS = ("low", "middle", "high")
LOW, MIDDLE, HIGH = range(3)
SPACE_ROW = (0, 0, 0, 1, 1, 2)
ROW_SPACES = ((0, 1, 2), (3, 4), (5,))
ADJACENT_PAIRS = ((0, 1), (1, 2), (3, 4), (0, 3), (1, 3), (1, 4), (2, 4), (3, 5), (4, 5))
ROUNDS = 3
MIN_PLAYERS, MAX_PLAYERS = 1, 4

SHADES = ("sun", "half_sun")
EFFECT_KINDS = (
    "none",
    "on_play_draw",
    "on_play_store",
    "on_play_discount_per_trait",
    "passive_discount_trait",
    "passive_hand_limit",
    "react_play_trait_draw",
    "react_play_trait_store",
    "after_gather_draw",
    "after_gather_store",
    "on_covered_draw",
    "on_covered_store",
    "scoring_per_trait",
    "scoring_per_energy",
    "scoring_per_row_stack",
)
# The arguments each effect kind takes, in order.
EFFECT_ARGS: dict[str, tuple[str, ...]] = {
    "none": (),
    "on_play_draw": ("n",),
    "on_play_store": ("n",),
    "on_play_discount_per_trait": ("trait", "n"),
    "passive_discount_trait": ("trait", "n"),
    "passive_hand_limit": ("n",),
    "react_play_trait_draw": ("trait", "n"),
    "react_play_trait_store": ("trait", "n"),
    "after_gather_draw": ("n",),
    "after_gather_store": ("n",),
    "on_covered_draw": ("n",),
    "on_covered_store": ("n",),
    "scoring_per_trait": ("trait", "n"),
    "scoring_per_energy": ("n",),
    "scoring_per_row_stack": ("row", "k", "n"),
}
DRAW_EFFECTS = ("on_play_draw", "react_play_trait_draw", "after_gather_draw", "on_covered_draw")
STORE_EFFECTS = ("on_play_store", "react_play_trait_store", "after_gather_store", "on_covered_store")
MEASURES = ("plants", "trait", "row", "energy", "tallest")
MEASURE_ARGS: dict[str, tuple[str, ...]] = {
    "plants": (), "trait": ("trait",), "row": ("row",), "energy": (), "tallest": (),
}
DIFFICULTIES = ("standard", "hard")

PHASES = ("main", "pay", "gather", "solo_discard", "effect", "draw", "hand_limit")
BLOCKS = ("gather", "play", "pay_hand", "pay_energy", "take", "stop", "use", "decline", "discard", "solo_discard")
END_REASONS = ("", "complete", "stall")
EVENT_KINDS = ("play", "pay_hand", "pay_energy", "cover", "gather", "draw", "store", "effect", "discard",
               "solo_discard", "round_end", "visitor", "deal")
SEAT_COLUMNS = (
    "points_plants", "points_effects", "points_energy", "points_visitors", "points_elevation", "points_hand",
    "cards_played", "cost_paid", "paid_from_hand", "paid_from_energy", "gathers", "cards_gathered",
    "cards_drawn", "cards_stored", "plants_covered", "energy_from_cover", "effects_used", "effects_declined",
    "hand_discards", "solo_discards", "visitors_won", "plants", "energy", "hand",
)
GAME_COLUMNS = ("rounds_ended", "deck_resets", "visitors_unawarded", "solo_target")

BOT_KINDS = ("greedy", "planner")
WEIGHT_NAMES = ("points", "hand_card", "energy", "visitor_goal", "elevation")  # greedy's
_REQUIRED_WEIGHTS = {"greedy": WEIGHT_NAMES, "planner": WEIGHT_NAMES + ("candidates", "depth")}
# The greedy evaluation's weights where a bot is given none (both engines' bots read them here).
DEFAULT_WEIGHTS = {"points": 1.0, "hand_card": 0.1, "energy": 0.3, "visitor_goal": 2.0, "elevation": 0.0}
HAND_VALUE_SHARE = 0.05  # the weight of the mover's held card values, as a share of hand_card

_TRAIT_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_MAX_TRAITS = 62  # trait masks are int64


SPECIES_SCHEMA = {
    "name": Str(),
    "count": Int(0, 100),
    "cost": Int(0, 5),  # the range reforest.toml documents
    "rows": List(Str(ROWS), 1, 3),
    "shade": Str(SHADES),
    "height": Float(0.0, 10_000.0),
    "value": Int(-50, 50),
    "traits": List(Str(), 0, 16),
    "effect": Optional(Str(), ""),
}

VISITOR_SCHEMA = {
    "name": Str(),
    "points": Int(-50, 100),
    "goal": Str(),
    "solo_goal": Str(),
    "solo_thresholds": List(Float(0.0, 1_000_000.0), ROUNDS, ROUNDS),
}

# The planner adds the shared search weights (sims.core.spec.PLANNER_WEIGHTS); ``depth_<P>p`` replaces ``depth``
# at P players (its horizon counts seat turns, sims/core/planner.py)
_WEIGHTS = bot_weight_fields(WEIGHT_NAMES, range(MIN_PLAYERS, MAX_PLAYERS + 1))
_PER_PLAYERS = MAX_PLAYERS - MIN_PLAYERS + 1

SCHEMA = {
    "cards": {"traits": List(Str(), 1, _MAX_TRAITS)},
    "deck": {
        "size": List(Int(1, 100_000), _PER_PLAYERS, _PER_PLAYERS),
        "tucked": List(Int(0, 100_000), _PER_PLAYERS, _PER_PLAYERS),
    },
    "hand": {"start": Int(0, 100), "start_extra": Optional(List(Int(0, 20), MAX_PLAYERS, MAX_PLAYERS),
                                                           [0] * MAX_PLAYERS), "limit": Int(0, 1000)},
    "nursery": {"size": Int(1, 10)},
    "gather": {"cards": Int(1, 10)},
    "scoring": {
        "energy": Int(0, 100),
        "elevation_per_plant": Int(0, 100),
        "hand_cards_per_point": Int(1, 100),
    },
    "solitaire": {"difficulty": Str(DIFFICULTIES)},
    "species": List(Record(SPECIES_SCHEMA), 1, 200),
    "visitors": List(Record(VISITOR_SCHEMA), ROUNDS, 100),
    "limits": {"max_turns": Int(1, 1_000_000)},
    "report": {"target_turns": List(Int(0, 1_000_000), 2, 2)},
    "bots": {kind: _WEIGHTS for kind in BOT_KINDS},
    "personas": Optional(Table({"bot": Str(BOT_KINDS), **_WEIGHTS}), {}),
}


@dataclass(frozen=True)
class Effect:
    """One plant effect: its kind and numbers (-1 / 0 where the kind takes none)."""

    kind: str = "none"
    trait: int = -1
    row: int = -1
    k: int = 0
    n: int = 0


@dataclass(frozen=True)
class Species:
    """One plant species; all its cards are identical."""

    name: str
    count: int
    cost: int
    rows: tuple[int, ...]
    sun: bool
    height: float
    value: int
    traits: tuple[int, ...]
    effect: Effect


@dataclass(frozen=True)
class Measure:
    """What a visitor goal measures in a region: kind and its trait or row (-1 if none)."""

    kind: str
    arg: int = -1


@dataclass(frozen=True)
class Visitor:
    name: str
    points: int
    goal: Measure
    solo_goal: Measure
    solo_thresholds: tuple[float, float, float]


def _readonly(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


@dataclass(frozen=True)
class ReforestConfig(ActionBlocks):
    """A validated Reforest config: content, numpy tables and the action numbering."""

    traits: tuple[str, ...]
    species: tuple[Species, ...]
    visitors: tuple[Visitor, ...]
    deck_sizes: tuple[int, ...]  # by player count 1..4
    tucked_counts: tuple[int, ...]  # per visitor, by player count 1..4
    hand_start: int
    hand_start_extra: tuple[int, ...]  # cards added to each seat's starting hand (a balancing variant), by seat
    hand_limit: int
    nursery_size: int
    gather_cards: int
    energy_points: int
    elevation_per_plant: int
    hand_cards_per_point: int
    difficulty: str
    max_turns: int
    target_turns: tuple[int, int]
    bot_weights: dict
    personas: dict
    loaded: LoadedConfig

    # --- sizes ------------------------------------------------------------------------

    @property
    def player_counts(self) -> tuple[int, ...]:
        return tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1))

    @cached_property
    def num_species(self) -> int:
        return len(self.species)

    @cached_property
    def num_traits(self) -> int:
        return len(self.traits)

    @cached_property
    def num_visitors(self) -> int:
        return len(self.visitors)

    @cached_property
    def species_names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.species)

    @cached_property
    def visitor_names(self) -> tuple[str, ...]:
        return tuple(v.name for v in self.visitors)

    @cached_property
    def total_cards(self) -> int:
        return sum(s.count for s in self.species)

    @cached_property
    def max_stack_plants(self) -> int:
        """Most plants one stack can hold: heights strictly increase up a stack."""
        return len({s.height for s in self.species})

    def hand_size(self, seat: int) -> int:
        """Cards dealt to ``seat`` at setup: ``hand.start`` plus the seat's ``hand.start_extra``."""
        return self.hand_start + self.hand_start_extra[seat]

    def deck_size(self, players: int) -> int:
        """Plant cards kept for the game at setup."""
        return self.deck_sizes[players - MIN_PLAYERS]

    def tucked(self, players: int) -> int:
        """Cards tucked under each of the round-1 and round-2 visitors."""
        return self.tucked_counts[players - MIN_PLAYERS]

    # --- geometry tables --------------------------------------------------------------

    @cached_property
    def adjacent(self) -> np.ndarray:
        """bool ``[6, 6]``: the rulebook's adjacency (a space is not adjacent to itself)."""
        table = np.zeros((SPACES, SPACES), dtype=bool)
        for a, b in ADJACENT_PAIRS:
            table[a, b] = table[b, a] = True
        return _readonly(table)

    @cached_property
    def payment_spaces(self) -> np.ndarray:
        """bool ``[6, 6]``: ``[x, y]`` if energy in ``y`` may pay for a plant played on ``x``."""
        return _readonly(self.adjacent | np.eye(SPACES, dtype=bool))

    @cached_property
    def space_row(self) -> np.ndarray:
        return _readonly(np.array(SPACE_ROW, dtype=np.int8))

    # --- species tables (index = species id) -----------------------------------------

    @cached_property
    def card_species(self) -> np.ndarray:
        """int16 ``[total_cards]``: the species of each card id (species by species)."""
        return _readonly(np.repeat(np.arange(self.num_species, dtype=np.int16),
                                   [s.count for s in self.species]))

    def _table(self, values: list, dtype) -> np.ndarray:
        return _readonly(np.array(values, dtype=dtype))

    @cached_property
    def species_count(self) -> np.ndarray:
        return self._table([s.count for s in self.species], np.int16)

    @cached_property
    def cost(self) -> np.ndarray:
        return self._table([s.cost for s in self.species], np.int16)

    @cached_property
    def row_mask(self) -> np.ndarray:
        """uint8 per species: bit ``r`` set if the species may be played in row ``r``."""
        return self._table([sum(1 << r for r in s.rows) for s in self.species], np.uint8)

    @cached_property
    def allowed_spaces(self) -> np.ndarray:
        """bool ``[S, 6]``: the species' rows, per space."""
        rows = np.array([[r in s.rows for r in range(len(ROWS))] for s in self.species], dtype=bool)
        return _readonly(rows[:, list(SPACE_ROW)])

    @cached_property
    def sun(self) -> np.ndarray:
        """bool per species: True for sun (becomes energy when covered), False for half-sun."""
        return self._table([s.sun for s in self.species], bool)

    @cached_property
    def height(self) -> np.ndarray:
        return self._table([s.height for s in self.species], np.float64)

    @cached_property
    def height_rank(self) -> np.ndarray:
        """int16 per species: its height's rank among distinct heights (0 = shortest)."""
        distinct = sorted({s.height for s in self.species})
        return self._table([distinct.index(s.height) for s in self.species], np.int16)

    @cached_property
    def value(self) -> np.ndarray:
        return self._table([s.value for s in self.species], np.int16)

    @cached_property
    def trait_mask(self) -> np.ndarray:
        """int64 per species: bit ``t`` set if the species has trait ``t``."""
        return self._table([sum(1 << t for t in s.traits) for s in self.species], np.int64)

    @cached_property
    def has_trait(self) -> np.ndarray:
        """bool ``[S, T]``."""
        table = np.zeros((self.num_species, self.num_traits), dtype=bool)
        for index, s in enumerate(self.species):
            table[index, list(s.traits)] = True
        return _readonly(table)

    @cached_property
    def effect_kind(self) -> np.ndarray:
        """int8 per species: index into :data:`EFFECT_KINDS` (0 = none)."""
        return self._table([EFFECT_KINDS.index(s.effect.kind) for s in self.species], np.int8)

    @cached_property
    def effect_trait(self) -> np.ndarray:
        return self._table([s.effect.trait for s in self.species], np.int8)

    @cached_property
    def effect_row(self) -> np.ndarray:
        return self._table([s.effect.row for s in self.species], np.int8)

    @cached_property
    def effect_k(self) -> np.ndarray:
        return self._table([s.effect.k for s in self.species], np.int16)

    @cached_property
    def effect_n(self) -> np.ndarray:
        return self._table([s.effect.n for s in self.species], np.int16)

    # --- visitor tables (index = visitor id) -----------------------------------------

    @cached_property
    def visitor_points(self) -> np.ndarray:
        return self._table([v.points for v in self.visitors], np.int16)

    @cached_property
    def goal_measure(self) -> np.ndarray:
        """int8 per visitor: index into :data:`MEASURES` of the multiplayer goal."""
        return self._table([MEASURES.index(v.goal.kind) for v in self.visitors], np.int8)

    @cached_property
    def goal_arg(self) -> np.ndarray:
        return self._table([v.goal.arg for v in self.visitors], np.int8)

    @cached_property
    def solo_measure(self) -> np.ndarray:
        return self._table([MEASURES.index(v.solo_goal.kind) for v in self.visitors], np.int8)

    @cached_property
    def solo_arg(self) -> np.ndarray:
        return self._table([v.solo_goal.arg for v in self.visitors], np.int8)

    @cached_property
    def solo_thresholds(self) -> np.ndarray:
        """float64 ``[V, 3]``: the solitaire threshold of each visitor per round."""
        return self._table([list(v.solo_thresholds) for v in self.visitors], np.float64)

    # --- action numbering ------------------------------------------------------------

    @cached_property
    def block_sizes(self) -> dict[str, int]:
        s, n = self.num_species, self.nursery_size
        return {
            "gather": 1,
            "play": s * SPACES,
            "pay_hand": s,
            "pay_energy": SPACES,
            "take": n + 1,
            "stop": 1,
            "use": 1,
            "decline": 1,
            "discard": s,
            "solo_discard": n + 1,
        }

    @property
    def deck_source(self) -> int:
        """The source number of the deck in ``take`` and ``solo_discard`` (after the nursery slots)."""
        return self.nursery_size

    def encode_gather(self) -> int:
        return self.offsets["gather"]

    def encode_play(self, species: int, space: int) -> int:
        return self.offsets["play"] + species * SPACES + space

    def encode_pay_hand(self, species: int) -> int:
        return self.offsets["pay_hand"] + species

    def encode_pay_energy(self, space: int) -> int:
        return self.offsets["pay_energy"] + space

    def encode_take(self, source: int) -> int:
        return self.offsets["take"] + source

    def encode_stop(self) -> int:
        return self.offsets["stop"]

    def encode_use(self) -> int:
        return self.offsets["use"]

    def encode_decline(self) -> int:
        return self.offsets["decline"]

    def encode_discard(self, species: int) -> int:
        return self.offsets["discard"] + species

    def encode_solo_discard(self, source: int) -> int:
        return self.offsets["solo_discard"] + source

    def encode(self, block: str, fields: tuple[int, ...] = ()) -> int:
        """The inverse of :meth:`decode`."""
        if block == "play":
            return self.encode_play(*fields)
        if block not in self.block_sizes:
            raise ValueError(f"unknown action block {block!r}")
        return self.offsets[block] + (fields[0] if fields else 0)

    def decode(self, action: int) -> tuple[str, tuple[int, ...]]:
        """``(block, fields)`` of an action number.

        play -> (species, space); pay_hand, discard -> (species,); pay_energy
        -> (space,); take, solo_discard -> (source,) with source ``N`` the
        deck; gather, stop, use, decline -> ().
        """
        if not 0 <= action < self.num_actions:
            raise ValueError(f"action {action} is outside 0..{self.num_actions - 1}")
        for block, size in self.block_sizes.items():
            if action < size:
                break
            action -= size
        if block == "play":
            return block, divmod(action, SPACES)
        if self.block_sizes[block] == 1:
            return block, ()
        return block, (action,)

    # --- bots --------------------------------------------------------------------------

    def weights(self, kind: str) -> dict[str, float]:
        return dict(self.bot_weights.get(kind, {}))


# --- building ------------------------------------------------------------------------------


def _parse_effect(text: str, traits: tuple[str, ...], source: str, key: str) -> Effect:
    """``"scoring_per_row_stack middle 2 2"`` -> Effect; ConfigError naming the key otherwise."""
    words = text.split()
    if not words:
        return Effect()
    kind, args = words[0], words[1:]
    if kind not in EFFECT_ARGS or kind == "none":
        raise ConfigError(source, key, "an effect kind (" + ", ".join(EFFECT_KINDS[1:]) + ") or \"\"", text)
    names = EFFECT_ARGS[kind]
    if len(args) != len(names):
        raise ConfigError(source, key, f"'{kind} " + " ".join(n.upper() for n in names) + "'", text)
    found: dict[str, int] = {}
    for name, word in zip(names, args):
        found[name] = _argument(name, word, traits, source, key, text)
    return Effect(kind=kind, trait=found.get("trait", -1), row=found.get("row", -1),
                  k=found.get("k", 0), n=found.get("n", 0))


def _parse_measure(text: str, traits: tuple[str, ...], source: str, key: str) -> Measure:
    words = text.split()
    if not words or words[0] not in MEASURE_ARGS:
        raise ConfigError(source, key, "a measure (plants, trait TRAIT, row ROW, energy, tallest)", text)
    kind, args = words[0], words[1:]
    names = MEASURE_ARGS[kind]
    if len(args) != len(names):
        raise ConfigError(source, key, f"'{kind}" + "".join(" " + n.upper() for n in names) + "'", text)
    arg = _argument(names[0], args[0], traits, source, key, text) if names else -1
    return Measure(kind, arg)


def _argument(name: str, word: str, traits: tuple[str, ...], source: str, key: str, text: str) -> int:
    if name == "trait":
        if word not in traits:
            raise ConfigError(source, key, "a trait of cards.traits (" + ", ".join(traits) + ")", text)
        return traits.index(word)
    if name == "row":
        if word not in ROWS:
            raise ConfigError(source, key, "a row (low, middle, high)", text)
        return ROWS.index(word)
    if not word.isdigit() or int(word) < 1 or int(word) > 100:
        raise ConfigError(source, key, f"{name.upper()} an integer from 1 to 100", text)
    return int(word)


def _unique(names: list[str], what: str, source: str, pattern: re.Pattern | None = None) -> None:
    for index, name in enumerate(names):
        key = f"{what}[{index}]" if pattern else f"{what}[{index}].name"
        if pattern is not None and not pattern.match(name):
            raise ConfigError(source, key, "a lowercase name (a-z, 0-9, _)", name)
        if not name.strip():
            raise ConfigError(source, key, "a non-empty name", name)
        if name in names[:index]:
            raise ConfigError(source, key, "a name used only once", name)


def build(loaded: LoadedConfig) -> ReforestConfig:
    """Cross-check a validated config and derive the typed config."""
    values, source = loaded.values, loaded.source
    traits = tuple(values["cards"]["traits"])
    _unique(list(traits), "cards.traits", source, _TRAIT_NAME)

    species_raw = values["species"]
    _unique([s["name"] for s in species_raw], "species", source)
    species = []
    for index, raw in enumerate(species_raw):
        key = item_key("species", index, raw)
        for t_index, trait in enumerate(raw["traits"]):
            if trait not in traits:
                raise ConfigError(source, f"{key}.traits[{t_index}]",
                                  "a trait of cards.traits (" + ", ".join(traits) + ")", trait)
        if len(set(raw["traits"])) != len(raw["traits"]):
            raise ConfigError(source, f"{key}.traits", "each trait at most once", raw["traits"])
        if len(set(raw["rows"])) != len(raw["rows"]):
            raise ConfigError(source, f"{key}.rows", "each row at most once", raw["rows"])
        species.append(Species(
            name=raw["name"],
            count=raw["count"],
            cost=raw["cost"],
            rows=tuple(sorted(ROWS.index(r) for r in raw["rows"])),
            sun=raw["shade"] == "sun",
            height=raw["height"],
            value=raw["value"],
            traits=tuple(sorted(traits.index(t) for t in raw["traits"])),
            effect=_parse_effect(raw["effect"], traits, source, f"{key}.effect"),
        ))
    total = sum(s.count for s in species)

    visitors_raw = values["visitors"]
    _unique([v["name"] for v in visitors_raw], "visitors", source)
    visitors = tuple(
        Visitor(
            name=raw["name"],
            points=raw["points"],
            goal=_parse_measure(raw["goal"], traits, source, f"{item_key('visitors', index, raw)}.goal"),
            solo_goal=_parse_measure(raw["solo_goal"], traits, source, f"{item_key('visitors', index, raw)}.solo_goal"),
            solo_thresholds=tuple(raw["solo_thresholds"]),
        )
        for index, raw in enumerate(visitors_raw)
    )

    deck, hand = values["deck"], values["hand"]
    nursery = values["nursery"]["size"]
    for index, (size, tucked) in enumerate(zip(deck["size"], deck["tucked"])):
        players = MIN_PLAYERS + index
        if size > total:
            raise ConfigError(source, f"deck.size[{index}]",
                              f"at most the {total} plant cards of [[species]] ({players} players)", size)
        hands = [hand["start"] + extra for extra in hand["start_extra"][:players]]
        needed = sum(hands) + nursery + (ROUNDS - 1) * tucked + 1
        if size < needed:
            raise ConfigError(source, f"deck.size[{index}]",
                              f"at least {needed} cards ({players} players: hands of {hands}, a nursery "
                              f"of {nursery}, {tucked} tucked under each of 2 visitors, 1 left in the deck)", size)

    low, high = values["report"]["target_turns"]
    if low > high:
        raise ConfigError(source, "report.target_turns", "[shortest, longest] with shortest <= longest", [low, high])

    bot_weights, personas = bot_tables(values, source, _REQUIRED_WEIGHTS)

    scoring = values["scoring"]
    return ReforestConfig(
        traits=traits,
        species=tuple(species),
        visitors=visitors,
        deck_sizes=tuple(deck["size"]),
        tucked_counts=tuple(deck["tucked"]),
        hand_start=hand["start"],
        hand_start_extra=tuple(hand["start_extra"]),
        hand_limit=hand["limit"],
        nursery_size=nursery,
        gather_cards=values["gather"]["cards"],
        energy_points=scoring["energy"],
        elevation_per_plant=scoring["elevation_per_plant"],
        hand_cards_per_point=scoring["hand_cards_per_point"],
        difficulty=values["solitaire"]["difficulty"],
        max_turns=values["limits"]["max_turns"],
        target_turns=(low, high),
        bot_weights=bot_weights,
        personas=personas,
        loaded=loaded,
    )


def load(path: Path | None = None, overrides: Iterable[str] = ()) -> ReforestConfig:
    """Read ``configs/games/reforest.toml`` (or ``path``) with overrides applied."""
    return build(load_config("reforest", SCHEMA, path, overrides))
