"""Compiled kernels of the batched Reforest engine: a loop over the game axis, one game at a time.

Reforest's turn is a chain of small, irregular pieces (a payment, a placement,
an effect queue, draws that may end a round, a reset and a refill); in numpy
each piece costs a dozen calls whatever the batch. These kernels apply a
decision and everything that follows it to one game after the other, in the
order the rules of :mod:`sims.reforest.config` state them; :mod:`sims.reforest.rules`
lays out the arrays (:class:`Arrays`) and the tables (:class:`Tables`) and calls them.

Small helpers are inlined (``inline="always"``): a call that passes the state's
arrays costs far more than the few reads most of them make.

Events are written into an int64 buffer ``[n, 13]`` (the columns of
:data:`EVENT_FIELDS`, from :meth:`sims.core.events.EventLog.buffer`), one game
after the other, so within a game they keep the order they happened in.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from sims.core.kernels import helper, inner, kernel
from sims.reforest.config import EFFECT_KINDS, END_REASONS, EVENT_KINDS, PHASES, ROUNDS, SEAT_COLUMNS, SPACES

MAIN, PAY, GATHER, SOLO_DISCARD, EFFECT, DRAW, HAND_LIMIT = range(len(PHASES))
(B_GATHER, B_PLAY, B_PAY_HAND, B_PAY_ENERGY, B_TAKE, B_STOP, B_USE, B_DECLINE, B_DISCARD,
 B_SOLO_DISCARD) = range(10)
COMPLETE, BLOCKED = END_REASONS.index("complete"), END_REASONS.index("blocked")
# what runs automatically after a decision (DECIDE: the game waits on a decision)
DECIDE, PLACE, QUEUE, FINISH_GATHER, AFTER_GATHER, END_TURN = range(6)
QUEUE_SLOTS = 1 + SPACES + 1  # the covered plant, a reaction per space, the played plant
EVENT_FIELDS = ("game", "decision", "turn", "seat", "event", "species", "played", "space", "source", "amount",
                "visitor", "effect", "points")
(EV_PLAY, EV_PAY_HAND, EV_PAY_ENERGY, EV_COVER, EV_GATHER, EV_DRAW, EV_STORE, EV_EFFECT, EV_DISCARD,
 EV_SOLO_DISCARD, EV_ROUND_END, EV_VISITOR, EV_DEAL) = range(len(EVENT_KINDS))
(ST_CARDS_PLAYED, ST_COST_PAID, ST_PAID_FROM_HAND, ST_PAID_FROM_ENERGY, ST_GATHERS, ST_CARDS_GATHERED,
 ST_CARDS_DRAWN, ST_CARDS_STORED, ST_PLANTS_COVERED, ST_ENERGY_FROM_COVER, ST_EFFECTS_USED,
 ST_EFFECTS_DECLINED, ST_HAND_DISCARDS, ST_SOLO_DISCARDS, ST_VISITORS_WON) = (
    SEAT_COLUMNS.index(name) for name in (
        "cards_played", "cost_paid", "paid_from_hand", "paid_from_energy", "gathers", "cards_gathered",
        "cards_drawn", "cards_stored", "plants_covered", "energy_from_cover", "effects_used", "effects_declined",
        "hand_discards", "solo_discards", "visitors_won"))
assert EVENT_KINDS[EV_VISITOR] == "visitor" and EVENT_KINDS[EV_DEAL] == "deal" and PHASES[HAND_LIMIT] == "hand_limit"

# The state's arrays (the fields of ReforestState of the same names).
Arrays = namedtuple("Arrays", (
    "done", "end", "to_move", "turn", "decisions", "hand", "stack", "stack_size", "energy", "canopy", "traits",
    "stored", "deck", "deck_top", "deck_end", "nursery", "discard", "tucked", "round_visitors", "carried", "won",
    "won_count", "rounds_ended", "resets", "reset_order", "round3_turn", "unawarded", "phase", "play_species",
    "play_space", "owed", "picks_left", "queue_species", "queue_space", "queue_len", "queue_pos", "stats"))

# The config's tables (species tables carry one extra entry at index -1: "no plant").
Tables = namedtuple("Tables", (
    "players", "solo", "gather_cards", "hand_limit", "nursery_size", "block_of", "field_of",
    "off_gather", "off_play", "off_pay_hand", "off_take", "off_use", "off_discard", "off_solo_discard",
    "cost", "sun", "is_draw", "effect_n", "hand_limit_raise", "has_trait", "reacts", "covered_effect",
    "played_effect", "after_gather", "base_cost", "discount_matrix", "passive_species", "when_traits",
    "place_table", "adjacent", "low_row", "payment", "height", "row_of_space", "measure_kind", "measure_arg",
    "solo_thresholds", "value", "kind", "effect_trait", "effect_row", "effect_k", "visitor_points",
    "energy_points", "elevation_per_plant", "hand_cards_per_point", "row_first", "row_last"))

SCORING_PER_TRAIT, SCORING_PER_ENERGY, SCORING_PER_ROW_STACK = (
    EFFECT_KINDS.index(name) for name in ("scoring_per_trait", "scoring_per_energy", "scoring_per_row_stack"))
POINTS = ("points_plants", "points_effects", "points_energy", "points_visitors", "points_elevation", "points_hand")
MEASURE_PLANTS, MEASURE_TRAIT, MEASURE_ROW, MEASURE_ENERGY, MEASURE_TALLEST = range(5)


# --- events and counts ----------------------------------------------------------------------

@njit(cache=True, inline="always")
def log(a, events, count, g, kind, seat, species=-1, played=-1, space=-1, source=-1, amount=0, visitor=-1,
        effect=-1, points=0):
    """One event of game ``g`` into ``events`` (no buffer: no log); ``count[1]`` flags an overflow."""
    if events.shape[0] == 0:
        return
    n = count[0]
    if n >= events.shape[0]:
        count[1] = 1
        return
    row = events[n]
    row[0], row[1], row[2], row[3], row[4] = g, a.decisions[g], a.turn[g], seat, kind
    row[5], row[6], row[7], row[8], row[9], row[10] = species, played, space, source, amount, visitor
    row[11], row[12] = effect, points
    count[0] = n + 1


@njit(cache=True, inline="always")
def stat(a, g, seat, column, amount=1):
    a.stats[g, seat, column] += amount


# --- cards ----------------------------------------------------------------------------------

@njit(cache=True, inline="always")
def deck_left(a, g):
    return a.deck_end[g] > a.deck_top[g]


@njit(cache=True, inline="always")
def any_card(a, g):
    if deck_left(a, g):
        return True
    for slot in range(a.nursery.shape[1]):
        if a.nursery[g, slot] >= 0:
            return True
    return False


@njit(cache=True, inline="always")
def take_top(a, g):
    card = a.deck[g, a.deck_top[g]]
    a.deck_top[g] += 1
    return card


@njit(cache=True, inline="always")
def pick(a, t, g, source):
    """The card of a source: a nursery slot (emptied) or the deck's top."""
    if source == t.nursery_size:
        return take_top(a, g)
    card = a.nursery[g, source]
    a.nursery[g, source] = -1
    return card


