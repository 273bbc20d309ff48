"""Vora's compiled kernels: the batched engine's rules, one game at a time over the game axis.

Every function here works on one game: its meadow as per-kind uint64
bitboards ``kinds[K]`` (bit ``row * N + col``), its farms ``farms[P, K]``, its
statistics ``stats[P, S]`` and its small fields packed in ``fields``
(``F_*`` slots). The loops over games (``step_games``, ``legal_games``,
``choose_uniform``) load a game, call these, and store it back; the bots'
kernels (greedy values and choices, planner rollouts) are in
:mod:`sims.vora.bot_kernels`.
Geometry comes in :class:`Tables` (built by ``tables.Geometry``), with the
scalars in ``ints`` (``I_*`` slots) and the board masks in ``words`` (``W_*`` slots).
The rules are those of ``sims/vora/config.py``'s docstring.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from sims.core.kernels import inner, kernel, kth_set_bit, lowest_bit_index, popcount

# Slots of Tables.g, the scalars: sizes and special kinds, then board masks (uint64 bits as int64), then
# the fall shifts and movable cells towards each side
(I_N, I_C, I_K, I_P, I_LINES, I_PIG, I_CROW, I_WOLF, I_LADYBUG, I_DUCK, I_MOLE, I_GRAZER, I_LIQUID, I_PASTURE,
 I_MIN_LINE, I_MIN_GROUP, I_EXTRA, I_BIG, I_TOTAL, I_MAIN_ACTIONS, I_GROUPS, I_G_DOUBLE, I_G_DEVOUR, I_G_WOLF,
 I_G_PICK_UP, I_G_FLY, I_G_DIG, I_G_RECIPIENT, I_G_PICK, I_G_STEAL, I_G_DECLINE, I_PUSH_BASE, I_DOUBLE_BASE,
 W_FULL, W_NOT_LAST_COL, W_NOT_FIRST_COL, W_H_START, W_V_START, W_ALL_LINES, W_ALL_SEATS) = range(40)
FALL_LEFT, FALL_RIGHT, FALL_CANMOVE = 40, 44, 48  # four slots each, by side
SCALARS = 52
# a game's small fields
(F_PHASE, F_FALLEN0, F_FALLEN1, F_EXTRA_LEFT, F_BIG_LEFT, F_FALL_SIDE, F_WOLF_CELL, F_TO_MOVE, F_TURN, F_DONE,
 F_END, F_POINTER) = range(12)
FIELDS = 12
# a decision's event log entry
# L_KINDS: bit k, kind k collected; L_PASSIVE: bit k, kind k's passive special shaped a collection
L_BLOCK, L_KIND, L_COLLECTED, L_EXTRAS, L_BIGS, L_VICTIM, L_KINDS, L_PASSIVE = range(8)
LOG_SLOTS = 8
# rows of the step's int8 block of event fields (step_games)
E_SEAT, E_PHASE, E_BLOCK, E_KIND, E_EXTRAS, E_BIGS, E_VICTIM = range(7)

# phases, blocks, stages, statistics and action table columns: as in rules.py
MAIN, RECIPIENT, EXTRA, BIG = range(4)
PUSH, DOUBLE, DEVOUR, WOLF, PICK_UP, FLY_SWAP, DIG, RECIPIENT_BLOCK, PICK, STEAL, DECLINE = range(11)
DONE, COLLECT, COMBOS, FALL, FALL_THEN_END, END = range(6)
(COLLECTED, EXTRAS, BIGS, PICKS, STEALS, STOLEN, DECLINES, PUSHES, RECEIVED, SP_DOUBLE, SP_DEVOUR, SP_WOLF,
 SP_PICK_UP, SP_FLY_SWAP, SP_DIG) = range(15)
BAG_EMPTY = 1
(ACT_PROBE, ACT_FAR2, ACT_T1_KIND, ACT_SPEND, ACT_GAIN_PROBE, ACT_GAIN_FIXED, ACT_TAKER, ACT_ASKS, ACT_STAGE,
 ACT_FALL_SIDE, ACT_WOLF_CELL, ACT_STAT, ACT_BLOCK, ACT_IS_PUSH) = range(14)
WORD_LINEMASK, WORD_KEEP, WORD_LEFT, WORD_RIGHT, WORD_T1_BITS, WORD_T2_BITS = range(6)


ONE = np.uint64(1)
ZERO = np.uint64(0)


class Tables(NamedTuple):
    """Per config and player count: what the kernels need of ``tables.Geometry``, as fixed-dtype arrays."""

    g: np.ndarray  # int64 [SCALARS]
    act_int: np.ndarray  # int64 [main actions, 14]: the ACT_* columns
    act_word: np.ndarray  # uint64 [main actions, 6]: the WORD_* columns
    act_fall: np.ndarray  # int64 [main actions, P]: the turn's fall side by action and active seat
    cell_bit: np.ndarray  # uint64 [C]
    edge_cell: np.ndarray  # int64 [lines]
    safe_lines: np.ndarray  # uint64 [P]
    unsafe_lines: np.ndarray  # int64 [P, U]
    dig_dirs: np.ndarray  # uint64 [C]
    animal: np.ndarray  # bool [K]
    count_score: np.ndarray  # float64 [most cubes of a kind + 2]
    action_block: np.ndarray  # int64 [actions]
    block_starts: np.ndarray  # int64 [blocks]
    group_base: np.ndarray  # int64 [groups]


# --- bits -------------------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def word(g, slot: int) -> np.uint64:
    """A board mask of the scalars."""
    return np.uint64(g[slot])


@inner
def occupied(kinds) -> np.uint64:
    found = ZERO
    for kind in range(kinds.shape[0]):
        found |= kinds[kind]
    return found


@inner
def copy_into(source, target) -> None:
    """``target[:] = source`` for 1-d arrays (a slice assignment would need the reference-counted runtime)."""
    for i in range(source.size):
        target[i] = source[i]


@inner
def kind_at(kinds, cell: int) -> int:
    """Kind of the cube on ``cell`` (-1 if empty)."""
    for kind in range(kinds.shape[0]):
        if (kinds[kind] >> cell) & ONE:
            return kind
    return -1


@inner
def dilate(g, board: np.uint64) -> np.uint64:
    n = g[I_N]
    return (board | ((board & word(g, W_NOT_LAST_COL)) << 1) | ((board & word(g, W_NOT_FIRST_COL)) >> 1)
            | ((board << n) & word(g, W_FULL)) | (board >> n))


@inner
def flood(seed: np.uint64, links_h: np.uint64, links_v: np.uint64, n: int) -> np.uint64:
    """Cells reached from ``seed`` through links (bit c of ``links_h``: c joined to c+1; ``links_v``: c to c+N)."""
    region = seed
    while True:
        grown = (region | ((region & links_h) << 1) | ((region >> 1) & links_h)
                 | ((region & links_v) << n) | ((region >> n) & links_v))
        if grown == region:
            return region
        region = grown


# --- formations -------------------------------------------------------------------------------------


@inner
def straight_runs(g, board: np.uint64):
    """Rules §6.1: Cells where a horizontal / vertical run of ``min_line`` of ``board`` starts."""
    n = g[I_N]
    h = board & word(g, W_H_START)
    v = board & word(g, W_V_START)
    for i in range(1, g[I_MIN_LINE]):
        h &= board >> i
        v &= board >> (i * n)
    return h, v


@inner
def line_cells(g, board: np.uint64):
    """Rules §6.1: The cells of ``board`` in horizontal / vertical runs of at least ``min_line``."""
    n = g[I_N]
    h, v = straight_runs(g, board)
    across, down = h, v
    for i in range(1, g[I_MIN_LINE]):
        across |= h << i
        down |= v << (i * n)
    return across, down


@inner
def liquid_core(g, water: np.uint64) -> np.uint64:
    """Rules §5.7: Non-zero exactly where some liquid group is big enough: with ``min_group`` 3 the cells with two
    neighbours in the water (every cell of a group of 3+ is one or next to one), else the groups."""
    size, n = g[I_MIN_GROUP], g[I_N]
    if size <= 1:
        return water
    east = (water & word(g, W_NOT_LAST_COL)) << 1
    west = (water & word(g, W_NOT_FIRST_COL)) >> 1
    south = (water << n) & word(g, W_FULL)
    north = water >> n
    if size == 2:
        return water & (east | west | south | north)
    if size == 3:
        return ((east & west) | ((east | west) & (south | north)) | (south & north)) & water
    links_h = water & (water >> 1) & word(g, W_NOT_LAST_COL)
    links_v = water & (water >> n)
    found = ZERO
    remaining = water
    while remaining:
        group = flood(remaining & (~remaining + ONE), links_h, links_v, n)
        if popcount(group) >= size:
            found |= group
        remaining &= ~group
    return found


@inner
def liquid_groups(g, water: np.uint64) -> np.uint64:
    """Rules §5.7: Cells of ``water`` in orthogonally connected groups of at least ``min_group``."""
    core = liquid_core(g, water)
    if g[I_MIN_GROUP] == 3 and core:
        return water & (core | dilate(g, core))
    return core


@inner
def has_formation(g, kinds) -> bool:
    """Rules §6.1: Does the meadow hold anything to collect?

    Runs of every non-liquid kind at once: a bit of ``same_h`` (``same_v``) says the cell and its
    right (lower) neighbour hold one kind, and a run of ``min_line`` is ``min_line - 1`` such links
    in a row, as each cell holds one kind.
    """
    n, liquid = g[I_N], g[I_LIQUID]
    same_h = ZERO
    same_v = ZERO
    for kind in range(kinds.shape[0]):
        if kind != liquid:
            board = kinds[kind]
            same_h |= board & (board >> 1)
            same_v |= board & (board >> n)
    same_h &= word(g, W_NOT_LAST_COL)
    h = same_h & word(g, W_H_START)
    v = same_v & word(g, W_V_START)
    for i in range(1, g[I_MIN_LINE] - 1):
        h &= same_h >> i
        v &= same_v >> (i * n)
    if h | v:
        return True
    return liquid >= 0 and liquid_core(g, kinds[liquid]) != 0


@inner
def find_formations(g, kinds, collected):
    """Rules §5.6, §6.1 to §6.4: Fill ``collected[K]`` with what a collection takes; returns ``(extras, bigs)``,
    one combo per formation (runs joined by shared cubes; a liquid group) by its size."""
    n = g[I_N]
    liquid, grazer, pasture = g[I_LIQUID], g[I_GRAZER], g[I_PASTURE]
    links_h = ZERO
    links_v = ZERO
    shaped = ZERO
    for kind in range(kinds.shape[0]):
        if kind == liquid:
            across = liquid_groups(g, kinds[kind])
            down = across
        else:
            across, down = line_cells(g, kinds[kind])
        collected[kind] = across | down
        shaped |= collected[kind]
        links_h |= across & (across >> 1) & word(g, W_NOT_LAST_COL)
        links_v |= down & (down >> n)
    if grazer >= 0 and pasture >= 0 and grazer != liquid and collected[grazer]:
        collected[pasture] |= dilate(g, collected[grazer]) & kinds[pasture]
    extras = 0
    bigs = 0
    remaining = shaped
    while popcount(remaining) >= g[I_EXTRA]:
        group = flood(remaining & (~remaining + ONE), links_h, links_v, n)
        grown = popcount(group)
        if grown >= g[I_BIG]:
            bigs += 1
        elif grown >= g[I_EXTRA]:
            extras += 1
        remaining &= ~group
    return extras, bigs


# --- moves ------------------------------------------------------------------------------------------


@inner
def fall(g, kinds, side: int, fixed: np.uint64) -> None:
    """Rules §6.5: Slide every cube towards ``side`` to close the gaps; the ``fixed`` cell (the wolf) stays."""
    left, right = g[FALL_LEFT + side], g[FALL_RIGHT + side]
    can_move = word(g, FALL_CANMOVE + side) & ~fixed
    full = word(g, W_FULL)
    taken = occupied(kinds)
    for _ in range(g[I_N] - 1):
        sources = (((full & ~taken) << right) >> left) & can_move & taken
        if not sources:
            return
        for kind in range(kinds.shape[0]):
            kinds[kind] = (kinds[kind] & ~sources) | (((kinds[kind] & sources) << left) >> right)
        taken = (taken & ~sources) | ((sources << left) >> right)


@inner
def shift_lines(act_int, act_word, kinds, action: int) -> None:
    """Rules §4.1, §4.3: The line shift of a main action (none but for pushes) and the toggle of the action's own
    kind."""
    linemask, keep = act_word[action, WORD_LINEMASK], act_word[action, WORD_KEEP]
    left, right = act_word[action, WORD_LEFT], act_word[action, WORD_RIGHT]
    for kind in range(kinds.shape[0]):
        kinds[kind] = (kinds[kind] & ~linemask) | (((kinds[kind] & keep) << left) >> right)
    kinds[act_int[action, ACT_T1_KIND]] ^= act_word[action, WORD_T1_BITS]


@inner
def steal_word(farms, me: int) -> np.uint64:
    """Rules §6.4, §8: The steals open to ``me`` (bit seat*K + kind), never a victim's last cube."""
    k = farms.shape[1]
    found = ZERO
    for seat in range(farms.shape[0]):
        if seat != me and farms[seat].sum() >= 2:
            for kind in range(k):
                if farms[seat, kind] >= 1:
                    found |= ONE << (seat * k + kind)
    return found


