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

Rulings (the project rulings, the lead's rulings, and the ones added here)
-------------------------------------------------------------------------
* **Kinds** come from ``[[kinds]]``, in order (kind index = position): name,
  count, ``animal`` (crow and wolf may devour it; a duck may only swap with a
  non-animal) and ``special``, one of ``none, double_push, devour, wolf,
  pick_up, fly_swap, dig, grazer, liquid, pasture``; each special other than
  ``none`` at most once. A special missing from the config never applies.
* **Setup.** Cubes are numbered kind by kind in config order (kind 0 gets
  ids ``0 .. count0-1``, and so on). The bag is one order of all cubes,
  ``shuffle_order(seed, "bag", attempt, total)``, starting at attempt 0. The
  meadow takes the first ``N*N`` cubes in row-major order; if it holds any
  collectable formation, the whole bag is reshuffled with ``attempt + 1``. If
  ``setup.max_attempts`` attempts all hold a formation, the last one is used
  as it is (added ruling: a bound both engines share; it never happens with
  the default bag). Then seats draw farm cubes in seat order from the same
  order (seat 0 ``setup.first_farm`` = 2, every other seat
  ``setup.other_farm`` = 1); the *bag pointer* marks the first cube not yet
  drawn.
* **A turn** is one main action, then the sub-decisions it causes, each a
  separate decision of the active player (``to_move`` stays the active
  player). Phases: MAIN, RECIPIENT (who gets a fallen cube on an unseated
  side: any seat, self included), EXTRA (pick any meadow cube into your farm),
  BIG (pick a meadow cube, or steal: opponent seat x kind, never an
  opponent's last farm cube). A sub-decision with one legal option is still
  presented; one with none (EXTRA with an empty meadow; BIG with an empty
  meadow and nothing to steal) is skipped.
* **Push** (any farm cube, any side, any line): the cube enters at the edge
  cell, the line shifts one cell away from the side, the far cube falls out
  on the opposite side. **Double push** (the ``double_push`` kind, from the
  farm): the line shifts two cells, the pig lands on the second cell from the
  edge, the edge cell stays empty until refill, the two far cubes fall out,
  the farthest first. A fallen cube on a seated side goes to that seat at
  once; on an unseated side it opens one RECIPIENT decision per cube, in
  order, before any collection.
* **Collect** (after the main action and its RECIPIENT decisions, and after
  every fall), all at once into the active player's farm: non-liquid kinds in
  maximal straight orthogonal runs of at least ``formations.min_line`` (3);
  the liquid kind in orthogonally connected groups of at least
  ``formations.min_group`` (3). With a grazer run, every pasture cube
  orthogonally adjacent to a cube of that run is collected too (not chained).
  A cube counts once.
* **Combos.** A *formation* is a set of same-kind runs joined by shared cubes
  (runs that only lie side by side are separate formations); a liquid group
  is one formation. Its *size* is its number of distinct cubes (pasture
  collected by a grazer does not count). Size ``>= formations.big`` (5) gives
  one BIG; otherwise size ``>= formations.extra`` (4) gives one EXTRA. With
  the defaults this is exactly: a single run of 4 or a liquid group of 4 ->
  EXTRA; a single run of 5+, any crossing of runs (T, L, Y, +: always 5+
  cubes) or a liquid group of 5+ -> BIG. After a collection all EXTRA
  decisions come first, then all BIG ones; picks take cubes out of the meadow
  before the fall.
* **Fall**: cubes slide towards one side (the *fall side*) to close gaps, in
  every line parallel to that direction. Push and double push: away from the
  entry side; wolf: away from the side it entered; every other action:
  towards the active player's side. The wolf placed this turn stays in its
  cell during every fall of the turn while it is in the meadow (the cubes of
  its line compact on each side of it). After a fall, collect again (combos
  again), fall again, until a collection finds nothing.
* **Specials.** Devour (crow, from farm): the crow takes the cell of any
  animal (``animal = true``, any kind, a crow included); the animal goes to
  your farm. Wolf (from farm): a side and a line whose edge cell holds an
  animal; the animal goes to your farm, the wolf takes its cell. Pick up
  (ladybug, in the meadow): the ladybug goes to your farm; fall towards you,
  refill, and NO collection this turn. Fly swap (duck, in the meadow): swap a
  duck with any non-animal cube. Dig (mole, in the meadow): swap a mole with
  one of its 8 neighbours on the meadow (a neighbour of the same kind is a
  legal swap that changes nothing). Devour, wolf, fly swap and dig then
  collect and fall as above.
* **Refill.** When a collection finds nothing, the empty cells are filled in
  row-major order from the bag pointer. If the bag holds fewer cubes than
  there are empty cells, what it has goes into the first empty cells
  (row-major) and the game ends after this turn (end ``"bag_empty"``). Then
  the next seat moves (``(seat + 1) % players``; also when the game ended).
  ``limits.max_turns`` completed turns -> ``"stall"``.
* **Forbidden.** No action may leave any player with an empty farm once fully
  resolved. Only the active player's pushes can empty a farm (devour and wolf
  give a cube, pick up gives a cube, swaps spend nothing, a steal needs a
  victim farm of 2 or more cubes). A push (single or double) of the active
  player's *last* farm cube is legal only if the fall side is the active
  player's own side, or the fall side is unseated, or the first collection
  after the push (which depends on no choice) is non-empty. In a RECIPIENT
  decision, giving the cube to another seat is illegal when, with it given
  away, the active player's farm would be empty, no further RECIPIENT
  decision of this push follows, and the first collection would be empty
  (added ruling: with a double push onto an unseated side, the first of the
  two fallen cubes may go away as long as the second can still come home).
* **Score.** A kind held ``n`` times scores ``points[i]`` for the largest
  ``i`` with ``n >= thresholds[i]``, else 0 (defaults: 0 -> 0, 1 -> -1,
  2 -> 0, 3-5 -> +1, 6-8 -> +3, 9+ -> +9). Highest total wins; equal totals
  share the rank (rank = 1 + number of seats with a strictly higher total).
  Stall: rank 0 for every seat (the scores are still the farms' totals).

Added rulings (the rulebook and the lead's list leave these open):

* The refill may complete formations; they stay in the meadow until the next
  collection, which any later action except a ladybug pick-up triggers (the
  collection looks at the whole meadow). The same holds for a setup meadow
  kept after ``max_attempts``.
* The pasture kind forms straight runs like any non-liquid kind; grass next
  to a sheep run is taken even if it is also part of a grass run of its own
  (that run still earns its own combo).
* "Never a last cube" for steals means the victim's whole farm: a steal needs
  the victim to hold 2 or more cubes in all (of any kinds).
* Crow and wolf may devour any animal, a crow or a wolf included. A dig may
  swap the mole with a neighbour of the same kind (the meadow is unchanged,
  but the turn still collects and refills). A duck swaps only with a
  non-empty, non-animal cell other than its own.
* An empty bag with a full meadow does not end the game; only a refill that
  cannot fill every empty cell does. ``to_move`` passes to the next seat at
  the end of every turn, the last one included.
* Cubes waiting for a RECIPIENT decision are in no farm, meadow or bag until
  it is taken.

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

Dig directions are the 8 neighbours in reading order: ``0 NW (-1,-1),
1 N (-1,0), 2 NE (-1,1), 3 W (0,-1), 4 E (0,1), 5 SW (1,-1), 6 S (1,0),
7 SE (1,1)`` as (row step, column step). With the defaults (K=9, N=5) there
are 1160 actions. Legal actions are always listed in ascending order.
"""

from __future__ import annotations

import re
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
    load_config,
    item_key,
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
BLOCKS = ("push", "double", "devour", "wolf", "pick_up", "fly_swap", "dig", "recipient", "pick", "steal")
PHASES = ("main", "recipient", "extra", "big")
END_REASONS = ("", "bag_empty", "stall")

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


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
    max_setup_attempts: int
    min_line: int
    min_group: int
    extra_size: int
    big_size: int
    thresholds: tuple[int, ...]
    points: tuple[float, ...]
    max_turns: int
    target_turns: tuple[int, int]
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
        return self.first_farm if seat == 0 else self.other_farm

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

    def decode(self, action: int) -> tuple[str, tuple[int, ...]]:
        """``(block, fields)`` of an action number; fields as in the table of the module docstring.

        push -> (kind, side, line); double, wolf -> (side, line); devour,
        pick_up, pick -> (cell,); fly_swap -> (duck cell, target cell); dig ->
        (mole cell, direction); recipient -> (seat,); steal -> (seat, kind).
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
    needed = size * size + setup["first_farm"] + setup["other_farm"] * (max(seats) - 1)
    if total < needed:
        raise ConfigError(source, "kinds", f"at least {needed} cubes in all (meadow and farms at setup)", total)

    formations = values["formations"]
    if formations["extra"] >= formations["big"]:
        raise ConfigError(source, "formations.extra", f"less than formations.big ({formations['big']})",
                          formations["extra"])
    if formations["min_line"] > size:
        raise ConfigError(source, "formations.min_line", f"at most meadow.size ({size})", formations["min_line"])

    scoring = values["scoring"]
    thresholds, points = scoring["thresholds"], scoring["points"]
    if any(b <= a for a, b in zip(thresholds, thresholds[1:])):
        raise ConfigError(source, "scoring.thresholds", "strictly ascending counts", thresholds)
    if len(points) != len(thresholds):
        raise ConfigError(source, "scoring.points", f"{len(thresholds)} values, one per threshold", points)
    low, high = values["report"]["target_turns"]
    if low > high:
        raise ConfigError(source, "report.target_turns", "[shortest, longest] with shortest <= longest", [low, high])

    return VoraConfig(
        size=size,
        kinds=kinds,
        seats=seats,
        first_farm=setup["first_farm"],
        other_farm=setup["other_farm"],
        max_setup_attempts=setup["max_attempts"],
        min_line=formations["min_line"],
        min_group=formations["min_group"],
        extra_size=formations["extra"],
        big_size=formations["big"],
        thresholds=tuple(thresholds),
        points=tuple(points),
        max_turns=values["limits"]["max_turns"],
        target_turns=(low, high),
        loaded=loaded,
    )


def load(path: Path | None = None, overrides: Iterable[str] = ()) -> VoraConfig:
    """Read ``configs/games/vora.toml`` (or ``path``) with overrides applied."""
    return build(load_config("vora", SCHEMA, path, overrides))