@njit(cache=True, inline="always")
def refill(a, g):
    """Each empty nursery slot, ascending, takes the deck's top card while the deck holds cards; cards taken."""
    taken = 0
    for slot in range(a.nursery.shape[1]):
        if a.nursery[g, slot] < 0 and deck_left(a, g):
            a.nursery[g, slot] = take_top(a, g)
            taken += 1
    return taken


@njit(cache=True, inline="always")
def store(a, t, events, count, g, space, plant):
    """``plant``'s store effect: ``effect_n`` times the deck's top card goes as energy under ``space`` (stops if
    the deck is empty). Rules §6.3."""
    me = a.to_move[g]
    for _ in range(t.effect_n[plant]):
        if not deck_left(a, g):
            return
        card = take_top(a, g)
        a.energy[g, me, space, card] += 1
        a.stored[g, me, space] += 1
        stat(a, g, me, ST_CARDS_STORED)
        log(a, events, count, g, EV_STORE, me, species=card, space=space, amount=1, effect=plant)
        check_round_end(a, t, events, count, g)


# --- rounds ---------------------------------------------------------------------------------

@njit(cache=True, inline="always")
def measure(a, t, g, seat, visitor):
    """A visitor's goal measure (solitaire: its solo goal) of a seat's region."""
    kind, arg = t.measure_kind[visitor], t.measure_arg[visitor]
    if kind == MEASURE_TRAIT:
        return float(a.traits[g, seat, arg])
    total = 0.0
    for x in range(SPACES):
        if kind == MEASURE_PLANTS or (kind == MEASURE_ROW and t.row_of_space[x] == arg):
            total += a.stack_size[g, seat, x]
        elif kind == MEASURE_ENERGY:
            total += a.stored[g, seat, x]
        elif kind == MEASURE_TALLEST:
            total = max(total, t.height[a.canopy[g, seat, x]])  # stacks grow taller: the tallest is a canopy
    return total


@inner
def visitor_winner(a, t, g, visitor, round_index):
    """The seat winning (or earning) a visitor now, -1 for none; and whether it is a tie."""
    if t.solo:
        earned = measure(a, t, g, 0, visitor) >= t.solo_thresholds[visitor, round_index]
        return (0 if earned else -1), False
    best, leaders, winner = -np.inf, 0, -1
    for seat in range(t.players):
        value = measure(a, t, g, seat, visitor)
        if value > best:
            best, leaders, winner = value, 1, seat
        elif value == best:
            leaders += 1
    if leaders == 1:
        return winner, False
    return -1, True


@inner
def award(a, t, events, count, g):
    """The carried visitors in order, then this round's: won by the single greatest measure (or earned).

    The visitors carried on are written back in place from slot 0 (never past the slot being read)."""
    round_index = a.rounds_ended[g]
    carried = a.carried[g]
    kept = 0
    for k in range(carried.size + 1):
        if k < carried.size and carried[k] < 0:
            continue
        if k == carried.size:
            visitor = a.round_visitors[g, round_index]
        else:
            visitor = carried[k]
            carried[k] = -1
        winner, tie = visitor_winner(a, t, g, visitor, round_index)
        outcome = -1
        if winner >= 0:
            a.won[g, winner, a.won_count[g, winner]] = visitor
            a.won_count[g, winner] += 1
            stat(a, g, winner, ST_VISITORS_WON)
            outcome = 1
        elif tie and round_index != ROUNDS - 1:
            a.carried[g, kept] = visitor
            kept += 1
            outcome = 0
        else:
            a.unawarded[g] += 1
        log(a, events, count, g, EV_VISITOR, winner, amount=outcome, visitor=visitor,
            points=t.visitor_points[visitor] if outcome == 1 else 0)