# --- legal actions ----------------------------------------------------------------------------------


@inner
def legal_words(t: Tables, kinds, farms, fields, words, scratch) -> None:
    """Rules §3.1, §8: Fill ``words[groups]`` with the legal action flags of one game (groups as in
    ``tables.Geometry``)."""
    words[:] = 0
    if fields[F_DONE]:
        return
    g = t.g
    me, phase = fields[F_TO_MOVE], fields[F_PHASE]
    if phase == MAIN:
        main_words(t, kinds, farms, me, words, scratch)
    elif phase == RECIPIENT:
        seats = word(g, W_ALL_SEATS)
        if farms[me].sum() == 0 and fields[F_FALLEN1] < 0 and not has_formation(g, kinds):
            seats = ONE << me
        words[g[I_G_RECIPIENT]] = seats
    else:
        words[g[I_G_PICK]] = occupied(kinds)
        if phase == BIG:
            words[g[I_G_STEAL]] = steal_word(farms, me)
        words[g[I_G_DECLINE]] = ONE


@inner
def main_words(t: Tables, kinds, farms, me: int, words, scratch) -> None:
    g = t.g
    k, lines = g[I_K], g[I_LINES]
    pig, crow, wolf, ladybug, duck, mole = g[I_PIG], g[I_CROW], g[I_WOLF], g[I_LADYBUG], g[I_DUCK], g[I_MOLE]
    farm = farms[me]
    all_lines = word(g, W_ALL_LINES)
    for kind in range(k):
        if farm[kind] >= 1:
            words[kind] = all_lines
    if pig >= 0 and farm[pig] >= 1:
        words[g[I_G_DOUBLE]] = all_lines
    if farm.sum() == 1:
        kind = np.argmax(farm)
        words[kind] = push_keeps_a_cube(t, kinds, me, g[I_PUSH_BASE] + kind * lines, scratch)
        if pig >= 0:
            double = t.safe_lines[me]
            if kind == pig:
                double = push_keeps_a_cube(t, kinds, me, g[I_DOUBLE_BASE], scratch)
            words[g[I_G_DOUBLE]] &= double
    animals = ZERO
    plants = ZERO
    for kind in range(k):
        if t.animal[kind]:
            animals |= kinds[kind]
        else:
            plants |= kinds[kind]
    if crow >= 0 and farm[crow] >= 1:
        words[g[I_G_DEVOUR]] = animals
    if wolf >= 0 and farm[wolf] >= 1:
        found = ZERO
        for line in range(lines):
            found |= ((animals >> t.edge_cell[line]) & ONE) << line
        words[g[I_G_WOLF]] = found
    if ladybug >= 0:
        words[g[I_G_PICK_UP]] = kinds[ladybug]
    if duck >= 0:
        ducks = kinds[duck]
        while ducks:
            cell = lowest_bit_index(ducks)
            words[g[I_G_FLY] + cell] = plants & ~t.cell_bit[cell]
            ducks &= ducks - ONE
    if mole >= 0:
        moles = kinds[mole]
        while moles:
            cell = lowest_bit_index(moles)
            words[g[I_G_DIG] + cell] = t.dig_dirs[cell]
            moles &= moles - ONE


