"""Vora's config: schema, cross-checks, geometry names, and the action numbering.

This module is all the two engines share (besides :mod:`sims.core.rng`): the
numbers of the game and how a decision is written as an integer. The rules
themselves are written twice, once in ``reference.py`` (plain Python, the
oracle) and once in ``rules.py`` (batched numpy).

Geometry
--------
The meadow is ``N x N`` (``meadow.size``, default 5); cell ``(row, col)`` is
``row * N + col``, row 0 at the top::

                 N (side 0, row 0)
             0   1   2   3   4
    W        5   6   7   8   9        E
    (side 3) 10  11  12  13  14  (side 1, column N-1)
             15  16  17  18  19
             20  21  22  23  24
                 S (side 2, row N-1)

Sides are numbered ``N=0, E=1, S=2, W=3``. A *line* is entered from a side:
from N or S, line ``l`` is column ``l``; from E or W, line ``l`` is row ``l``.
The *edge cell* of line ``l`` on side ``s`` is the line's cell on that side
((0, l) for N, (l, N-1) for E, (N-1, l) for S, (l, 0) for W). Seats sit at
sides by player count (``[seats]``, default 2: N,S; 3: N,E,S; 4: N,E,S,W).

Rules and rulings: docs/rules/vora.md (section numbers cited in the code).

Config and engine conventions both engines share
------------------------------------------------
* ``[[kinds]]``, in order (kind index = position): name, count, ``animal``
  (crow and wolf may devour it; a duck may only swap with a non-animal) and
  ``special``, one of ``none, double_push, devour, wolf, pick_up, fly_swap,
  dig, grazer, liquid, pasture``; each special other than ``none`` at most
  once. A special missing from the config never applies.
* Cubes are numbered kind by kind in config order (kind 0 gets ids
  ``0 .. count0-1``, and so on). The bag is one order of all cubes,
  ``shuffle_order(seed, "bag", attempt, total)``, from attempt 0; the meadow
  takes the first ``N*N`` cubes row-major, then seats draw their farm cubes in
  seat order; the *bag pointer* marks the first cube not yet drawn. The
  refill takes cubes from the bag pointer into the empty cells row-major.
* Phases of a decision: MAIN (the turn's action), RECIPIENT (who gets a
  fallen cube on an unseated side), EXTRA (pick a meadow cube, or decline),
  BIG (pick a meadow cube, steal: opponent seat x kind, or decline).
  ``to_move`` stays the active player through a turn's sub-decisions and
  passes to ``(seat + 1) % players`` at the end of every turn, the last one
  included. Cubes waiting
  for a RECIPIENT decision are in no farm, meadow or bag until it is taken.
* End reasons: ``"bag_empty"`` (a refill fell short), ``"stall"``
  (``limits.max_turns`` completed turns; rank 0 for every seat).

Bot weights
-----------
``[bots.greedy]`` and ``[bots.planner]`` (the planner's candidates and the
greedy players of its rollouts) weigh a decision, played on to the next
decision or the turn's end without the refill, for the mover::

    score    * (my family-score change)
  - rival    * (the largest family-score change of an opponent)
  + near     * (change of my kinds one cube short of more points)
  + specials * (change of my kinds with a from-farm special held: pig, crow, wolf)
  + cubes    * (change of the cubes in my farm)

Unset weights take ``DEFAULT_WEIGHTS`` (score 1, rival 1, the rest 0: the
rulebook's scoring alone); ``[personas.<name>]`` sets a bot kind and some
weights over that kind's.

Action numbering
----------------
``K`` kinds, ``N`` meadow size, ``C = N*N`` cells, 4 sides, ``P = 4`` (the
largest player count; unused seats are never legal). One flat range, blocks
in this order (``offset`` of each block is the sum of the sizes before it)::

    block      size     fields                       code within the block
    push       K*4*N    kind, side, line             (kind * 4 + side) * N + line
    double     4*N      side, line                   side * N + line
    devour     C        target cell                  cell
    wolf       4*N      side, line                   side * N + line
    pick_up    C        ladybug cell                 cell
    fly_swap   C*C      duck cell, target cell       duck * C + target
    dig        C*8      mole cell, direction         mole * 8 + direction
    recipient  P        seat                         seat
    pick       C        cell (EXTRA and BIG)         cell
    steal      P*K      opponent seat, kind          seat * K + kind
    decline    1        (none: EXTRA and BIG)        0

Dig directions are the 8 neighbours in reading order: ``0 NW (-1,-1),
1 N (-1,0), 2 NE (-1,1), 3 W (0,-1), 4 E (0,1), 5 SW (1,-1), 6 S (1,0),
7 SE (1,1)`` as (row step, column step). With the defaults (K=9, N=5) there
are 1161 actions. Legal actions are always listed in ascending order.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Iterable

from sims.core.actions import ActionBlocks
from sims.core.spec import (
    Bool,
    ConfigError,
    Float,
    Int,
    List,
    LoadedConfig,
    Optional,
    Record,
    Str,
    Table,
    bot_tables,
    load_config,
    item_key,
    planner_weight_names,
)

SIDES = ("N", "E", "S", "W")
NORTH, EAST, SOUTH, WEST = range(4)
OPPOSITE = (SOUTH, WEST, NORTH, EAST)
# Dig directions, (row step, column step), the 3x3 neighbourhood in reading order.
DIRECTIONS = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))
DIRECTION_NAMES = ("NW", "N", "NE", "W", "E", "SW", "S", "SE")
MAX_PLAYERS = 4

SPECIALS = ("none", "double_push", "devour", "wolf", "pick_up", "fly_swap", "dig", "grazer", "liquid", "pasture")
# Specials used by an action of their own (record columns ``special_<name>``).
ACTION_SPECIALS = ("double_push", "devour", "wolf", "pick_up", "fly_swap", "dig")
BLOCKS = ("push", "double", "devour", "wolf", "pick_up", "fly_swap", "dig", "recipient", "pick", "steal", "decline")
SPECIAL_OF_BLOCK = dict(zip(BLOCKS[1:1 + len(ACTION_SPECIALS)], ACTION_SPECIALS))  # the action special a block uses
PHASES = ("main", "recipient", "extra", "big")
END_REASONS = ("", "bag_empty", "stall")
# Not a rule: how many meadows (before the last main actions) the bots' no-loop rule remembers.
LOOP_MEMORY = 8

BOT_KINDS = ("random", "greedy", "planner")
# The greedy bots' value of a decision (played to the next decision, without the refill), for the mover:
#   score * (my family-score change) - rival * (the largest family-score change of an opponent)
#   + near * (change of my kinds one cube short of more points)
#   + specials * (change of my kinds with a from-farm special held: pig, crow, wolf)
#   + cubes * (change of the cubes in my farm)
# The planner's candidates and rollouts read the planner's weights. Unset weights take DEFAULT_WEIGHTS, the
# rulebook-only greedy (score 1, rival 1, the rest 0).
WEIGHT_NAMES = ("score", "rival", "near", "specials", "cubes")
DEFAULT_WEIGHTS = {"score": 1.0, "rival": 1.0, "near": 0.0, "specials": 0.0, "cubes": 0.0}
# Specials used from the farm: holding such a cube is an option for a later turn.
FARM_SPECIALS = ("double_push", "devour", "wolf")

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
# The planner also takes the shared search weights (sims.core.spec.PLANNER_WEIGHTS, ``<name>_<P>p`` at P players)
# and Vora's own ``worth_mean``: how much the opponents' mean replaces the best opponent's score in its worth.
PLANNER_OWN = ("worth_mean",)
_WEIGHTS = {name: Optional(Float(-1000.0, 1000.0), None)
            for name in WEIGHT_NAMES + planner_weight_names(range(2, MAX_PLAYERS + 1), PLANNER_OWN)}


KIND_SCHEMA = {
    "name": Str(),
    "count": Int(0, 1000),
    "animal": Bool(),
    "special": Str(SPECIALS),
    "letter": Optional(Str(), None),
}

SCHEMA = {
    "meadow": {"size": Int(3, 8)},
    "kinds": List(Record(KIND_SCHEMA), 1, 16),
    "seats": Table(List(Str(SIDES), 1, MAX_PLAYERS), "a table of player count = [sides]"),
    "setup": {
        "first_farm": Int(1, 64),
        "other_farm": Int(1, 64),
        "farm_extra": Optional(List(Int(0, 16), MAX_PLAYERS, MAX_PLAYERS), [0] * MAX_PLAYERS),
        "max_attempts": Int(1, 10_000),
    },
    "formations": {
        "min_line": Int(2, 8),
        "min_group": Int(2, 64),
        "extra": Int(2, 64),
        "big": Int(2, 64),
    },
    "scoring": {
        "thresholds": List(Int(1, 10_000), 1, 16),
        "points": List(Float(), 1, 16),
    },
    "limits": {"max_turns": Int(1, 1_000_000)},
    "report": {"target_turns": List(Int(0, 1_000_000), 2, 2)},
    "bots": Optional(Table(_WEIGHTS, "a table of bot kind = weights"), {}),
    "personas": Optional(Table({"bot": Str(BOT_KINDS), **_WEIGHTS}), {}),
}


@dataclass(frozen=True)
class Kind:
    """One kind of cube: its name, how many are in the game, and what it does."""

    name: str
    count: int
    animal: bool
    special: str
    letter: str


@dataclass(frozen=True)
class VoraConfig(ActionBlocks):
    """A validated Vora config with derived sizes and the action numbering."""

    size: int
    kinds: tuple[Kind, ...]
    seats: dict  # player count -> tuple of side indices, one per seat
    first_farm: int
    other_farm: int
    farm_extra: tuple[int, ...]  # cubes added to each seat's starting farm (a balancing variant), by seat
    max_setup_attempts: int
    min_line: int
    min_group: int
    extra_size: int
    big_size: int
    thresholds: tuple[int, ...]
    points: tuple[float, ...]
    max_turns: int
    target_turns: tuple[int, int]
    bot_weights: dict  # bot kind -> weight name -> value ([bots.<kind>])
    personas: dict  # name -> (bot kind, weights) ([personas.<name>])
    loaded: LoadedConfig

    # --- sizes ----------------------------------------------------------------

    @cached_property
    def cells(self) -> int:
        return self.size * self.size

    @cached_property
    def num_kinds(self) -> int:
        return len(self.kinds)

    @cached_property
    def kind_names(self) -> tuple[str, ...]:
        return tuple(kind.name for kind in self.kinds)

    @cached_property
    def total_cubes(self) -> int:
        return sum(kind.count for kind in self.kinds)

    @cached_property
    def player_counts(self) -> tuple[int, ...]:
        return tuple(sorted(self.seats))

    def cube_kinds(self) -> list[int]:
        """The kind of every cube id: kind 0's cubes first, then kind 1's, and so on."""
        return [index for index, kind in enumerate(self.kinds) for _ in range(kind.count)]

    def kind_with(self, special: str) -> int:
        """Index of the kind with this special, or -1 if no kind has it."""
        return self._special_kinds.get(special, -1)

    @cached_property
    def _special_kinds(self) -> dict[str, int]:
        return {kind.special: index for index, kind in enumerate(self.kinds) if kind.special != "none"}

    def farm_size(self, seat: int) -> int:
        """Cubes seat ``seat`` draws into its farm at setup."""
        return (self.first_farm if seat == 0 else self.other_farm) + self.farm_extra[seat]

    # --- action numbering -----------------------------------------------------

    @cached_property
    def block_sizes(self) -> dict[str, int]:
        k, n, c = self.num_kinds, self.size, self.cells
        return {
            "push": k * 4 * n,
            "double": 4 * n,
            "devour": c,
            "wolf": 4 * n,
            "pick_up": c,
            "fly_swap": c * c,
            "dig": c * 8,
            "recipient": MAX_PLAYERS,
            "pick": c,
            "steal": MAX_PLAYERS * k,
            "decline": 1,
        }

    def encode_push(self, kind: int, side: int, line: int) -> int:
        return self.offsets["push"] + (kind * 4 + side) * self.size + line

    def encode_double(self, side: int, line: int) -> int:
        return self.offsets["double"] + side * self.size + line

    def encode_devour(self, cell: int) -> int:
        return self.offsets["devour"] + cell

    def encode_wolf(self, side: int, line: int) -> int:
        return self.offsets["wolf"] + side * self.size + line

    def encode_pick_up(self, cell: int) -> int:
        return self.offsets["pick_up"] + cell

    def encode_fly_swap(self, duck: int, target: int) -> int:
        return self.offsets["fly_swap"] + duck * self.cells + target

    def encode_dig(self, mole: int, direction: int) -> int:
        return self.offsets["dig"] + mole * 8 + direction

    def encode_recipient(self, seat: int) -> int:
        return self.offsets["recipient"] + seat

    def encode_pick(self, cell: int) -> int:
        return self.offsets["pick"] + cell

    def encode_steal(self, seat: int, kind: int) -> int:
        return self.offsets["steal"] + seat * self.num_kinds + kind

    def encode_decline(self) -> int:
        return self.offsets["decline"]

    def decode(self, action: int) -> tuple[str, tuple[int, ...]]:
        """``(block, fields)`` of an action number; fields as in the table of the module docstring.

        push -> (kind, side, line); double, wolf -> (side, line); devour,
        pick_up, pick -> (cell,); fly_swap -> (duck cell, target cell); dig ->
        (mole cell, direction); recipient -> (seat,); steal -> (seat, kind); decline -> ().
        """
        if not 0 <= action < self.num_actions:
            raise ValueError(f"action {action} is outside 0..{self.num_actions - 1}")
        n, c, k = self.size, self.cells, self.num_kinds
        for block, size in self.block_sizes.items():
            if action < size:
                break
            action -= size
        if block == "push":
            kind_side, line = divmod(action, n)
            return block, (*divmod(kind_side, 4), line)
        if block in ("double", "wolf"):
            return block, divmod(action, n)
        if block == "fly_swap":
            return block, divmod(action, c)
        if block == "dig":
            return block, divmod(action, 8)
        if block == "steal":
            return block, divmod(action, k)
        if block == "decline":
            return block, ()
        return block, (action,)


def _letters(kinds: list[dict], source: str) -> list[str]:
    """Each kind's one-character symbol: its ``letter``, else the first unused character of its name."""
    used: set[str] = set()
    letters = []
    for index, kind in enumerate(kinds):
        letter = kind["letter"]
        if letter is None:
            letter = next((ch for ch in kind["name"] if ch not in used), None)
            if letter is None:
                raise ConfigError(source, f"{item_key('kinds', index, kind)}.letter",
                                  "a letter (the name's letters are all taken)",
                                  has_got=False)
        if len(letter) != 1 or letter in used or letter.isspace() or letter == ".":
            raise ConfigError(source, f"{item_key('kinds', index, kind)}.letter",
                              "one character, not '.', a space or another kind's letter", letter)
        used.add(letter)
        letters.append(letter)
    return letters


