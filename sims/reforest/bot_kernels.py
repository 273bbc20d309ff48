"""Compiled pieces of the batched Reforest bots: the greedy evaluation of a position, one game at a time.

The evaluation is the one of :mod:`sims.reforest.bots` (its module docstring);
the scores and measures it reads are the engine's kernels.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sims.reforest.config import ROUNDS
from sims.core.kernels import helper, inlined, inner, noise, noise_stream
from sims.reforest.kernels import (
    EVENT_FIELDS,
    Arrays,
    copy_game,
    copy_game_inline,
    restore_game,
    choose_uniform,
    legal_buffers,
    measure,
    seat_points,
    step,
)

WEIGHT_NAMES = ("points", "hand_card", "energy", "visitor_goal", "elevation")
NOT_KEPT = NO_REUSE = np.bool_(False)  # not the literal False: evaluate_one would compile once more for it


@njit(cache=True, inline="always")
def visitor_goals(a, t, g, goals, values, me, kept, kept_measures):
    """Contested visitors each seat leads alone (solitaire: meets this round's threshold) into ``goals [P]``
    (``values [P]``: scratch). With ``kept`` the measures of the seats but ``me`` are read from ``kept_measures
    [k, seat]`` (:func:`keep_seat_terms`, ``k`` the visitor's slot: a carried one, then this round's)."""
    players = goals.size
    goals[:] = 0
    for k in range(a.carried.shape[1] + 1):
        visitor = contested_visitor(a, g, k)
        if visitor < 0:
            continue
        for seat in range(players):
            values[seat] = kept_measures[k, seat] if kept and seat != me else measure(a, t, g, seat, visitor)
        if t.solo:
            if values[0] >= t.solo_thresholds[visitor, min(a.rounds_ended[g], ROUNDS - 1)]:
                goals[0] += 1
            continue
        best, leaders, leader = -np.inf, 0, 0
        for seat in range(players):
            if values[seat] > best:
                best, leaders, leader = values[seat], 1, seat
            elif values[seat] == best:
                leaders += 1
        if leaders == 1:
            goals[leader] += 1


@njit(cache=True, inline="always")
def contested_visitor(a, g, k):
    """Slot ``k`` of the visitors now contested in game ``g``: the carried ones, then this round's; -1 for none."""
    if k < a.carried.shape[1]:
        return a.carried[g, k]
    if a.rounds_ended[g] < ROUNDS:
        return a.round_visitors[g, a.rounds_ended[g]]
    return -1


@njit(cache=True, inline="always")
def row_lack(a, t, g, seat):
    """Over the rows: the plants the smaller stacks lack to match the row's largest stack."""
    lack = 0
    for row in range(t.row_first.size):
        low = high = a.stack_size[g, seat, t.row_first[row]]
        for x in range(t.row_first[row], t.row_last[row] + 1):
            low = min(low, a.stack_size[g, seat, x])
            high = max(high, a.stack_size[g, seat, x])
        lack += high - low
    return lack


@helper
def evaluate(a, t, me, weights, hand_value_share, work, out):
    """``eval(me) - max over opponents eval(opponent)`` of each game (``me [n]``) into ``out [n]`` (``work``:
    :func:`evaluation_buffers`)."""
    for g in range(out.size):
        out[g] = evaluate_one(a, t, g, me[g], weights, hand_value_share, work, NOT_KEPT)


def evaluation_buffers(a: Arrays) -> tuple[np.ndarray, ...]:
    """Scratch of :func:`evaluate_one`: per seat the goals, the values, the measures, the :func:`seat_terms` of
    the position a decision starts from and its contested visitors' measures."""
    players = a.hand.shape[1]
    return np.empty(players, dtype=np.int64), np.empty(players), np.empty(players), np.empty((2, players)), \
        np.empty((a.carried.shape[1] + 1, players))


@njit(cache=True, inline="always")
def seat_terms(a, t, g, seat, weights):
    """The terms of a seat's evaluation but the goals: ``w.points * score + w.hand_card * hand + w.energy *
    energy``, and ``w.elevation * lack``. Inlined: a call passing the state's arrays costs more than the terms
    (it runs for every seat of every scored action)."""
    points, energy, hand = seat_points(a, t, g, seat)
    score = points[0] + points[1] + points[2] + points[3] + points[4] + points[5]
    return weights[0] * score + weights[1] * hand + weights[2] * energy, weights[4] * row_lack(a, t, g, seat)


@njit(cache=True, inline="always")
def keep_seat_terms(a, t, g, me, weights, work):
    """The :func:`seat_terms` of every seat of game ``g`` but ``me``, and their measures of each contested visitor
    (:func:`contested_visitor`), into ``work`` (:func:`evaluation_buffers`)."""
    terms, kept_measures = work[3], work[4]
    for seat in range(terms.shape[1]):
        if seat != me:
            terms[0, seat], terms[1, seat] = seat_terms(a, t, g, seat, weights)
    for k in range(kept_measures.shape[0]):
        visitor = contested_visitor(a, g, k)
        if visitor >= 0:
            for seat in range(terms.shape[1]):
                if seat != me:
                    kept_measures[k, seat] = measure(a, t, g, seat, visitor)


def evaluate_one(a, t, g, me, weights, hand_value_share, work, kept):
    """``eval(me) - max over opponents eval(opponent)`` of game ``g`` (``work``: :func:`evaluation_buffers`).

    With ``kept`` the opponents' :func:`seat_terms` and visitor measures are read from ``work``
    (:func:`keep_seat_terms`): the position differs from the kept one by a turn of ``me`` in which no round
    ended."""
    players, species_count = a.hand.shape[1], a.hand.shape[2]
    w_hand, w_goal = weights[1], weights[3]
    goals, values, measures, terms, kept_measures = work
    visitor_goals(a, t, g, goals, measures, me, kept, kept_measures)
    for seat in range(players):
        if kept and seat != me:
            base, lack = terms[0, seat], terms[1, seat]
        else:
            base, lack = seat_terms(a, t, g, seat, weights)
        values[seat] = base + w_goal * goals[seat] - lack
    held_value = 0
    for s in range(species_count):
        held_value += a.hand[g, me, s] * t.value[s]
    mine = values[me] + w_hand * hand_value_share * held_value
    if players == 1:
        return mine
    best = -np.inf
    for seat in range(players):
        if seat != me:
            best = max(best, values[seat])
    return mine - best


evaluate_one = inlined(evaluate_one)  # in the greedy scan no call per action; compiled once for every caller


@njit(cache=True, inline="always")
def play_out_value(scratch, t, action, weights, hand_value_share, lists, work, rounds_ended):
    """The greedy value of ``action`` in the game copied into slot 0 of ``scratch``: played there, the turn
    finished with the lowest legal actions, the position evaluated for the seat that moved (the opponents'
    terms kept in ``work`` unless a round ended: ``rounds_ended`` those of the copied game)."""
    slot = np.int64(0)  # not the literal 0: a call with a literal compiles the callee once more for it
    me, start_turn = scratch.to_move[slot], scratch.turn[slot]
    step_game(scratch, t, lists, slot, action, start_turn)  # to the end of the turn
    # me is int8 (to_move): as int64, the callers of evaluate_one share one compiled signature
    return evaluate_one(scratch, t, slot, np.int64(me), weights, hand_value_share, work,
                        scratch.rounds_ended[slot] == rounds_ended)


@inner
def greedy_choice(a, scratch, t, g, seed, purpose, weights, hand_value_share, lists, work,
                  games, actions, values, noises, scored, known, reuse):
    """The greedy action of game ``g`` (-1: none), the count of scored pairs after it, the value of the
    action (``known`` for an unscored one) and the count of legal actions.

    A game with one legal action takes it unscored. Otherwise every legal
    action, ascending, gets its :func:`play_out_value` and its noise
    ``uniforms_at(seed, purpose, decisions, action)``; the highest value wins,
    equal values go to the highest noise, then to the lowest action. With
    non-empty ``games, actions, values, noises`` each scored pair is also
    written there from index ``scored`` on. ``known`` (NaN: unknown) is the
    value of the lowest legal action, which is not played again: the value of
    the turn's earlier decision, whose play-out went on with the lowest
    actions (:func:`roll_out_one`). With ``reuse`` slot 0 of ``scratch`` and
    the kept terms in ``work`` are those of a scan of game ``g`` earlier in
    this turn, and no round ended since: the slot is restored, not copied
    (:func:`restore_game`), and the opponents' terms are kept.
    """
    legal, spaces = lists[0], lists[1]
    one, u = lists[6], lists[7]
    one[0, 0] = g
    n = choose_uniform(a, t, one[0], u, one[1], legal, spaces)  # the legal actions of game g into legal
    if n < 2:
        return (legal[0] if n == 1 else -1), scored, known, n
    stream = noise_stream(seed, purpose, a.decisions[g])
    best, best_value, best_noise = -1, -np.inf, -1.0
    fresh = not reuse  # slot 0 of scratch is game g as it is
    if fresh:
        copy_game_inline(a, g, scratch, np.int64(0))
        keep_seat_terms(a, t, g, a.to_move[g], weights, work)
    for j in range(n):
        action = legal[j]
        if j == 0 and not np.isnan(known):
            value = known
        else:
            if not fresh:
                restore_game(a, g, scratch, np.int64(0))
            fresh = False
            value = play_out_value(scratch, t, action, weights, hand_value_share, lists, work,
                                   a.rounds_ended[g])
        tie_break = noise(stream, action)
        if value > best_value or (value == best_value and tie_break > best_noise):
            best, best_value, best_noise = action, value, tie_break
        if games.size:
            games[scored], actions[scored], values[scored], noises[scored] = g, action, value, tie_break
            scored += 1
    return best, scored, best_value, n


@helper
def greedy_rollouts(a, scratch, t, seeds, horizon, purposes, weights, hand_value_share, me, win_bonus, lists, work,
                    worth):
    """Into ``worth [n]``: every game of ``a`` played on by greedy bots (seat ``s`` with noise stream
    ``purposes[s]``) until it is over or its turn reaches ``horizon``, then valued for seat ``me``:
    :func:`evaluate_one`, plus ``sign(value) * win_bonus`` for a finished game of several players (``lists,
    work``: :func:`buffers`, :func:`evaluation_buffers`)."""
    for g in range(worth.size):
        worth[g] = roll_out_one(a, scratch, t, g, seeds[g], horizon[g], purposes, weights, hand_value_share, me,
                                win_bonus, lists, work)


@njit(cache=True, inline="always")
def roll_out_one(a, scratch, t, g, seed, horizon, purposes, weights, hand_value_share, me, win_bonus, lists, work):
    """:func:`greedy_rollouts` of game ``g`` (``seed`` its seed, ``horizon`` its turn limit)."""
    no_games, no_values = lists[4], lists[5]
    known = np.nan  # the value of the lowest legal action (greedy_choice): the decisions of a turn after its first
    scanned, resets = -1, -1  # the turn and deck resets of the last scan (greedy_choice's reuse)
    while not a.done[g] and a.turn[g] < horizon:
        turn = a.turn[g]
        action, _, value, n = greedy_choice(a, scratch, t, g, seed, purposes[a.to_move[g]], weights,
                                            hand_value_share, lists, work, no_games, no_games, no_values, no_values,
                                            np.int64(0), known, scanned == turn and resets == a.resets[g])
        if action < 0:
            break
        if n > 1:
            scanned, resets = turn, a.resets[g]
        step_game(a, t, lists, g, action, -1)
        a.decisions[g] += 1
        known = value if a.turn[g] == turn else np.nan
    worth = evaluate_one(a, t, g, me, weights, hand_value_share, work, NOT_KEPT)
    if a.done[g] and a.hand.shape[1] > 1:
        worth += np.sign(worth) * win_bonus
    return worth


@helper
def choices(a, branch, scratch, t, seeds, rows, weights, hand_value_share, purpose, plan, deck_keys, rollout_keys,
            me, win_bonus, chosen, games, actions, values, noises, lists, work, worth, keep, deck_work):
    """The greedy (``plan[0]`` candidates 0) or the planner's (:class:`sims.reforest.bots.PlannerBot`) action of
    each game of ``rows`` into ``chosen [R]``, every step of it in this kernel; how many scored pairs greedy wrote.

    Greedy: :func:`greedy_choice` (noise stream ``purpose``), each scored pair written into ``games, actions,
    values, noises`` (empty: none; else room for every legal action of ``rows``). The planner (``games`` ...
    room for one game's legal actions): greedy's scored actions, its best ``candidates`` kept
    (:func:`kept_candidates`), each played to the end of its turn in slot 0 of ``branch`` (two games), then per
    sample ``k`` copied to slot 1, its deck reshuffled (:func:`reshuffle_deck`, stream ``deck_keys[k]``) and
    rolled out (:func:`roll_out_one`, seat streams ``rollout_keys[k]``) to turn ``start + 1 + depth``. A
    candidate is worth the mean of its samples; the most worth wins, ties to the greedy value, then the noise,
    then the lowest action. A game with fewer than two legal actions takes greedy's choice. ``plan``:
    candidates, depth, prune (NaN: none). Scratch: ``lists, work`` (:func:`buffers`, :func:`evaluation_buffers`),
    ``worth, keep`` as long as ``values``, ``deck_work`` (:func:`deck_buffers`)."""
    candidates, depth, prune = int(plan[0]), int(plan[1]), plan[2]
    played, rolled = np.int64(0), np.int64(1)  # the branch's slots (not literals: callees would compile again)
    scored = np.int64(0)  # not the literal 0: greedy_choice would compile once more for it
    if candidates == 0:
        for i in range(rows.size):
            g = rows[i]
            chosen[i], scored, _, _ = greedy_choice(a, scratch, t, g, seeds[g], purpose, weights, hand_value_share,
                                                    lists, work, games, actions, values, noises, scored, np.nan,
                                                    NO_REUSE)
        return scored
    for i in range(rows.size):
        g = rows[i]
        chosen[i], scored, _, _ = greedy_choice(a, scratch, t, g, seeds[g], purpose, weights, hand_value_share,
                                                lists, work, games, actions, values, noises, np.int64(0), np.nan,
                                                NO_REUSE)
        if scored == 0:
            continue
        kept = kept_candidates(values, noises, scored, candidates, prune, keep)
        start_turn = a.turn[g]
        best = -1
        for j in range(kept):
            c = keep[j]
            copy_game(a, g, branch, played)
            step_game(branch, t, lists, played, actions[c], start_turn)  # to the end of the turn
            total = 0.0
            for k in range(deck_keys.size):
                copy_game(branch, played, branch, rolled)
                reshuffle_deck(branch, rolled, seeds[g], deck_keys[k], deck_work)
                total += roll_out_one(branch, scratch, t, rolled, seeds[g], start_turn + 1 + depth, rollout_keys[k],
                                      weights, hand_value_share, me, win_bonus, lists, work)
            worth[c] = total / deck_keys.size
            if best < 0 or (worth[c], values[c], noises[c]) > (worth[best], values[best], noises[best]):
                best = c
        chosen[i] = actions[best]
    return np.int64(0)


@njit(cache=True, inline="always")
def kept_candidates(values, noises, scored, candidates, prune, keep):
    """The indices of the ``candidates`` best of ``scored`` actions (highest value, then noise, then index) into
    ``keep``, ascending, without those more than ``prune`` below the best value (NaN: none dropped); how many."""
    kept = min(candidates, scored)
    for j in range(kept):
        best = -1
        for c in range(scored):
            taken = False
            for m in range(j):
                taken = taken or keep[m] == c
            if not taken and (best < 0 or (values[c], noises[c]) >= (values[best], noises[best])):
                best = c
        keep[j] = best
    for j in range(1, kept):  # ascending, by insertion (numba's sort is not compiled without reference counting)
        c, m = keep[j], j
        while m > 0 and keep[m - 1] > c:
            keep[m] = keep[m - 1]
            m -= 1
        keep[m] = c
    if prune != prune:
        return kept
    top = -np.inf
    for j in range(kept):
        top = max(top, values[keep[j]])
    n = 0
    for j in range(kept):
        if values[keep[j]] >= top - prune:
            keep[n] = keep[j]
            n += 1
    return n


@njit(cache=True, inline="always")
def reshuffle_deck(a, g, seed, key, deck_work):
    """The cards left in game ``g``'s deck in the order of ``uniforms(seed, key, decisions, position)``
    (ties: by position); the cards drawn and the empty positions stay (``deck_work``: scratch)."""
    keys, order = deck_work
    stream = noise_stream(seed, key, a.decisions[g])
    top, end = a.deck_top[g], a.deck_end[g]
    n = end - top
    for i in range(n):  # insertion sort: stable, and no allocation
        u = noise(stream, top + i)
        j = i
        while j > 0 and keys[j - 1] > u:
            keys[j], order[j] = keys[j - 1], order[j - 1]
            j -= 1
        keys[j], order[j] = u, a.deck[g, top + i]
    for i in range(n):
        a.deck[g, top + i] = order[i]


def buffers(a: Arrays) -> tuple[np.ndarray, ...]:
    """Scratch of the greedy kernels: :func:`legal_buffers`, an event buffer that logs nothing, empty lists of
    scored games and values (:func:`greedy_choice` keeps no scores), the game, action and turn of
    :func:`step_game` (the game and a uniform of :func:`kernels.choose_uniform` in :func:`greedy_choice`)."""
    legal, spaces = legal_buffers(a.hand.shape[2])
    return (legal, spaces, np.zeros((0, len(EVENT_FIELDS)), dtype=np.int64), np.zeros(2, dtype=np.int64),
            np.empty(0, dtype=np.int64), np.empty(0), np.zeros((3, 1), dtype=np.int64), np.zeros(1))


@njit(cache=True, inline="always")
def step_game(a, t, lists, g, action, finish):
    """:func:`kernels.step` of game ``g`` with ``action`` (``finish``: its turn to play to the end of, -1 none)."""
    one = lists[6]
    one[0, 0], one[1, 0], one[2, 0] = g, action, finish
    step(a, t, lists[2], lists[3], one[0], one[1], one[2])


def deck_buffers(a: Arrays) -> tuple[np.ndarray, np.ndarray]:
    """Scratch of :func:`reshuffle_deck`: a key and a card per deck position."""
    return np.empty(a.deck.shape[1]), np.empty(a.deck.shape[1], dtype=np.int64)