@inner
def reset_deck(a, g):
    """Discard pile, nursery and the ended round's tucked cards, sorted by species, then shuffled into the deck.

    The pool is gathered on the discard pile (a count per species), which ends empty."""
    species_count = a.discard.shape[1]
    pool = a.discard[g]
    for slot in range(a.nursery.shape[1]):
        if a.nursery[g, slot] >= 0:
            pool[a.nursery[g, slot]] += 1
        a.nursery[g, slot] = -1
    ended = a.rounds_ended[g]  # already counts the round just ended
    if ended <= 2:
        for s in range(species_count):
            pool[s] += a.tucked[g, ended - 1, s]
            a.tucked[g, ended - 1, s] = 0
    n = 0
    for s in range(species_count):
        n += pool[s]
    a.resets[g] += 1
    order = a.reset_order[g, a.resets[g] - 1]
    position = 0
    for i in range(order.size):  # the shuffle's positions beyond the pool's size drop out
        if order[i] < n:
            a.deck[g, position] = sorted_pool_card(pool, order[i])
            position += 1
    for s in range(species_count):
        pool[s] = 0
    a.deck[g, position:] = -1
    a.deck_top[g] = 0
    a.deck_end[g] = n


@njit(cache=True, inline="always")
def sorted_pool_card(pool, index):
    """The species at ``index`` of the pool (a count per species) laid out in species order."""
    s, rest = 0, np.int64(index)
    while rest >= pool[s]:
        rest -= pool[s]
        s += 1
    return s


@njit(cache=True, inline="always")
def check_round_end(a, t, events, count, g):
    """End the round (and any cascade) if the deck is empty and fewer than 3 rounds ended."""
    if not deck_left(a, g) and a.rounds_ended[g] < ROUNDS:
        end_rounds(a, t, events, count, g)


@inner
def end_rounds(a, t, events, count, g):
    """End the round, and the next while a reset leaves the deck empty (a cascade)."""
    while not deck_left(a, g) and a.rounds_ended[g] < ROUNDS:
        award(a, t, events, count, g)
        a.rounds_ended[g] += 1
        if a.rounds_ended[g] == ROUNDS:
            a.round3_turn[g] = a.turn[g]
        log(a, events, count, g, EV_ROUND_END, a.to_move[g], amount=a.rounds_ended[g])
        reset_deck(a, g)
        refill(a, g)


# --- costs and legality ---------------------------------------------------------------------

@njit(cache=True, inline="always")
def base_cost(a, t, g, me, species):
    """float64: printed cost of ``species`` minus the passive and when-played discounts of seat ``me``."""
    base = t.base_cost[species]
    row = 0
    for p in t.passive_species:
        plants = 0
        for x in range(SPACES):
            if a.canopy[g, me, x] == p:
                plants += 1
        base -= plants * t.discount_matrix[row, species]
        row += 1
    for trait in t.when_traits:
        base -= a.traits[g, me, trait] * t.discount_matrix[row, species]
        row += 1
    return base


@njit(cache=True, inline="always")
def play_cost(a, t, g, me, species, space):
    base = base_cost(a, t, g, me, species)
    return max(int(base - t.cost[a.canopy[g, me, space]]), 0)


@njit(cache=True, inline="always")
def region_is_empty(a, g, me):
    for x in range(SPACES):
        if a.canopy[g, me, x] >= 0:
            return False
    return True


@njit(cache=True, inline="always")
def space_class(a, t, g, me, x, region_empty):
    """Rules §5.1: space ``x``'s row of ``place_table``: its canopy species, or empty (no plant may grow), or grow."""
    species_count = t.base_cost.size
    plant = a.canopy[g, me, x]
    if plant >= 0:
        return plant
    grow = region_empty and t.low_row[x]
    for y in range(SPACES):
        if t.adjacent[x, y] and a.canopy[g, me, y] >= 0:
            grow = True
    return species_count + 1 if grow else species_count


@njit(cache=True, inline="always")
def may_place(a, t, g, me, where):
    """Rules §5.1: each space's row of ``place_table`` into ``where [6]`` (:func:`space_class`)."""
    region_empty = region_is_empty(a, g, me)
    for x in range(SPACES):
        where[x] = space_class(a, t, g, me, x, region_empty)


@njit(cache=True, inline="always")
def cards_held(a, g, me):
    held = 0
    for s in range(a.hand.shape[2]):
        held += a.hand[g, me, s]
    return held


@njit(cache=True, inline="always")
def space_budget(a, t, g, me, x, held):
    """Cards in hand (``held``) - 1 + energy of the payment spaces of ``x`` + the canopy plant's cost."""
    total = held - 1 + t.cost[a.canopy[g, me, x]]
    for y in range(SPACES):
        if t.payment[x, y]:
            total += a.stored[g, me, y]
    return total


@njit(cache=True, inline="always")
def play_budgets(a, t, g, me, budget):
    """:func:`space_budget` of each space into ``budget [6]``."""
    held = cards_held(a, g, me)
    for x in range(SPACES):
        budget[x] = space_budget(a, t, g, me, x, held)


@njit(cache=True, inline="always")
def legal_plays(a, t, g, me, out, spaces):
    """The legal plays of seat ``me`` into ``out [S * 6]`` (species * 6 + space); how many (``spaces``: int64
    ``[2, 6]`` scratch)."""
    where, budget = spaces[0], spaces[1]
    may_place(a, t, g, me, where)
    play_budgets(a, t, g, me, budget)
    n = 0
    for s in range(a.hand.shape[2]):
        if a.hand[g, me, s] <= 0:
            continue
        base = base_cost(a, t, g, me, s)
        for x in range(SPACES):
            if t.place_table[x, where[x], s] and base <= budget[x]:
                out[n] = s * SPACES + x
                n += 1
    return n