@inner
def push_keeps_a_cube(t: Tables, kinds, me: int, first: int, scratch) -> np.uint64:
    """Rules §8: Lines (bit side*N + line) open to a push ``first + line`` of the last farm cube: onto your own or an
    unseated side, or when the push makes something to collect."""
    found = t.safe_lines[me]
    for line in t.unsafe_lines[me]:
        copy_into(kinds, scratch)
        shift_lines(t.act_int, t.act_word, scratch, first + line)
        if has_formation(t.g, scratch):
            found |= ONE << line
    return found


# --- one decision -----------------------------------------------------------------------------------


@inner
def advance(g, act_int, act_word, act_fall, action_block, block_starts, kinds, farms, stats, fields, bag,
            action: int, refill: bool, log, scratch) -> None:
    """Rules §3.1: Apply one decision and resolve everything that needs no decision, up to the next one."""
    block = action_block[action]
    log[L_BLOCK] = block
    within = action - block_starts[block]
    if action < g[I_MAIN_ACTIONS]:
        stage = main_action(g, act_int, act_word, act_fall, kinds, farms, stats, fields, action, log)
    elif block == RECIPIENT_BLOCK:
        stage = give_fallen(farms, stats, fields, within, log)
    else:
        stage = combo(g, kinds, farms, stats, fields, block, within, log)
    run_turn(g, kinds, farms, stats, fields, bag, stage, refill, log, scratch)