def build(loaded: LoadedConfig) -> VoraConfig:
    """Cross-check a validated config and derive the typed config."""
    values, source = loaded.values, loaded.source
    size = values["meadow"]["size"]
    kinds_raw = values["kinds"]
    names = [kind["name"] for kind in kinds_raw]
    for index, name in enumerate(names):
        if not _NAME.match(name):
            raise ConfigError(source, f"kinds[{index}].name", "a lowercase name (a-z, 0-9, _)", name)
        if name in names[:index]:
            raise ConfigError(source, f"kinds[{index}].name", "a name no other kind has", name)
    specials = [kind["special"] for kind in kinds_raw]
    for index, special in enumerate(specials):
        if special != "none" and special in specials[:index]:
            raise ConfigError(source, f"{item_key('kinds', index, kinds_raw[index])}.special",
                              "a special no other kind has (or none)", special)
    letters = _letters(kinds_raw, source)
    kinds = tuple(Kind(k["name"], k["count"], k["animal"], k["special"], letter)
                  for k, letter in zip(kinds_raw, letters))

    seats: dict[int, tuple[int, ...]] = {}
    for key, sides in values["seats"].items():
        if key not in ("2", "3", "4"):
            raise ConfigError(source, f"seats.{key}", "a player count from 2 to 4 as the key", has_got=False)
        players = int(key)
        if len(sides) != players or len(set(sides)) != players:
            raise ConfigError(source, f"seats.{key}", f"{players} different sides (N, E, S, W)", sides)
        seats[players] = tuple(SIDES.index(side) for side in sides)
    if not seats:
        raise ConfigError(source, "seats", "at least one player count", has_got=False)

    setup = values["setup"]
    total = sum(kind.count for kind in kinds)
    needed = (size * size + setup["first_farm"] + setup["other_farm"] * (max(seats) - 1)
              + sum(setup["farm_extra"][:max(seats)]))
    if total < needed:
        raise ConfigError(source, "kinds", f"at least {needed} cubes in all (meadow and farms at setup)", total)

    formations = values["formations"]
    if formations["extra"] >= formations["big"]:
        raise ConfigError(source, "formations.extra", f"less than formations.big ({formations['big']})",
                          formations["extra"])
    if formations["min_line"] > size:
        raise ConfigError(source, "formations.min_line", f"at most meadow.size ({size})", formations["min_line"])
    if formations["min_group"] > size * size:  # rules §7.3: a full meadow of one kind is always a formation
        raise ConfigError(source, "formations.min_group", f"at most the meadow's cells ({size * size})",
                          formations["min_group"])

    scoring = values["scoring"]
    thresholds, points = scoring["thresholds"], scoring["points"]
    if any(b <= a for a, b in zip(thresholds, thresholds[1:])):
        raise ConfigError(source, "scoring.thresholds", "strictly ascending counts", thresholds)
    if len(points) != len(thresholds):
        raise ConfigError(source, "scoring.points", f"{len(thresholds)} values, one per threshold", points)
    low, high = values["report"]["target_turns"]
    if low > high:
        raise ConfigError(source, "report.target_turns", "[shortest, longest] with shortest <= longest", [low, high])
    bot_weights, personas = _bots(values, source)

    return VoraConfig(
        size=size,
        kinds=kinds,
        seats=seats,
        first_farm=setup["first_farm"],
        other_farm=setup["other_farm"],
        farm_extra=tuple(setup["farm_extra"]),
        max_setup_attempts=setup["max_attempts"],
        min_line=formations["min_line"],
        min_group=formations["min_group"],
        extra_size=formations["extra"],
        big_size=formations["big"],
        thresholds=tuple(thresholds),
        points=tuple(points),
        max_turns=values["limits"]["max_turns"],
        target_turns=(low, high),
        bot_weights=bot_weights,
        personas=personas,
        loaded=loaded,
    )