@njit(cache=True, inline="always")
def has_play(a, t, g, me):
    """Rules §5.1 to §5.3: seat ``me`` has a legal play (:func:`legal_plays` would find one), with no scratch."""
    region_empty = region_is_empty(a, g, me)
    held = cards_held(a, g, me)
    for x in range(SPACES):
        where = space_class(a, t, g, me, x, region_empty)
        budget = space_budget(a, t, g, me, x, held)
        for s in range(a.hand.shape[2]):
            if a.hand[g, me, s] > 0 and t.place_table[x, where, s] and base_cost(a, t, g, me, s) <= budget:
                return True
    return False


@njit(cache=True, inline="always")
def blocked(a, t, g):
    """Rules §8.2 (``ReforestGame.blocked``): at a turn's start after round 3, no seat still to play can change the
    position: no card in the deck or the nursery to take, and no seat from the one to move to the last (the
    game ends before seat 0's next turn; solitaire: its one more turn) has a legal play. Before round 3 ends
    the deck always holds a card (an emptied deck ends the round and is reset at once), so a gather takes one."""
    if a.rounds_ended[g] < ROUNDS or any_card(a, g):
        return False
    for seat in range(a.to_move[g], t.players):
        if has_play(a, t, g, seat):
            return False
    return True


@njit(cache=True, inline="always")
def may_stop(a, t, g, sources):
    return a.picks_left[g] < t.gather_cards or sources == 0


def legal_buffers(species_count: int) -> tuple[np.ndarray, np.ndarray]:
    """Scratch of :func:`legal_actions`: room for every legal action, and int64 ``[2, 6]`` for the spaces."""
    return np.empty(species_count * SPACES + 2, dtype=np.int64), np.empty((2, SPACES), dtype=np.int64)


@njit(cache=True, inline="always")
def legal_actions(a, t, g, out, spaces):
    """Every legal action of game ``g``, ascending, into ``out [S * 6 + 2]``; how many (0: a finished game).

    The blocks of a phase are adjacent action numbers (pay from hand then from
    energy, the sources then stop, use then decline), so a phase's columns
    counted from its first block are its action numbers less that block's offset.
    """
    if a.done[g]:
        return 0
    phase = a.phase[g]
    me = a.to_move[g]
    if phase == MAIN:
        n = legal_plays(a, t, g, me, out[1:], spaces)
        for i in range(1, n + 1):
            out[i] += t.off_play
        out[0] = t.off_gather
        return n + 1
    n = 0
    if phase == PAY:
        first = t.off_pay_hand
        species_count = a.hand.shape[2]
        for s in range(species_count):
            if a.hand[g, me, s] > 0:
                out[n] = s
                n += 1
        space = a.play_space[g]
        for y in range(SPACES):
            if a.stored[g, me, y] > 0 and t.payment[space, y]:
                out[n] = species_count + y
                n += 1
    elif phase == GATHER or phase == DRAW or phase == SOLO_DISCARD:
        first = t.off_solo_discard if phase == SOLO_DISCARD else t.off_take
        for slot in range(t.nursery_size):
            if a.nursery[g, slot] >= 0:
                out[n] = slot
                n += 1
        if deck_left(a, g):
            out[n] = t.nursery_size
            n += 1
        if phase == GATHER and may_stop(a, t, g, n):
            out[n] = t.nursery_size + 1
            n += 1
    elif phase == EFFECT:
        first = t.off_use
        out[0], out[1] = 0, 1
        n = 2
    else:
        first = t.off_discard
        for s in range(a.hand.shape[2]):
            if a.hand[g, me, s] > 0:
                out[n] = s
                n += 1
    for i in range(n):
        out[i] += first
    return n


@njit(cache=True, inline="always")
def lowest_in_hand(a, g, me):
    """The lowest species seat ``me`` holds, -1 for none."""
    for s in range(a.hand.shape[2]):
        if a.hand[g, me, s] > 0:
            return s
    return -1


@njit(cache=True, inline="always")
def lowest_legal(a, t, g):
    """The lowest legal action of game ``g`` (the first of :func:`legal_actions`, read without listing them); -1
    for none."""
    if a.done[g]:
        return -1
    phase = a.phase[g]
    me = a.to_move[g]
    if phase == MAIN:
        return t.off_gather
    if phase == EFFECT:
        return t.off_use
    if phase == PAY or phase == HAND_LIMIT:
        s = lowest_in_hand(a, g, me)
        if s >= 0:
            return (t.off_pay_hand if phase == PAY else t.off_discard) + s
        if phase == HAND_LIMIT:
            return -1
        space = a.play_space[g]
        for y in range(SPACES):
            if a.stored[g, me, y] > 0 and t.payment[space, y]:
                return t.off_pay_hand + a.hand.shape[2] + y
        return -1
    first = t.off_solo_discard if phase == SOLO_DISCARD else t.off_take
    for slot in range(t.nursery_size):
        if a.nursery[g, slot] >= 0:
            return first + slot
    if deck_left(a, g):
        return first + t.nursery_size
    if phase == GATHER:
        return first + t.nursery_size + 1  # stop: no card to take
    return -1