@inner
def main_action(g, act_int, act_word, act_fall, kinds, farms, stats, fields, action: int, log) -> int:
    """Rules §4, §5: A main action, from its row of the action tables (``tables.Geometry._action_tables``):
    the line shift, the cubes taken and given, the fallen cubes handed out; the stage the turn goes on with."""
    me = fields[F_TO_MOVE]
    probe = kind_at(kinds, act_int[action, ACT_PROBE])
    far2 = act_int[action, ACT_FAR2]
    second = kind_at(kinds, far2) if far2 >= 0 else -1
    shift_lines(act_int, act_word, kinds, action)
    if probe >= 0:
        kinds[probe] ^= act_word[action, WORD_T2_BITS]
    spend = act_int[action, ACT_SPEND]
    if spend >= 0:
        farms[me, spend] -= 1
    gain = probe if act_int[action, ACT_GAIN_PROBE] else act_int[action, ACT_GAIN_FIXED]
    if gain >= 0:
        farms[me, gain] += 1
    taker = act_int[action, ACT_TAKER]
    if taker >= 0:
        farms[taker, probe % g[I_K]] += 1
        stats[taker, RECEIVED] += 1
        if second >= 0:
            farms[taker, second] += 1
            stats[taker, RECEIVED] += 1
    stage = act_int[action, ACT_STAGE]
    if act_int[action, ACT_ASKS]:
        fields[F_FALLEN0] = probe
        fields[F_FALLEN1] = second
        fields[F_PHASE] = RECIPIENT
        stage = DONE
    fields[F_FALL_SIDE] = act_fall[action, me]
    fields[F_WOLF_CELL] = act_int[action, ACT_WOLF_CELL]
    stats[me, act_int[action, ACT_STAT]] += 1
    if act_int[action, ACT_BLOCK] == PICK_UP:
        log[L_KIND] = g[I_LADYBUG]
    else:
        log[L_KIND] = act_int[action, ACT_T1_KIND] if act_int[action, ACT_IS_PUSH] else probe
    return stage