def _bots(values: dict, source: str) -> tuple[dict, dict]:
    """``[bots.<kind>]`` and ``[personas.<name>]``: known bot kinds, every weight a number from -1000 to 1000."""
    for kind in values["bots"]:
        if kind not in BOT_KINDS:
            raise ConfigError(source, f"bots.{kind}", f"a bot kind ({', '.join(BOT_KINDS)})", has_got=False)
    bot_weights, personas = bot_tables(values, source, {}, PLANNER_OWN)
    tables = [(f"bots.{kind}", weights) for kind, weights in bot_weights.items()]
    tables += [(f"personas.{name}", weights) for name, (_, weights) in personas.items()]
    for key, weights in tables:
        for name, value in weights.items():
            if not math.isfinite(value):
                raise ConfigError(source, f"{key}.{name}", "a number from -1000.0 to 1000.0", value)
    return bot_weights, personas


def weight_vector(weights: Mapping[str, float]) -> list[float]:
    """The greedy weights in ``WEIGHT_NAMES`` order, unset ones from ``DEFAULT_WEIGHTS`` (other keys, such as the
    planner's ``candidates``, ignored)."""
    return [float(weights.get(name, DEFAULT_WEIGHTS[name])) for name in WEIGHT_NAMES]


def load(path: Path | None = None, overrides: Iterable[str] = ()) -> VoraConfig:
    """Read ``configs/games/vora.toml`` (or ``path``) with overrides applied."""
    return build(load_config("vora", SCHEMA, path, overrides))