@helper
def choose_uniform(a, t, rows, u, chosen, plays, spaces):
    """In each game of ``rows``, legal action number ``min(floor(u * n), n - 1)`` of its ``n`` legal actions in
    ascending order (-1 for none) into ``chosen [R]`` (``plays, spaces``: :func:`legal_buffers`);
    ``BatchedEngine.choose_uniform``. The last game's ``n``, its legal actions left in ``plays``: the only
    compiled copy of :func:`legal_actions`, which the bots call with one game, as :func:`step`."""
    n = 0
    for i in range(rows.size):
        n = legal_actions(a, t, rows[i], plays, spaces)
        k = min(int(u[i] * n), max(n - 1, 0))
        chosen[i] = plays[k] if n > k else -1
    return n


# --- decisions ------------------------------------------------------------------------------

@njit(cache=True, inline="always")
def paid(a, g):
    a.owed[g] -= 1
    return DECIDE if a.owed[g] > 0 else PLACE


@njit(cache=True, inline="always")
def decide(a, t, events, count, g, block, field):
    """Apply one decision's own change; what runs after it (a settle code)."""
    me = a.to_move[g]
    if block == B_GATHER:
        stat(a, g, me, ST_GATHERS)
        a.phase[g] = GATHER
        a.picks_left[g] = t.gather_cards
        return DECIDE
    if block == B_PLAY:
        species, space = field // SPACES, field % SPACES
        cost = play_cost(a, t, g, me, species, space)
        a.hand[g, me, species] -= 1
        a.play_species[g] = species
        a.play_space[g] = space
        a.owed[g] = cost
        stat(a, g, me, ST_CARDS_PLAYED)
        stat(a, g, me, ST_COST_PAID, cost)
        log(a, events, count, g, EV_PLAY, me, species=species, space=space, amount=cost, played=species)
        if cost > 0:
            a.phase[g] = PAY
            return DECIDE
        return PLACE
    if block == B_PAY_HAND:
        a.hand[g, me, field] -= 1
        a.discard[g, field] += 1
        stat(a, g, me, ST_PAID_FROM_HAND)
        log(a, events, count, g, EV_PAY_HAND, me, species=field)
        return paid(a, g)
    if block == B_PAY_ENERGY:
        card = 0
        while a.energy[g, me, field, card] <= 0:  # the lowest species id stored there
            card += 1
        a.energy[g, me, field, card] -= 1
        a.stored[g, me, field] -= 1
        a.discard[g, card] += 1
        stat(a, g, me, ST_PAID_FROM_ENERGY)
        log(a, events, count, g, EV_PAY_ENERGY, me, species=card, space=field)
        return paid(a, g)
    if block == B_TAKE:
        drawing = a.phase[g] == DRAW
        plant = a.queue_species[g, a.queue_pos[g]] if drawing else -1
        # one pick's card into hand for both (compiled once): a draw's names the effect drawing it
        left = into_hand(a, t, events, count, g, field, EV_DRAW if drawing else EV_GATHER,
                         ST_CARDS_DRAWN if drawing else ST_CARDS_GATHERED, plant)
        return draw_pick(a, g, left) if drawing else gather_pick(left)
    if block == B_STOP:
        a.picks_left[g] = 0
        return FINISH_GATHER
    if block == B_USE or block == B_DECLINE:
        return use_or_decline(a, t, events, count, g, block == B_USE)
    if block == B_DISCARD:
        a.hand[g, me, field] -= 1
        a.discard[g, field] += 1
        stat(a, g, me, ST_HAND_DISCARDS)
        log(a, events, count, g, EV_DISCARD, me, species=field, amount=1)
        return END_TURN
    card = pick(a, t, g, field)  # B_SOLO_DISCARD
    a.discard[g, card] += 1
    stat(a, g, me, ST_SOLO_DISCARDS)
    log(a, events, count, g, EV_SOLO_DISCARD, me, species=card, source=field, amount=1)
    if field == t.nursery_size:
        check_round_end(a, t, events, count, g)
    return AFTER_GATHER


@njit(cache=True, inline="always")
def into_hand(a, t, events, count, g, source, kind, column, effect):
    """A pick: a nursery slot's card or the deck's top card into the mover's hand (a deck pick that empties the
    deck ends the round); whether picks are left."""
    me = a.to_move[g]
    card = pick(a, t, g, source)
    a.hand[g, me, card] += 1
    stat(a, g, me, column)
    log(a, events, count, g, kind, me, species=card, source=source, amount=1, effect=effect)
    if source == t.nursery_size:
        check_round_end(a, t, events, count, g)
    a.picks_left[g] -= 1
    return a.picks_left[g] > 0


@njit(cache=True, inline="always")
def gather_pick(left):
    """Rules §4.2: after a gather pick (:func:`into_hand`; ``left``: whether picks are left), the next, or after
    the last the gather finishes."""
    return DECIDE if left else FINISH_GATHER


@njit(cache=True, inline="always")
def draw_pick(a, g, left):
    """Rules §6.3: after a pick of the draw effect being resolved (:func:`into_hand`), the next, or after the
    last (or with no card left to take) the effect queue goes on."""
    if left and any_card(a, g):
        return DECIDE
    a.queue_pos[g] += 1
    a.picks_left[g] = 0
    return QUEUE