@inner
def give_fallen(farms, stats, fields, seat: int, log) -> int:
    """Rules §4.2: RECIPIENT: the first waiting fallen cube goes into ``seat``'s farm."""
    kind = fields[F_FALLEN0]
    farms[seat, kind] += 1
    stats[seat, RECEIVED] += 1
    fields[F_FALLEN0] = fields[F_FALLEN1]
    fields[F_FALLEN1] = -1
    log[L_KIND] = kind
    log[L_VICTIM] = seat
    if fields[F_FALLEN0] < 0:
        fields[F_PHASE] = MAIN
        return COLLECT
    return DONE


@inner
def combo(g, kinds, farms, stats, fields, block: int, within: int, log) -> int:
    """Rules §6.4: An EXTRA or BIG decision: pick a meadow cube, steal from a farm, or decline."""
    me, k = fields[F_TO_MOVE], g[I_K]
    victim = -1
    kind = -1
    if block == PICK:
        kind = kind_at(kinds, within)
        kinds[kind] &= ~(ONE << within)
        stats[me, PICKS] += 1
    elif block == STEAL:
        victim, kind = divmod(within, k)
        farms[victim, kind] -= 1
        stats[me, STEALS] += 1
        stats[victim, STOLEN] += 1
    else:
        stats[me, DECLINES] += 1
    if kind >= 0:
        farms[me, kind] += 1
    if fields[F_PHASE] == EXTRA:
        fields[F_EXTRA_LEFT] -= 1
    else:
        fields[F_BIG_LEFT] -= 1
    fields[F_PHASE] = MAIN
    log[L_KIND] = kind
    log[L_VICTIM] = victim
    return COMBOS


@inner
def run_turn(g, kinds, farms, stats, fields, bag, stage: int, refill: bool, log, scratch) -> None:
    """Rules §3.2, §6.6: Combos, falls and collections until a decision is due or the turn is over, one stage
    after the other (COMBOS -> FALL -> COLLECT -> COMBOS ... -> END)."""
    while stage != DONE:
        if stage == COMBOS:
            stage = next_combo(kinds, farms, fields)
        elif stage == FALL or stage == FALL_THEN_END:
            fall_stage(g, kinds, fields)
            stage = COLLECT if stage == FALL else END
        elif stage == COLLECT:
            stage = collect_stage(g, kinds, farms, stats, fields, log, scratch)
        else:
            end_turn(g, kinds, fields, bag, refill)
            stage = DONE


@inner
def fall_stage(g, kinds, fields) -> None:
    """Rules §5.2, §6.5: The turn's fall; the wolf placed this turn stays put while it is in the meadow."""
    wolf = fields[F_WOLF_CELL]
    fixed = ZERO
    if wolf >= 0:
        if (occupied(kinds) >> wolf) & ONE:
            fixed = ONE << wolf
        else:
            fields[F_WOLF_CELL] = -1
    fall(g, kinds, fields[F_FALL_SIDE], fixed)


