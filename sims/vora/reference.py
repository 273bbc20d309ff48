"""Vora, one game in plain Python: the rules oracle for ``glade verify``.

The rules and rulings are in ``docs/rules/vora.md`` (its sections are the
ones cited in the code); geometry and action numbering are in
:mod:`sims.vora.config`. This module follows the rules one small function or
method per rule. The default 5x5 meadow, cell numbers row-major::

                 N (side 0)
          0   1   2   3   4
    W     5   6   7   8   9     E
   (3)   10  11  12  13  14    (1)
         15  16  17  18  19
         20  21  22  23  24
                 S (side 2)

A turn, as the engine runs it (``run_turn`` is the state machine)::

    MAIN action
      push / double push: fallen cubes -> seated side: that farm at once;
                          unseated side: one RECIPIENT decision each, in order
      ladybug pick-up:    fall towards the mover, refill, end of turn
    repeat:
      collect every formation into the mover's farm; nothing -> leave the loop
      EXTRA decisions (one per EXTRA combo), then BIG decisions (one per BIG);
      each may be declined
      fall (the turn's fall side; the wolf placed this turn stays put)
    refill from the bag row by row; short -> the game ends after this turn
    next seat

Sub-decisions without any legal option are skipped where they come up (an
EXTRA with an empty meadow, a BIG with an empty meadow and nothing to steal).

Records: per seat ``farm_<kind>`` (the farm at the end) and the statistics
``collected`` (cubes taken by collections, grazed pasture included),
``extras`` and ``bigs`` (combos earned), ``picks`` (cubes picked from the
meadow by EXTRA and BIG decisions), ``steals`` (made), ``stolen`` (suffered),
``declines`` (EXTRA and BIG decisions declined), ``pushes`` (single pushes), ``received`` (fallen cubes that went into the
seat's farm, from a seated side or by a RECIPIENT decision) and
``special_<name>`` for each of ``double_push, devour, wolf, pick_up,
fly_swap, dig`` (actions of that kind taken). ``events`` holds one row per
decision taken (main action or sub-decision): ``turn, seat, decision,
action, kind`` (push, double_push, devour, wolf, pick_up, fly_swap, dig,
recipient, extra_pick, big_pick, steal, decline), ``cube`` (the kind name pushed,
devoured, picked up, given, picked or stolen; the duck or mole for swaps),
``target`` (the seat given a fallen cube or stolen from; -1 otherwise) and
``collected``, ``extras``, ``bigs``: what the collections between this
decision and the next decision (or the end of the turn) took and earned.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from sims.core.engine import STALL, ReferenceGame
from sims.core.rng import shuffle_order
from sims.vora.config import ACTION_SPECIALS, DIRECTIONS, LOOP_MEMORY, OPPOSITE, VoraConfig

EMPTY = -1
BAG_EMPTY = "bag_empty"
MAIN, RECIPIENT, EXTRA, BIG = "main", "recipient", "extra", "big"
# Where the turn goes on after the decisions pending now are taken.
COLLECT, FALL, LADYBUG_FALL, REFILL = "collect", "fall", "ladybug_fall", "refill"

ORTHOGONAL = ((-1, 0), (1, 0), (0, -1), (0, 1))


# --- geometry ------------------------------------------------------------------

@lru_cache(maxsize=None)
def line_cells(size: int, side: int, line: int) -> tuple[int, ...]:
    """Rules §1.1: The cells of line ``line`` entered from ``side``, from that side's edge inward.

    N: column ``line`` top to bottom; S: bottom to top; W: row ``line`` left
    to right; E: right to left.
    """
    if side == 0:
        return tuple(i * size + line for i in range(size))
    if side == 2:
        return tuple((size - 1 - i) * size + line for i in range(size))
    if side == 3:
        return tuple(line * size + i for i in range(size))
    return tuple(line * size + (size - 1 - i) for i in range(size))


@lru_cache(maxsize=None)
def all_lines(size: int) -> tuple[tuple[int, ...], ...]:
    """Rules §1.1: Every row (left to right), then every column (top to bottom)."""
    return tuple(line_cells(size, 3, r) for r in range(size)) + tuple(line_cells(size, 0, c) for c in range(size))


def neighbour(size: int, cell: int, step: tuple[int, int]) -> int | None:
    """Rules §1.1: The cell one ``(row step, column step)`` from ``cell``; None off the meadow."""
    row, col = divmod(cell, size)
    row, col = row + step[0], col + step[1]
    if 0 <= row < size and 0 <= col < size:
        return row * size + col
    return None


@lru_cache(maxsize=None)
def orthogonal_neighbours(size: int) -> tuple[tuple[int, ...], ...]:
    """For each cell, its orthogonal neighbours on the meadow."""
    return tuple(tuple(n for step in ORTHOGONAL if (n := neighbour(size, cell, step)) is not None)
                 for cell in range(size * size))


# --- formations ------------------------------------------------------------------

@dataclass(frozen=True)
class Formation:
    """Cubes of one kind collected together: runs joined by shared cubes, or a liquid group.

    ``grazed`` are the pasture cubes collected with a grazer formation; they
    do not count toward ``size``.
    """

    kind: int
    cells: frozenset[int]
    runs: int  # straight runs it is made of (0 for a liquid group)
    grazed: frozenset[int] = frozenset()

    @property
    def size(self) -> int:
        """Rules §6.3."""
        return len(self.cells)


def straight_runs(config: VoraConfig, meadow: Sequence[int]) -> list[tuple[int, tuple[int, ...]]]:
    """Rules §6.1: Maximal straight runs of ``min_line`` or more cubes of one non-liquid kind: (kind, cells)."""
    size, liquid = config.size, config.kind_with("liquid")
    found = []
    for cells in all_lines(size):
        start = 0
        while start < size:
            kind = meadow[cells[start]]
            stop = start + 1
            while stop < size and meadow[cells[stop]] == kind:
                stop += 1
            if kind != EMPTY and kind != liquid and stop - start >= config.min_line:
                found.append((kind, tuple(cells[start:stop])))
            start = stop
    return found


def liquid_groups(config: VoraConfig, meadow: Sequence[int]) -> list[frozenset[int]]:
    """Rules §5.7: Orthogonally connected groups of ``min_group`` or more cubes of the liquid kind."""
    liquid = config.kind_with("liquid")
    if liquid < 0:
        return []
    seen: set[int] = set()
    groups = []
    for start in range(config.cells):
        if meadow[start] != liquid or start in seen:
            continue
        group, frontier = {start}, [start]
        while frontier:
            cell = frontier.pop()
            for other in orthogonal_neighbours(config.size)[cell]:
                if other not in group and meadow[other] == liquid:
                    group.add(other)
                    frontier.append(other)
        seen |= group
        if len(group) >= config.min_group:
            groups.append(frozenset(group))
    return groups


def join_runs(runs: list[tuple[int, tuple[int, ...]]]) -> list[tuple[int, set[int], int]]:
    """Rules §6.2: Group runs that share a cube (a cross, T, L, Y) into formations: (kind, cells, number of runs)."""
    groups: list[tuple[int, set[int], int]] = []
    for kind, cells in runs:
        merged_cells, merged_runs = set(cells), 1
        keep = []
        for group in groups:
            if group[0] == kind and group[1] & merged_cells:
                merged_cells |= group[1]
                merged_runs += group[2]
            else:
                keep.append(group)
        groups = keep + [(kind, merged_cells, merged_runs)]
    return groups


def grazed_pasture(config: VoraConfig, meadow: Sequence[int], cells: set[int]) -> frozenset[int]:
    """Rules §5.6: Pasture cubes orthogonally next to any of ``cells`` (a grazer formation's cubes)."""
    pasture = config.kind_with("pasture")
    if pasture < 0:
        return frozenset()
    found = set()
    for cell in cells:
        for other in orthogonal_neighbours(config.size)[cell]:
            if meadow[other] == pasture:
                found.add(other)
    return frozenset(found)


def find_formations(config: VoraConfig, meadow: Sequence[int]) -> list[Formation]:
    """Rules §6.1: Every collectable formation of the meadow, ordered by their smallest cell."""
    grazer = config.kind_with("grazer")
    formations = []
    for kind, cells, runs in join_runs(straight_runs(config, meadow)):
        grazed = grazed_pasture(config, meadow, cells) if kind == grazer else frozenset()
        formations.append(Formation(kind, frozenset(cells), runs, grazed))
    for group in liquid_groups(config, meadow):
        formations.append(Formation(config.kind_with("liquid"), group, 0))
    return sorted(formations, key=lambda f: min(f.cells))


def combo_of(config: VoraConfig, formation: Formation) -> str | None:
    """Rules §6.4: The combo a formation earns: ``"big"`` (size >= big), ``"extra"`` (size >= extra) or None."""
    if formation.size >= config.big_size:
        return BIG
    if formation.size >= config.extra_size:
        return EXTRA
    return None


# --- moving cubes ------------------------------------------------------------------

def push_line(meadow: Sequence[int], size: int, side: int, line: int, kind: int,
              double: bool = False) -> tuple[list[int], list[int]]:
    """Rules §4.1, §4.3: A push of ``kind`` from ``side`` into ``line``: (new meadow, fallen kinds, farthest first).

    Single: the cube enters the edge cell, the line shifts one cell, the far
    cube falls out. Double: the line shifts two cells, the cube lands on the
    second cell, the edge cell is left empty, the two far cubes fall out.
    """
    cells = line_cells(size, side, line)
    old = [meadow[c] for c in cells]
    if double:
        new, fallen = [EMPTY, kind] + old[:-2], [old[-1], old[-2]]
    else:
        new, fallen = [kind] + old[:-1], [old[-1]]
    after = list(meadow)
    for cell, cube in zip(cells, new):
        after[cell] = cube
    return after, [cube for cube in fallen if cube != EMPTY]


def fall_meadow(meadow: Sequence[int], size: int, towards: int, fixed: int = EMPTY) -> list[int]:
    """Rules §6.5: Cubes slide towards side ``towards`` to close gaps, every line parallel to that direction.

    A cube on ``fixed`` (the wolf placed this turn) does not move: the cubes
    of its line compact on each side of it.
    """
    after = list(meadow)
    for line in range(size):
        cells = line_cells(size, towards, line)  # downhill first
        segments, current = [], []
        for cell in cells:
            if cell == fixed:
                segments.append(current)
                current = []
            else:
                current.append(cell)
        segments.append(current)
        for segment in segments:
            cubes = [meadow[c] for c in segment if meadow[c] != EMPTY]
            cubes += [EMPTY] * (len(segment) - len(cubes))
            for cell, cube in zip(segment, cubes):
                after[cell] = cube
    return after


# --- scoring ---------------------------------------------------------------------------

def family_points(config: VoraConfig, count: int) -> float:
    """Rules §9.1: Points of one kind held ``count`` times: ``points[i]`` for the largest ``thresholds[i] <= count``."""
    points = 0.0
    for threshold, value in zip(config.thresholds, config.points):
        if count >= threshold:
            points = float(value)
    return points


def farm_score(config: VoraConfig, farm: Sequence[int]) -> float:
    """Rules §9.1: Sum of :func:`family_points` over the kinds, in kind order."""
    total = 0.0
    for count in farm:
        total += family_points(config, count)
    return total


def ranks(scores: Sequence[float]) -> list[int]:
    """Rules §9.2: 1 + the number of seats with a strictly higher score (equal scores share a rank)."""
    return [1 + sum(other > mine for other in scores) for mine in scores]


# --- setup ------------------------------------------------------------------------------

def deal(config: VoraConfig, seed: int) -> tuple[list[int], int]:
    """The bag (kinds in drawing order) and the attempt used: the first shuffle whose meadow has no formation.

    Rules §2.1.

    If every attempt up to ``max_setup_attempts`` holds a formation, the last
    one is used as it is.
    """
    cube_kinds = config.cube_kinds()
    seeds = np.array([seed], dtype=np.uint64)
    for attempt in range(config.max_setup_attempts):
        order = shuffle_order(seeds, "bag", attempt, len(cube_kinds))[0]
        bag = [cube_kinds[int(i)] for i in order]
        if not find_formations(config, bag[: config.cells]):
            break
    return bag, attempt


class VoraGame(ReferenceGame):
    """One game of Vora for ``players`` seats, dealt from ``seed``."""

    def __init__(self, config: VoraConfig, players: int, seed: int):
        if players not in config.seats:
            raise ValueError(f"Vora has no seating for {players} players (config seats: {config.player_counts})")
        self.config = config
        self.players = players
        self.seed = int(seed)
        self.seat_sides: list[int] = list(config.seats[players])
        self.side_seats: list[int] = [EMPTY] * 4  # seat at each side, or EMPTY
        for seat, side in enumerate(self.seat_sides):
            self.side_seats[side] = seat

        self.bag, self.setup_attempt = deal(config, self.seed)
        self.meadow: list[int] = self.bag[: config.cells]
        self.farms: list[list[int]] = [[0] * config.num_kinds for _ in range(players)]
        self.bag_pointer = config.cells
        for seat in range(players):
            for _ in range(config.farm_size(seat)):
                self.farms[seat][self.bag[self.bag_pointer]] += 1
                self.bag_pointer += 1

        self.to_move = 0
        self.turn = 0
        self.decisions = 0
        self.done = False
        self.end = ""
        self.phase = MAIN
        # the turn in progress
        self.stage = COLLECT
        self.recipients: list[int] = []  # kinds of fallen cubes waiting for a RECIPIENT decision
        self.extras_pending = 0
        self.bigs_pending = 0
        self.fall_side = 0
        self.fixed_cell = EMPTY
        # the meadows before the last main actions, last first (not a rule: the bots' no-loop rule reads them)
        self.meadows_before: list[list[int]] = [[EMPTY] * config.cells] * LOOP_MEMORY
        # records
        self.stats: dict[str, list[int]] = {name: [0] * players for name in self.stat_names()}
        self.events: list[dict[str, Any]] = []

    @staticmethod
    def stat_names() -> list[str]:
        return ["collected", "extras", "bigs", "picks", "steals", "stolen", "declines", "pushes", "received"] + [
            f"special_{name}" for name in ACTION_SPECIALS]

    def clone(self) -> "VoraGame":
        """An independent copy of the game (sharing the config and the bag order, which never change)."""
        other = object.__new__(VoraGame)
        other.__dict__.update(self.__dict__)
        other.meadow = list(self.meadow)
        other.farms = [list(farm) for farm in self.farms]
        other.recipients = list(self.recipients)
        other.stats = {name: list(values) for name, values in self.stats.items()}
        # only the last row is ever updated later
        other.events = self.events[:-1] + [dict(self.events[-1])] if self.events else []
        return other

    # --- small queries ---------------------------------------------------------------

    def farm_total(self, seat: int) -> int:
        return sum(self.farms[seat])

    def bag_left(self) -> int:
        return len(self.bag) - self.bag_pointer

    def kind_at(self, cell: int) -> int:
        return self.meadow[cell]

    def is_animal(self, kind: int) -> bool:
        """Rules §1.2."""
        return kind != EMPTY and self.config.kinds[kind].animal

    def has_special(self, kind: int, special: str) -> bool:
        """Rules §1.2."""
        return kind != EMPTY and self.config.kinds[kind].special == special

    def edge_cell(self, side: int, line: int) -> int:
        return line_cells(self.config.size, side, line)[0]

    def score(self, seat: int) -> float:
        return farm_score(self.config, self.farms[seat])

    # --- legality -----------------------------------------------------------------------

    def push_keeps_a_cube(self, side: int, line: int, kind: int, double: bool) -> bool:
        """Rules §8: The forbidden rule for a push: does the mover surely end the turn with a farm cube?

        Only a push of the mover's last cube can empty their farm. It is legal
        if the cubes fall on the mover's own side or on an unseated side (the
        RECIPIENT decision can give one back), or if the first collection
        after the push, which depends on no choice, is non-empty.
        """
        me = self.to_move
        if self.farm_total(me) > 1:
            return True
        fall_seat = self.side_seats[OPPOSITE[side]]
        if fall_seat == me or fall_seat == EMPTY:
            return True
        after, _ = push_line(self.meadow, self.config.size, side, line, kind, double)
        return bool(find_formations(self.config, after))

    def recipient_allowed(self, seat: int) -> bool:
        """Rules §8: The forbidden rule for a RECIPIENT decision: giving the cube away must not strand the mover.

        Giving to another seat is illegal when the mover's farm is empty, this
        is the push's last fallen cube, and no collection is coming.
        """
        me = self.to_move
        if seat == me or self.farm_total(me) > 0 or len(self.recipients) > 1:
            return True
        return bool(find_formations(self.config, self.meadow))

    def steal_allowed(self, seat: int, kind: int) -> bool:
        """Rules §6.4, §8: An opponent's cube of ``kind``, never the last cube of their farm."""
        return (seat != self.to_move and seat < self.players and self.farms[seat][kind] > 0
                and self.farm_total(seat) > 1)

    def pick_cells(self) -> list[int]:
        return [cell for cell in range(self.config.cells) if self.meadow[cell] != EMPTY]

    def steal_options(self) -> list[tuple[int, int]]:
        return [(seat, kind) for seat in range(self.players) for kind in range(self.config.num_kinds)
                if self.steal_allowed(seat, kind)]

    def is_legal(self, action: int) -> bool:
        """Is ``action`` legal now? Checks the one action (``legal_actions`` lists them all)."""
        config = self.config
        if self.done or not 0 <= action < config.num_actions:
            return False
        block, fields = config.decode(action)
        me = self.to_move
        if self.phase == RECIPIENT:
            return block == "recipient" and fields[0] < self.players and self.recipient_allowed(fields[0])
        if self.phase in (EXTRA, BIG) and block == "decline":
            return True
        if self.phase == EXTRA:
            return block == "pick" and self.meadow[fields[0]] != EMPTY
        if self.phase == BIG:
            if block == "pick":
                return self.meadow[fields[0]] != EMPTY
            return block == "steal" and self.steal_allowed(*fields)
        farm = self.farms[me]
        if block == "push":
            kind, side, line = fields
            return farm[kind] > 0 and self.push_keeps_a_cube(side, line, kind, False)
        if block == "double":
            pig = config.kind_with("double_push")
            return pig >= 0 and farm[pig] > 0 and self.push_keeps_a_cube(*fields, pig, True)
        if block == "devour":
            crow = config.kind_with("devour")
            return crow >= 0 and farm[crow] > 0 and self.is_animal(self.meadow[fields[0]])
        if block == "wolf":
            wolf = config.kind_with("wolf")
            return wolf >= 0 and farm[wolf] > 0 and self.is_animal(self.meadow[self.edge_cell(*fields)])
        if block == "pick_up":
            return self.has_special(self.meadow[fields[0]], "pick_up")
        if block == "fly_swap":
            duck, target = fields
            return (self.has_special(self.meadow[duck], "fly_swap") and target != duck
                    and self.meadow[target] != EMPTY and not self.is_animal(self.meadow[target]))
        if block == "dig":
            mole, direction = fields
            return (self.has_special(self.meadow[mole], "dig")
                    and neighbour(config.size, mole, DIRECTIONS[direction]) is not None)
        return False

    def legal_actions(self) -> list[int]:
        """Rules §3.1."""
        if self.done:
            return []
        config, me = self.config, self.to_move
        if self.phase == RECIPIENT:
            return [config.encode_recipient(s) for s in range(self.players) if self.recipient_allowed(s)]
        if self.phase == EXTRA:
            return [config.encode_pick(c) for c in self.pick_cells()] + [config.encode_decline()]
        if self.phase == BIG:
            return ([config.encode_pick(c) for c in self.pick_cells()]
                    + [config.encode_steal(s, k) for s, k in self.steal_options()] + [config.encode_decline()])
        n, farm, meadow = config.size, self.farms[me], self.meadow
        last_cube = self.farm_total(me) == 1  # only then can a push be forbidden
        actions: list[int] = []
        for kind in range(config.num_kinds):
            if farm[kind] > 0:
                actions += [config.encode_push(kind, side, line) for side in range(4) for line in range(n)
                            if not last_cube or self.push_keeps_a_cube(side, line, kind, False)]
        pig = config.kind_with("double_push")
        if pig >= 0 and farm[pig] > 0:
            actions += [config.encode_double(side, line) for side in range(4) for line in range(n)
                        if not last_cube or self.push_keeps_a_cube(side, line, pig, True)]
        animal_cells = [c for c in range(config.cells) if self.is_animal(meadow[c])]
        crow = config.kind_with("devour")
        if crow >= 0 and farm[crow] > 0:
            actions += [config.encode_devour(c) for c in animal_cells]
        wolf = config.kind_with("wolf")
        if wolf >= 0 and farm[wolf] > 0:
            actions += [config.encode_wolf(side, line) for side in range(4) for line in range(n)
                        if self.is_animal(meadow[self.edge_cell(side, line)])]
        ladybug, duck, mole = config.kind_with("pick_up"), config.kind_with("fly_swap"), config.kind_with("dig")
        actions += [config.encode_pick_up(c) for c in range(config.cells) if ladybug >= 0 and meadow[c] == ladybug]
        if duck >= 0 and duck in meadow:
            swap_targets = [c for c in range(config.cells) if meadow[c] != EMPTY and not self.is_animal(meadow[c])]
            for cell in range(config.cells):
                if meadow[cell] == duck:
                    actions += [config.encode_fly_swap(cell, t) for t in swap_targets if t != cell]
        if mole >= 0 and mole in meadow:
            for cell in range(config.cells):
                if meadow[cell] == mole:
                    actions += [config.encode_dig(cell, d) for d, step in enumerate(DIRECTIONS)
                                if neighbour(n, cell, step) is not None]
        return actions

    # --- a decision ------------------------------------------------------------------------

    def apply(self, action: int) -> None:
        """Rules §3.1."""
        if not self.is_legal(action):
            raise ValueError(f"action {action} is not legal (turn {self.turn}, seat {self.to_move}, "
                             f"phase {self.phase})")
        block, fields = self.config.decode(action)
        self.events.append({"turn": self.turn, "seat": self.to_move, "decision": self.decisions,
                            "action": action, "kind": block, "cube": "", "target": EMPTY,
                            "collected": 0, "extras": 0, "bigs": 0})
        if self.phase == MAIN:
            self.meadows_before = [list(self.meadow)] + self.meadows_before[:-1]
            self.stage = COLLECT
            getattr(self, f"do_{block}")(*fields)
        elif self.phase == RECIPIENT:
            self.give_fallen(fields[0])
        elif block == "decline":
            self.decline()
        elif self.phase == EXTRA:
            self.extras_pending -= 1
            self.pick(fields[0], "extra_pick")
        elif block == "pick":
            self.bigs_pending -= 1
            self.pick(fields[0], "big_pick")
        else:
            self.bigs_pending -= 1
            self.steal(*fields)
        self.run_turn()

    def note(self, kind: str | None = None, cube: int = EMPTY, target: int = EMPTY) -> None:
        """Fill in the current decision's event row."""
        row = self.events[-1]
        if kind is not None:
            row["kind"] = kind
        if cube != EMPTY:
            row["cube"] = self.config.kinds[cube].name
        row["target"] = target

    def count(self, stat: str, seat: int, amount: int = 1) -> None:
        self.stats[stat][seat] += amount

    # --- main actions -------------------------------------------------------------------------

    def do_push(self, kind: int, side: int, line: int) -> None:
        """Rules §4.1: Push: a farm cube enters from ``side`` into ``line``; the far cube falls out opposite."""
        self.farms[self.to_move][kind] -= 1
        self.count("pushes", self.to_move)
        self.note("push", kind)
        self.push_and_drop(side, line, kind, double=False)

    def do_double(self, side: int, line: int) -> None:
        """Rules §4.3: Double push: the pig shifts the line two cells; two cubes fall out, the farthest first."""
        pig = self.config.kind_with("double_push")
        self.farms[self.to_move][pig] -= 1
        self.count("special_double_push", self.to_move)
        self.note("double_push", pig)
        self.push_and_drop(side, line, pig, double=True)

    def push_and_drop(self, side: int, line: int, kind: int, double: bool) -> None:
        """Rules §4.2: Move the line, set the fall side (the push direction) and hand out the fallen cubes."""
        self.meadow, fallen = push_line(self.meadow, self.config.size, side, line, kind, double)
        self.fall_side = OPPOSITE[side]
        seat = self.side_seats[self.fall_side]
        for cube in fallen:
            if seat == EMPTY:
                self.recipients.append(cube)
            else:
                self.farms[seat][cube] += 1
                self.count("received", seat)

    def do_devour(self, cell: int) -> None:
        """Rules §5.1, §5.8: Crow: it takes the cell of any animal, which goes to the mover's farm."""
        me, crow = self.to_move, self.config.kind_with("devour")
        prey = self.meadow[cell]
        self.farms[me][crow] -= 1
        self.farms[me][prey] += 1
        self.meadow[cell] = crow
        self.fall_side = self.seat_sides[me]
        self.count("special_devour", me)
        self.note("devour", prey)

    def do_wolf(self, side: int, line: int) -> None:
        """Rules §5.2: Wolf: enters from ``side`` onto the edge animal of ``line``, devours it, stays put this turn."""
        me, wolf = self.to_move, self.config.kind_with("wolf")
        cell = self.edge_cell(side, line)
        prey = self.meadow[cell]
        self.farms[me][wolf] -= 1
        self.farms[me][prey] += 1
        self.meadow[cell] = wolf
        self.fixed_cell = cell
        self.fall_side = OPPOSITE[side]
        self.count("special_wolf", me)
        self.note("wolf", prey)

    def do_pick_up(self, cell: int) -> None:
        """Rules §5.3: Ladybug: into the mover's farm; the turn ends with a fall towards the mover, no collection."""
        me = self.to_move
        self.farms[me][self.meadow[cell]] += 1
        self.note("pick_up", self.meadow[cell])
        self.meadow[cell] = EMPTY
        self.fall_side = self.seat_sides[me]
        self.stage = LADYBUG_FALL
        self.count("special_pick_up", me)

    def do_fly_swap(self, duck: int, target: int) -> None:
        """Rules §5.4, §5.8: Duck: swaps places with a non-animal cube anywhere."""
        self.note("fly_swap", self.meadow[duck])
        self.meadow[duck], self.meadow[target] = self.meadow[target], self.meadow[duck]
        self.fall_side = self.seat_sides[self.to_move]
        self.count("special_fly_swap", self.to_move)

    def do_dig(self, mole: int, direction: int) -> None:
        """Rules §5.5, §5.8: Mole: swaps places with one of its 8 neighbours."""
        other = neighbour(self.config.size, mole, DIRECTIONS[direction])
        self.note("dig", self.meadow[mole])
        self.meadow[mole], self.meadow[other] = self.meadow[other], self.meadow[mole]
        self.fall_side = self.seat_sides[self.to_move]
        self.count("special_dig", self.to_move)

    # --- sub-decisions ----------------------------------------------------------------------------

    def give_fallen(self, seat: int) -> None:
        """Rules §4.2: RECIPIENT: the first waiting fallen cube goes into ``seat``'s farm."""
        cube = self.recipients.pop(0)
        self.farms[seat][cube] += 1
        self.count("received", seat)
        self.note("recipient", cube, seat)

    def pick(self, cell: int, kind: str) -> None:
        """Rules §6.4: EXTRA or BIG: a meadow cube into the mover's farm."""
        cube = self.meadow[cell]
        self.farms[self.to_move][cube] += 1
        self.meadow[cell] = EMPTY
        if cell == self.fixed_cell:
            self.fixed_cell = EMPTY
        self.count("picks", self.to_move)
        self.note(kind, cube)

    def decline(self) -> None:
        """Rules §6.4: EXTRA or BIG: the mover declines the combo; nothing moves."""
        if self.phase == EXTRA:
            self.extras_pending -= 1
        else:
            self.bigs_pending -= 1
        self.count("declines", self.to_move)
        self.note("decline")

    def steal(self, seat: int, kind: int) -> None:
        """Rules §6.4: BIG: a cube of ``kind`` from ``seat``'s farm into the mover's."""
        self.farms[seat][kind] -= 1
        self.farms[self.to_move][kind] += 1
        self.count("steals", self.to_move)
        self.count("stolen", seat)
        self.note("steal", kind, seat)

    # --- the rest of the turn -----------------------------------------------------------------------

    def run_turn(self) -> None:
        """Rules §3.2, §6.6: Carry the turn on until the mover has a decision to take, or the turn is over."""
        while True:
            if self.recipients:
                self.phase = RECIPIENT
                return
            if self.extras_pending:
                if self.pick_cells():
                    self.phase = EXTRA
                    return
                self.extras_pending -= 1  # nothing to pick: skipped
                continue
            if self.bigs_pending:
                if self.pick_cells() or self.steal_options():
                    self.phase = BIG
                    return
                self.bigs_pending -= 1
                continue
            if self.stage == COLLECT:
                self.stage = FALL if self.collect() else REFILL
            elif self.stage == FALL:
                self.fall()
                self.stage = COLLECT
            elif self.stage == LADYBUG_FALL:
                self.fall()
                self.stage = REFILL
            else:
                short = self.refill()
                self.end_turn(short)
                return

    def collect(self) -> int:
        """Rules §6.1: Take every formation into the mover's farm and queue their combos; the number of cubes taken."""
        formations = find_formations(self.config, self.meadow)
        if not formations:
            return 0
        me = self.to_move
        taken: set[int] = set()
        for formation in formations:
            taken |= formation.cells | formation.grazed
        for cell in taken:
            self.farms[me][self.meadow[cell]] += 1
            self.meadow[cell] = EMPTY
        if self.fixed_cell in taken:
            self.fixed_cell = EMPTY
        combos = [combo_of(self.config, f) for f in formations]
        extras, bigs = combos.count(EXTRA), combos.count(BIG)
        self.extras_pending += extras
        self.bigs_pending += bigs
        self.count("collected", me, len(taken))
        self.count("extras", me, extras)
        self.count("bigs", me, bigs)
        row = self.events[-1]
        row["collected"] += len(taken)
        row["extras"] += extras
        row["bigs"] += bigs
        return len(taken)

    def fall(self) -> None:
        """Rules §6.5: Close the gaps towards the turn's fall side, the wolf placed this turn staying put."""
        self.meadow = fall_meadow(self.meadow, self.config.size, self.fall_side, self.fixed_cell)

    def refill(self) -> bool:
        """Rules §7.1: Fill the empty cells row by row from the bag; True if the bag ran short."""
        for cell in range(self.config.cells):
            if self.meadow[cell] == EMPTY:
                if self.bag_pointer == len(self.bag):
                    return True
                self.meadow[cell] = self.bag[self.bag_pointer]
                self.bag_pointer += 1
        return False

    def end_turn(self, bag_short: bool) -> None:
        """Rules §7.2."""
        self.phase = MAIN
        self.stage = COLLECT
        self.fixed_cell = EMPTY
        self.turn += 1
        self.to_move = (self.to_move + 1) % self.players
        if bag_short:
            self.done, self.end = True, BAG_EMPTY

    def stall(self) -> None:
        """Rules §7.4."""
        self.done, self.end = True, STALL

    # --- outcome ----------------------------------------------------------------------------------------

    def result(self) -> dict[str, Any]:
        """Rules §9.2."""
        scores = [self.score(seat) for seat in range(self.players)]
        rank = ranks(scores) if self.end == BAG_EMPTY else [0] * self.players
        columns: dict[str, list[int]] = {
            f"farm_{kind.name}": [self.farms[seat][k] for seat in range(self.players)]
            for k, kind in enumerate(self.config.kinds)}
        columns.update({name: list(values) for name, values in self.stats.items()})
        return {"score": scores, "rank": rank, "end": self.end, "turns": self.turn, "seat_columns": columns}

    def snapshot(self) -> dict[str, Any]:
        return {
            "meadow": list(self.meadow),
            "farms": [list(farm) for farm in self.farms],
            "bag_pointer": self.bag_pointer,
            "turn": self.turn,
            "phase": self.phase,
            "end": self.end,
        }