@njit(cache=True, inline="always")
def use_or_decline(a, t, events, count, g, use):
    me = a.to_move[g]
    position = a.queue_pos[g]
    plant, space = a.queue_species[g, position], a.queue_space[g, position]
    stat(a, g, me, ST_EFFECTS_USED if use else ST_EFFECTS_DECLINED)
    log(a, events, count, g, EV_EFFECT, me, species=plant, space=space, amount=1 if use else 0,
        effect=plant if use else -1)
    if use and t.is_draw[plant]:
        a.picks_left[g] = t.effect_n[plant]
        a.phase[g] = DRAW
        return DECIDE
    if use:
        store(a, t, events, count, g, space, plant)
    a.queue_pos[g] += 1
    return QUEUE


# --- what follows a decision ----------------------------------------------------------------

@njit(cache=True, inline="always")
def queue_entry(a, t, g, i, covered, species, space):
    """Slot ``i`` of a placement's effect queue, before the partition: (plant or -1, space).

    Slot 0 is the covered plant, slots 1-6 the canopy plants of spaces 0-5 that
    react to ``species`` (not the one on ``space``), slot 7 the played plant
    (``species`` -1: the queue of a gather, each canopy plant of spaces 0-5
    with an after-gather effect, then two empty slots).
    """
    me = a.to_move[g]
    if species < 0:
        if i >= SPACES:
            return -1, 0
        plant = a.canopy[g, me, i]
        return (plant if t.after_gather[plant] else -1), i
    if i == 0:
        return (covered if t.covered_effect[covered] else -1), space
    if i == QUEUE_SLOTS - 1:
        return (species if t.played_effect[species] else -1), space
    y = i - 1
    plant = a.canopy[g, me, y]
    return (plant if y != space and t.reacts[plant, species] else -1), y


@njit(cache=True, inline="always")
def set_queue(a, t, g, covered, species, space):
    """The queue's entries (:func:`queue_entry`) first, in order, then the empty slots (a stable partition)."""
    n = 0
    for empty in (False, True):
        for i in range(QUEUE_SLOTS):
            entry, where = queue_entry(a, t, g, i, covered, species, space)
            if (entry < 0) == empty:
                a.queue_species[g, n] = entry
                a.queue_space[g, n] = where
                n += 1
        if not empty:
            a.queue_len[g] = n
    a.queue_pos[g] = 0


@njit(cache=True, inline="always")
def add_traits(a, t, g, me, species, sign):
    for trait in range(a.traits.shape[2]):
        a.traits[g, me, trait] += sign * t.has_trait[species, trait]


@njit(cache=True, inline="always")
def place(a, t, events, count, g):
    """The plant goes on its space; the covered plant and the effect queue (covered, reactions, played)."""
    me = a.to_move[g]
    species, space = a.play_species[g], a.play_space[g]
    size = a.stack_size[g, me, space]
    covered = a.canopy[g, me, space]
    has_cover = covered >= 0
    to_energy = has_cover and t.sun[covered]
    level = size - 1 if to_energy else size
    if to_energy:
        a.energy[g, me, space, covered] += 1
        a.stored[g, me, space] += 1
        add_traits(a, t, g, me, covered, -1)
    a.stack[g, me, space, level] = species
    a.stack_size[g, me, space] = level + 1
    a.canopy[g, me, space] = species  # the other spaces' canopies, which react, are as before
    add_traits(a, t, g, me, species, 1)
    if has_cover:
        stat(a, g, me, ST_PLANTS_COVERED)
        stat(a, g, me, ST_ENERGY_FROM_COVER, 1 if to_energy else 0)
        log(a, events, count, g, EV_COVER, me, species=covered, space=space, amount=1 if to_energy else 0)
    set_queue(a, t, g, covered, species, space)
    a.play_species[g] = -1
    a.play_space[g] = -1
    a.phase[g] = MAIN
    return QUEUE


@njit(cache=True, inline="always")
def after_gather(a, t, g):
    set_queue(a, t, g, -1, -1, 0)
    a.picks_left[g] = 0
    a.phase[g] = MAIN
    return QUEUE


@njit(cache=True, inline="always")
def next_effect(a, t, g):
    """Offer the next queued effect that can act; skip those that cannot; end the turn after the last."""
    position = a.queue_pos[g]
    pending = position < a.queue_len[g]
    plant = a.queue_species[g, min(position, QUEUE_SLOTS - 1)]
    can_act = pending and (any_card(a, g) if t.is_draw[plant] else deck_left(a, g))
    if can_act:
        a.phase[g] = EFFECT
        return DECIDE
    a.phase[g] = MAIN
    if pending:
        a.queue_pos[g] += 1
        return QUEUE
    return END_TURN


@njit(cache=True, inline="always")
def end_turn(a, t, events, count, g):
    """Hand-limit discards, then the refill, the turn count, the game-end check and the next seat, whose turn does
    not start if the game is :func:`blocked`."""
    me = a.to_move[g]
    limit = t.hand_limit
    for y in range(SPACES):
        limit += t.hand_limit_raise[a.canopy[g, me, y]]
    a.queue_len[g] = 0
    a.queue_pos[g] = 0
    if a.hand[g, me].sum() > limit:
        a.phase[g] = HAND_LIMIT
        return DECIDE
    if refill(a, g) > 0:
        check_round_end(a, t, events, count, g)
    a.turn[g] += 1
    if t.solo:
        finished = a.rounds_ended[g] == ROUNDS and a.turn[g] >= a.round3_turn[g] + 2
    else:
        finished = a.rounds_ended[g] == ROUNDS and (me + 1) % t.players == 0
    if finished:
        a.done[g] = True
        a.end[g] = COMPLETE
    a.to_move[g] = (me + 1) % t.players
    a.phase[g] = MAIN
    if not finished and blocked(a, t, g):
        a.done[g] = True
        a.end[g] = BLOCKED
    return DECIDE