@inner
def collect_stage(g, kinds, farms, stats, fields, log, scratch) -> int:
    """Rules §6.1, §6.6: Collect every formation (their combos come next: COMBOS); nothing to collect: END."""
    if not has_formation(g, kinds):
        return END
    collect(g, kinds, farms, stats, fields, fields[F_TO_MOVE], log, scratch)
    return COMBOS


@inner
def passive_effects(g, kinds, collected) -> int:
    """Rules §5.7, §6.1: The kinds (bit k: kind k) whose passive special shaped the collection ``collected`` of
    meadow ``kinds``: the liquid kind when it took cubes outside straight runs of ``min_line``, the grazer when
    its lines took pasture cubes that no formation of the pasture's own took."""
    liquid, grazer, pasture = g[I_LIQUID], g[I_GRAZER], g[I_PASTURE]
    effects = 0
    if liquid >= 0 and collected[liquid]:
        across, down = line_cells(g, kinds[liquid])
        if collected[liquid] & ~(across | down):
            effects |= 1 << liquid
    if grazer >= 0 and pasture >= 0 and grazer != liquid and collected[grazer] and collected[pasture]:
        if pasture == liquid:
            own = liquid_groups(g, kinds[pasture])
        else:
            across, down = line_cells(g, kinds[pasture])
            own = across | down
        if collected[pasture] & ~own:
            effects |= 1 << grazer
    return effects


@inner
def collect(g, kinds, farms, stats, fields, me: int, log, collected) -> None:
    """Rules §6.1: Every formation into ``me``'s farm; the combos it earns become due."""
    extras, bigs = find_formations(g, kinds, collected)
    log[L_PASSIVE] |= passive_effects(g, kinds, collected)
    total = 0
    for kind in range(kinds.shape[0]):
        count = popcount(collected[kind])
        farms[me, kind] += count
        total += count
        kinds[kind] &= ~collected[kind]
        if count:
            log[L_KINDS] |= 1 << kind
    fields[F_EXTRA_LEFT] = extras
    fields[F_BIG_LEFT] = bigs
    stats[me, COLLECTED] += total
    stats[me, EXTRAS] += extras
    stats[me, BIGS] += bigs
    log[L_COLLECTED] += total
    log[L_EXTRAS] += extras
    log[L_BIGS] += bigs


@inner
def next_combo(kinds, farms, fields) -> int:
    """Rules §3.2, §6.4: EXTRA decisions first, then BIG ones; one with nothing to take is dropped. FALL when
    none is due."""
    filled = occupied(kinds) != 0
    if fields[F_EXTRA_LEFT] > 0:
        if filled:
            fields[F_PHASE] = EXTRA
            return DONE
        fields[F_EXTRA_LEFT] = 0
    if fields[F_BIG_LEFT] > 0:
        if filled or steal_word(farms, fields[F_TO_MOVE]) != 0:
            fields[F_PHASE] = BIG
            return DONE
        fields[F_BIG_LEFT] = 0
    return FALL


@inner
def end_turn(g, kinds, fields, bag, refill: bool) -> None:
    """Rules §7.1, §7.2: Refill the empty cells in row-major order from the bag (short: the game ends), next
    seat."""
    if refill:
        empty = word(g, W_FULL) & ~occupied(kinds)
        count = popcount(empty)
        if count:
            pointer = fields[F_POINTER]
            placed = min(count, g[I_TOTAL] - pointer)
            for i in range(placed):
                kinds[bag[pointer + i]] |= empty & (~empty + ONE)
                empty &= empty - ONE
            fields[F_POINTER] = pointer + placed
            if placed < count:
                fields[F_DONE] = 1
                fields[F_END] = BAG_EMPTY
    fields[F_PHASE] = MAIN
    fields[F_WOLF_CELL] = -1
    fields[F_EXTRA_LEFT] = 0
    fields[F_BIG_LEFT] = 0
    fields[F_TURN] += 1
    fields[F_TO_MOVE] = (fields[F_TO_MOVE] + 1) % g[I_P]


# --- loading and storing a game of a batch ----------------------------------------------------------


@inner
def load(state, row: int, kinds, fields) -> None:
    """Game ``row`` of ``state`` (the tuple of ``rules.state_arrays``) into ``kinds`` and ``fields``."""
    (meadow, farms, stats, bag, pointer, phase, fallen, extra_left, big_left, fall_side, wolf_cell, to_move,
     turn, done, end, previous) = state
    for kind in range(kinds.shape[0]):
        kinds[kind] = meadow[row, kind]
    fields[F_PHASE] = phase[row]
    fields[F_FALLEN0] = fallen[row, 0]
    fields[F_FALLEN1] = fallen[row, 1]
    fields[F_EXTRA_LEFT] = extra_left[row]
    fields[F_BIG_LEFT] = big_left[row]
    fields[F_FALL_SIDE] = fall_side[row]
    fields[F_WOLF_CELL] = wolf_cell[row]
    fields[F_TO_MOVE] = to_move[row]
    fields[F_TURN] = turn[row]
    fields[F_DONE] = done[row]
    fields[F_END] = end[row]
    fields[F_POINTER] = pointer[row]


@inner
def store(state, row: int, kinds, fields) -> None:
    (meadow, farms, stats, bag, pointer, phase, fallen, extra_left, big_left, fall_side, wolf_cell, to_move,
     turn, done, end, previous) = state
    for kind in range(kinds.shape[0]):
        meadow[row, kind] = kinds[kind]
    phase[row] = fields[F_PHASE]
    fallen[row, 0] = fields[F_FALLEN0]
    fallen[row, 1] = fields[F_FALLEN1]
    extra_left[row] = fields[F_EXTRA_LEFT]
    big_left[row] = fields[F_BIG_LEFT]
    fall_side[row] = fields[F_FALL_SIDE]
    wolf_cell[row] = fields[F_WOLF_CELL]
    to_move[row] = fields[F_TO_MOVE]
    turn[row] = fields[F_TURN]
    done[row] = fields[F_DONE] != 0
    end[row] = fields[F_END]
    pointer[row] = fields[F_POINTER]


@inner
def remember_turn_start(kinds, fields, previous) -> None:
    """Before a main action: keep the meadow it starts from in ``previous[0]``, the older ones one row further
    (the bots' no-loop rule, :func:`repeats_previous`, reads them)."""
    if fields[F_PHASE] == MAIN and not fields[F_DONE]:
        for back in range(previous.shape[0] - 1, 0, -1):
            for kind in range(kinds.shape[0]):
                previous[back, kind] = previous[back - 1, kind]
        for kind in range(kinds.shape[0]):
            previous[0, kind] = kinds[kind]


@inner
def seen_before(meadow, previous) -> bool:
    """Is ``meadow`` one of the remembered meadows ``previous``?"""
    for back in range(previous.shape[0]):
        same = True
        for kind in range(meadow.size):
            if meadow[kind] != previous[back, kind]:
                same = False
                break
        if same:
            return True
    return False


@inner
def repeats_previous(trial, kinds, previous) -> bool:
    """The bots' no-loop rule for a main action from meadow ``kinds`` that leaves ``trial`` (before any refill):
    a push-back (``trial`` is ``previous[0]``, the meadow the last main action found) is a loop only when
    ``kinds`` was seen before (the last action was itself a push-back or a return); any other move is a loop when
    ``trial`` is a remembered meadow (``previous``: the meadows the last main actions found, last first)."""
    for kind in range(trial.size):
        if trial[kind] != previous[0, kind]:
            return seen_before(trial, previous)
    return seen_before(kinds, previous)


# --- loops over games -------------------------------------------------------------------------------


@kernel
def step_games(t: Tables, state, quiet, actions, refill: bool, logging: bool, log) -> None:
    """One decision in every live game; ``quiet[row]``: turns in a row that drew nothing from the bag (0 after
    a draw, one more after a turn that drew nothing). When ``logging``, every game's event fields go to the
    blocks of ``log`` (``rules.event_fields`` by dtype: int8 ``[7, B]`` seat, phase, block, kind, extras, bigs,
    victim; int16 ``[B]`` collected; int32 ``[2, B]`` the kinds collected and the kinds whose passive special
    shaped a collection as bits; float32 ``[B]`` the mover's family-score change), a finished game's the
    fields' empty values."""
    meadow, farms, stats, bag, done, previous = state[0], state[1], state[2], state[3], state[13], state[15]
    g, act_int, act_word, act_fall, action_block, block_starts = (t.g, t.act_int, t.act_word, t.act_fall,
                                                                  t.action_block, t.block_starts)
    small, collected, bits, points = log
    kinds = np.zeros(meadow.shape[1], dtype=np.uint64)
    scratch = np.zeros(meadow.shape[1], dtype=np.uint64)
    fields = np.zeros(FIELDS, dtype=np.int64)
    entry = np.zeros(LOG_SLOTS, dtype=np.int64)
    farm_before = np.zeros(meadow.shape[1], dtype=np.int64)
    for row in range(meadow.shape[0]):
        if done[row]:
            if logging:
                for slot in range(small.shape[0]):
                    small[slot, row] = -1
                small[E_EXTRAS, row] = 0
                small[E_BIGS, row] = 0
                collected[row] = 0
                bits[0, row] = 0
                bits[1, row] = 0
                points[row] = 0.0
            continue
        load(state, row, kinds, fields)
        entry[:] = 0
        entry[L_KIND] = -1
        entry[L_VICTIM] = -1
        me, turn, pointer = fields[F_TO_MOVE], fields[F_TURN], fields[F_POINTER]
        if logging:
            small[E_SEAT, row] = me
            small[E_PHASE, row] = fields[F_PHASE]
            for kind in range(farm_before.size):
                farm_before[kind] = farms[row, me, kind]
        remember_turn_start(kinds, fields, previous[row])
        advance(g, act_int, act_word, act_fall, action_block, block_starts, kinds, farms[row], stats[row], fields,
                bag[row], actions[row], refill, entry, scratch)
        store(state, row, kinds, fields)
        if fields[F_POINTER] != pointer:
            quiet[row] = 0
        elif fields[F_TURN] != turn:
            quiet[row] += 1
        if logging:
            points[row] = score_change(t.count_score, farm_before, farms[row, me])
            small[E_BLOCK, row] = entry[L_BLOCK]
            small[E_KIND, row] = entry[L_KIND]
            small[E_EXTRAS, row] = entry[L_EXTRAS]
            small[E_BIGS, row] = entry[L_BIGS]
            small[E_VICTIM, row] = entry[L_VICTIM]
            collected[row] = entry[L_COLLECTED]
            bits[0, row] = entry[L_KINDS]
            bits[1, row] = entry[L_PASSIVE]