@helper
def step(a, t, events, count, rows, actions, finish):
    """Each game ``g = rows[i]``: decision ``actions[i]`` (none if below 0) and everything that follows it, until
    the game waits on a decision (int64 arrays). With ``finish[i]`` >= 0 the decision is counted (``decisions``)
    and the lowest legal action played and counted after it while the game runs at turn ``finish[i]``: the bots
    play a candidate to the end of its turn in one call.

    The only compiled copy of a step: the bots call it with one game (:func:`sims.reforest.bot_kernels.step_game`)
    and a batch pays one call, not one per game (a call passes every array of the state and the tables). Compiled
    without reference counting (the caller passes every array)."""
    for i in range(rows.size):
        g, action = rows[i], actions[i]
        while action >= 0:
            todo = decide(a, t, events, count, g, t.block_of[action], t.field_of[action])
            while todo != DECIDE:
                if todo == PLACE:
                    todo = place(a, t, events, count, g)
                elif todo == FINISH_GATHER:
                    if t.solo and any_card(a, g):
                        a.phase[g] = SOLO_DISCARD
                        todo = DECIDE
                    else:
                        todo = AFTER_GATHER
                elif todo == AFTER_GATHER:
                    todo = after_gather(a, t, g)
                elif todo == QUEUE:
                    todo = next_effect(a, t, g)
                else:
                    todo = end_turn(a, t, events, count, g)
            if finish[i] < 0:
                break
            a.decisions[g] += 1
            if a.done[g] or a.turn[g] != finish[i]:
                break
            action = lowest_legal(a, t, g)


@helper
def finish_turns(a, t, events, count, rows, start_turn, actions):
    """Play the lowest legal action in games ``rows`` until the turn ``start_turn`` (per row) is over
    (``actions``: int64 scratch as long as ``rows``)."""
    for i in range(rows.size):
        g = rows[i]
        actions[i] = -1 if a.done[g] or a.turn[g] != start_turn[i] else lowest_legal(a, t, g)
    step(a, t, events, count, rows, actions, start_turn)


# --- scores ---------------------------------------------------------------------------------