@inner
def score_change(count_score, before, after) -> float:
    """Rules §9.1: The family-score change of a farm from counts ``before`` to ``after`` (by kind), summed over
    the kinds whose count changed (a decision changes a few)."""
    top = count_score.size - 1
    change = 0.0
    for kind in range(after.size):
        if after[kind] != before[kind]:
            change += count_score[min(after[kind], top)] - count_score[min(before[kind], top)]
    return change


@kernel
def legal_games(t: Tables, state, rows, groups) -> None:
    """``groups[i]``: the legal action flags of game ``rows[i]``."""
    meadow, farms = state[0], state[1]
    kinds = np.zeros(meadow.shape[1], dtype=np.uint64)
    scratch = np.zeros(meadow.shape[1], dtype=np.uint64)
    fields = np.zeros(FIELDS, dtype=np.int64)
    for i in range(rows.size):
        load(state, rows[i], kinds, fields)
        legal_words(t, kinds, farms[rows[i]], fields, groups[i], scratch)


@kernel
def choose_uniform(t: Tables, state, rows, u, chosen) -> None:
    """``chosen[i]`` for each game ``rows[i]``: legal action number ``min(floor(u[i] * n), n - 1)`` (ascending)
    of its ``n`` legal actions (``BatchedEngine.choose_uniform``)."""
    meadow, farms = state[0], state[1]
    group_base = t.group_base
    kinds = np.zeros(meadow.shape[1], dtype=np.uint64)
    scratch = np.zeros(meadow.shape[1], dtype=np.uint64)
    fields = np.zeros(FIELDS, dtype=np.int64)
    words = np.zeros(group_base.size, dtype=np.uint64)
    for i in range(rows.size):
        row = rows[i]
        load(state, row, kinds, fields)
        legal_words(t, kinds, farms[row], fields, words, scratch)
        total = 0
        for group in range(words.size):
            total += popcount(words[group])
        k = min(np.int64(u[i] * total), total - 1)
        for group in range(words.size):
            count = popcount(words[group])
            if k < count:
                chosen[i] = group_base[group] + kth_set_bit(words[group], k)
                break
            k -= count


@inner
def family_scores(count_score, farms, out) -> None:
    """Rules §9.1: ``out[seat]``: the family score of each farm, kinds summed in kind order."""
    top = count_score.size - 1
    for seat in range(farms.shape[0]):
        total = 0.0
        for kind in range(farms.shape[1]):
            total += count_score[min(farms[seat, kind], top)]
        out[seat] = total


@kernel
def formations_found(t: Tables, meadows, found) -> None:
    """``found[i]``: does meadow ``meadows[i]`` (uint64 ``[K]``) hold anything to collect?"""
    for i in range(meadows.shape[0]):
        found[i] = has_formation(t.g, meadows[i])


@kernel
def formations_of(t: Tables, meadows, collected, combos) -> None:
    """``collected[i]``, ``combos[i] = (extras, bigs)``: what a collection takes from meadow ``meadows[i]``."""
    for i in range(meadows.shape[0]):
        combos[i, 0], combos[i, 1] = find_formations(t.g, meadows[i], collected[i])