@njit(cache=True, inline="always")
def seat_points(a, t, g, seat):
    """The six ``points_*`` of a seat (:data:`POINTS`, a tuple) on the position as it is, then its stored energy
    cards and its cards in hand. One pass over the region and hand, no array written: the bots value every
    candidate position with it."""
    plants = 0
    energy = 0
    for x in range(SPACES):
        energy += a.stored[g, seat, x]
        for level in range(a.stack_size[g, seat, x]):
            plants += t.value[a.stack[g, seat, x, level]]
    effects = 0
    for x in range(SPACES):
        plant = a.canopy[g, seat, x]
        kind, n = t.kind[plant], t.effect_n[plant]
        if kind == SCORING_PER_TRAIT:
            effects += n * a.traits[g, seat, t.effect_trait[plant]]
        elif kind == SCORING_PER_ENERGY:
            effects += n * energy
        elif kind == SCORING_PER_ROW_STACK:
            for y in range(SPACES):
                if t.row_of_space[y] == t.effect_row[plant] and a.stack_size[g, seat, y] >= t.effect_k[plant]:
                    effects += n
    visitors = 0
    for k in range(a.won_count[g, seat]):
        visitors += t.visitor_points[a.won[g, seat, k]]
    elevation = 0
    for row in range(t.row_first.size):
        smallest = a.stack_size[g, seat, t.row_first[row]]
        for x in range(t.row_first[row], t.row_last[row] + 1):
            smallest = min(smallest, a.stack_size[g, seat, x])
        elevation += smallest
    hand = 0
    for s in range(a.hand.shape[2]):
        hand += a.hand[g, seat, s]
    return ((plants, effects, t.energy_points * energy, visitors, t.elevation_per_plant * elevation,
             hand // t.hand_cards_per_point), energy, hand)


@kernel
def score_parts(a, t):
    """int64 ``[B, P, 6]``: :func:`seat_points` of every seat of every game."""
    size, players = a.hand.shape[0], a.hand.shape[1]
    parts = np.zeros((size, players, len(POINTS)), dtype=np.int64)
    for g in range(size):
        for seat in range(players):
            (parts[g, seat, 0], parts[g, seat, 1], parts[g, seat, 2], parts[g, seat, 3], parts[g, seat, 4],
             parts[g, seat, 5]) = seat_points(a, t, g, seat)[0]
    return parts


@kernel
def measures(a, t, rows):
    """float64 ``[R, P, V]``: each visitor's goal measure (solitaire: its solo goal) of each region."""
    players, visitors = a.hand.shape[1], t.measure_kind.size
    out = np.empty((rows.size, players, visitors))
    for i in range(rows.size):
        for seat in range(players):
            for visitor in range(visitors):
                out[i, seat, visitor] = measure(a, t, rows[i], seat, visitor)
    return out


@njit(cache=True, inline="always")
def copy_row(source, g, to, h):
    """``to[h] = source[g]`` for C-contiguous arrays, element by element: no temporary array (numpy's slice
    assignment makes one where it cannot rule out an overlap), so the bots' kernels copy without reference
    counting. Read through ``.flat`` (a plain index on a C-contiguous array), not ``reshape(-1)``, which calls a
    C helper of numba's at every copy."""
    row, into = source[g], to[h]
    for i in range(row.size):
        into.flat[i] = row.flat[i]


def copy_game(source, g, to, h):
    """Game ``g`` of ``source`` into slot ``h`` of ``to`` (all of :class:`Arrays`; compiled once for the bots'
    three uses: pass ``g`` and ``h`` as int64, not literals)."""
    copy_turn(source, g, to, h)
    copy_deck(source, g, to, h)
    copy_row(source.round_visitors, g, to.round_visitors, h)
    copy_row(source.reset_order, g, to.reset_order, h)
    copy_row(source.stats, g, to.stats, h)


copy_game_inline = njit(cache=True, inline="always")(copy_game)  # the greedy scan's copy: no call passing two states
copy_game = inner(copy_game)


@njit(cache=True, inline="always")
def restore_game(source, g, to, h):
    """Slot ``h`` of ``to``, a copy of game ``g`` of ``source`` played on since to the end of the turn of seat
    ``source.to_move[g]``, back to game ``g`` (not its stats, which no play reads).

    A turn changes only its own seat's region, hand and energy, until a round ends (then visitors are awarded
    and the deck reset): only then is the whole game copied back (:func:`copy_game`)."""
    if to.rounds_ended[h] != source.rounds_ended[g] or to.resets[h] != source.resets[g]:
        copy_game(source, g, to, h)
        return
    me = source.to_move[g]
    copy_seat(source.hand, g, to.hand, h, me)
    copy_region(source, g, to, h, me)
    copy_seat(source.canopy, g, to.canopy, h, me)
    copy_seat(source.traits, g, to.traits, h, me)
    copy_scalars(source, g, to, h)


@njit(cache=True, inline="always")
def copy_region(source, g, to, h, seat):
    """A seat's stacks and stored energy: ``stack, stack_size, energy, stored`` of ``to[h, seat]`` become those
    of ``source[g, seat]``, every element, though only the parts that can differ are copied.

    A stack's entries above its size hold the empty -1 everywhere (stacks never shrink, and these copies keep
    it so), so only the levels below the larger of the two sizes are copied. A space's energy sums to its
    ``stored`` count (every store and energy payment changes both), so a space with none stored on either side
    has zero energy on both and is skipped."""
    for x in range(SPACES):
        size = max(source.stack_size[g, seat, x], to.stack_size[h, seat, x])
        for level in range(size):
            to.stack[h, seat, x, level] = source.stack[g, seat, x, level]
        to.stack_size[h, seat, x] = source.stack_size[g, seat, x]
        if source.stored[g, seat, x] > 0 or to.stored[h, seat, x] > 0:
            for card in range(source.energy.shape[3]):
                to.energy[h, seat, x, card] = source.energy[g, seat, x, card]
            to.stored[h, seat, x] = source.stored[g, seat, x]


@njit(cache=True, inline="always")
def copy_seat(source, g, to, h, seat):
    """``to[h, seat] = source[g, seat]``, as :func:`copy_row`."""
    row, into = source[g, seat], to[h, seat]
    for i in range(row.size):
        into.flat[i] = row.flat[i]


@njit(cache=True, inline="always")
def copy_deck(source, g, to, h):
    """The deck's order and the tucked cards: only a deck reset changes them."""
    copy_row(source.deck, g, to.deck, h)
    copy_row(source.tucked, g, to.tucked, h)


@njit(cache=True, inline="always")
def copy_turn(source, g, to, h):
    """What plays change of a game, a deck reset aside (all but the deck's order, the tucked cards, the
    round visitors, the reset orders and the stats)."""
    copy_row(source.hand, g, to.hand, h)
    for seat in range(source.stack.shape[1]):
        copy_region(source, g, to, h, seat)
    copy_row(source.canopy, g, to.canopy, h)
    copy_row(source.traits, g, to.traits, h)
    copy_row(source.carried, g, to.carried, h)
    copy_row(source.won, g, to.won, h)
    copy_row(source.won_count, g, to.won_count, h)
    to.rounds_ended[h] = source.rounds_ended[g]
    to.resets[h] = source.resets[g]
    to.round3_turn[h] = source.round3_turn[g]
    to.unawarded[h] = source.unawarded[g]
    to.deck_end[h] = source.deck_end[g]
    copy_scalars(source, g, to, h)


@njit(cache=True, inline="always")
def copy_scalars(source, g, to, h):
    """What any play changes of a game, the seats' regions, hands and energy aside."""
    to.done[h] = source.done[g]
    to.end[h] = source.end[g]
    to.to_move[h] = source.to_move[g]
    to.turn[h] = source.turn[g]
    to.decisions[h] = source.decisions[g]
    to.deck_top[h] = source.deck_top[g]
    copy_row(source.nursery, g, to.nursery, h)
    copy_row(source.discard, g, to.discard, h)
    to.phase[h] = source.phase[g]
    to.play_species[h] = source.play_species[g]
    to.play_space[h] = source.play_space[g]
    to.owed[h] = source.owed[g]
    to.picks_left[h] = source.picks_left[g]
    copy_row(source.queue_species, g, to.queue_species, h)
    copy_row(source.queue_space, g, to.queue_space, h)
    to.queue_len[h] = source.queue_len[g]
    to.queue_pos[h] = source.queue_pos[g]
