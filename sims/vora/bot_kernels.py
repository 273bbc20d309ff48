"""Vora's compiled bot kernels: the greedy's evaluation of every candidate and the planner's rollouts.

Built on the engine kernels of :mod:`sims.vora.kernels` (one game at a time:
load, try an action on a copy, score, store). The greedy scores a candidate
by the planner's or greedy's weights (``config.WEIGHT_NAMES`` order); the
rollouts play greedy in every seat to a stop turn and return the worth of
the position for the planner's seat.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sims.core.kernels import helper, inner, kernel, lowest_bit_index, noise, noise_stream
from sims.vora.kernels import (
    ACT_TAKER, COLLECT, DONE, F_DONE, F_TO_MOVE, F_TURN, FIELDS, I_CROW, I_K, I_MAIN_ACTIONS, I_PIG, I_WOLF,
    LOG_SLOTS, ONE, RECIPIENT_BLOCK, STEAL, Tables, advance, copy_into, family_scores, has_formation, legal_words,
    load, main_action, remember_turn_start, repeats_previous, run_turn, store,
)

# the greedy weights, in config.WEIGHT_NAMES order
SCORE_WEIGHT, RIVAL_WEIGHT, NEAR_WEIGHT, SPECIALS_WEIGHT, CUBES_WEIGHT = range(5)
MEAN_WEIGHT = 5  # the planner's worth only (worth_mean): how much the opponents' mean replaces the best's score


class Scratch(NamedTuple):
    """Per-kernel-call work arrays of one game and one candidate (see :func:`scratch_for`)."""

    kinds: np.ndarray  # uint64 [K]: the game's meadow
    fields: np.ndarray  # int64 [FIELDS]
    trial: np.ndarray  # uint64 [K]: a candidate's meadow
    trial_fields: np.ndarray  # int64 [FIELDS]
    trial_farms: np.ndarray  # int16 [P, K]
    stats: np.ndarray  # int32 [P, S]
    entry: np.ndarray  # int64 [LOG_SLOTS]
    scratch: np.ndarray  # uint64 [K]
    words: np.ndarray  # uint64 [groups]
    before: np.ndarray  # float64 [P]: family scores before the candidate
    after: np.ndarray  # float64 [P]
    bag: np.ndarray  # int8 [0]: candidates end turns without refill
    no_actions: np.ndarray  # int64 [0]
    no_values: np.ndarray  # float64 [0]


@kernel
def scratch_for(t: Tables, farms, stats) -> Scratch:
    """Work arrays for games shaped like ``farms[B, P, K]`` and ``stats[B, P, S]``."""
    k, players = farms.shape[2], farms.shape[1]
    return Scratch(np.zeros(k, dtype=np.uint64), np.zeros(FIELDS, dtype=np.int64), np.zeros(k, dtype=np.uint64),
                   np.zeros(FIELDS, dtype=np.int64), np.zeros((players, k), dtype=farms.dtype),
                   np.zeros((players, stats.shape[2]), dtype=stats.dtype), np.zeros(LOG_SLOTS, dtype=np.int64),
                   np.zeros(k, dtype=np.uint64), np.zeros(t.group_base.size, dtype=np.uint64),
                   np.zeros(players), np.zeros(players), np.zeros(0, dtype=np.int8), np.zeros(0, dtype=np.int64),
                   np.zeros(0))


@inner
def seat_score(count_score, farm) -> float:
    """The family score of one farm, kinds summed in kind order."""
    top = count_score.size - 1
    total = 0.0
    for kind in range(farm.size):
        total += count_score[min(farm[kind], top)]
    return total


@inner
def scored_features(t: Tables, farm):
    """``(family score, near, specials, cubes)`` of one farm in one pass: the score as :func:`seat_score`, then
    the greedy's features: kinds one cube short of more points, kinds with a from-farm special held (pig, crow,
    wolf), cubes."""
    count_score, g = t.count_score, t.g
    top = count_score.size - 1
    total = 0.0
    near = 0
    cubes = 0
    for kind in range(farm.size):
        count = np.int64(farm[kind])
        here = count_score[min(count, top)]
        total += here
        cubes += count
        if count_score[min(count + 1, top)] > here:
            near += 1
    specials = 0
    for slot in (I_PIG, I_CROW, I_WOLF):
        kind = g[slot]
        if kind >= 0 and farm[kind] >= 1:
            specials += 1
    return total, near, specials, cubes


@helper
def farm_features(t: Tables, farm):
    """The greedy's features of one farm: ``(near, specials, cubes)`` (:func:`scored_features`)."""
    found = scored_features(t, farm)
    return found[1], found[2], found[3]


@inner
def features_value(weights, near: int, specials: int, cubes: int, base) -> float:
    """``near * dnear + specials * dspecials + cubes * dcubes``: the weighed feature changes from the features
    ``base`` (:func:`farm_features`), summed in that order."""
    return (weights[NEAR_WEIGHT] * (near - base[0]) + weights[SPECIALS_WEIGHT] * (specials - base[1])
            + weights[CUBES_WEIGHT] * (cubes - base[2]))


@inner
def other_seat(t: Tables, action: int) -> int:
    """The one seat besides the mover whose farm a decision (played to the next decision) can change: a push's
    taker, the recipient, a steal's victim; -1 for none."""
    if action < t.g[I_MAIN_ACTIONS]:
        return t.act_int[action, ACT_TAKER]
    block = t.action_block[action]
    within = action - t.block_starts[block]
    if block == RECIPIENT_BLOCK:
        return within
    if block == STEAL:
        return within // t.g[I_K]
    return -1


@inner
def score_game(t: Tables, s: Scratch, farm, previous, weights, stream, actions, values, noises, first: int) -> int:
    """One ply for every legal action (flags ``s.words``) of the game loaded in ``s`` (farms ``farm``): each
    played on a copy without refill to its next decision or turn end, valued as ``score`` times my score change
    minus ``rival`` times the best opponent's, plus (when a feature weight is not 0) the weighed changes of my
    farm's features (:func:`features_value`); ``weights`` in ``config.WEIGHT_NAMES`` order. The noise is
    ``noise(stream, action)``. A main action that loops
    (``previous``: the meadows the last main actions started from) is worth -inf
    (:func:`repeats_previous`): it is played only when every legal action does.

    Only the mover's and :func:`other_seat`'s farms can change, so only they are rescored (an unchanged
    farm's change is exactly 0.0) and put back after each action.

    With ``values`` of size 0 returns the best action (the highest value, ties to the highest noise, then
    the lowest action; -1 with none); else writes every action, value and noise from slot ``first`` on.
    """
    g, act_int, act_word, act_fall, action_block, block_starts = (t.g, t.act_int, t.act_word, t.act_fall,
                                                                  t.action_block, t.block_starts)
    count_score, group_base = t.count_score, t.group_base
    kinds, fields, trial, trial_fields, trial_farms, stats, entry, scratch, words, before, after, bag = s[:12]
    k, players = kinds.size, farm.shape[0]
    keep_all = values.size > 0
    family_scores(count_score, farm, before)
    for seat in range(players):
        copy_into(farm[seat], trial_farms[seat])
    me = fields[F_TO_MOVE]
    score_weight, rival_weight = weights[SCORE_WEIGHT], weights[RIVAL_WEIGHT]
    featured = weights[NEAR_WEIGHT] != 0.0 or weights[SPECIALS_WEIGHT] != 0.0 or weights[CUBES_WEIGHT] != 0.0
    base = farm_features(t, farm[me])
    best, best_value, best_noise = -1, -np.inf, -1.0
    slot = first
    for group in range(words.size):
        flags = words[group]
        while flags:
            action = group_base[group] + lowest_bit_index(flags)
            flags &= flags - ONE
            for kind in range(k):
                trial[kind] = kinds[kind]
            for slot_ in range(FIELDS):
                trial_fields[slot_] = fields[slot_]
            if action < g[I_MAIN_ACTIONS]:
                stage = main_action(g, act_int, act_word, act_fall, trial, trial_farms, stats, trial_fields,
                                    action, entry)
                if stage == COLLECT and not has_formation(g, trial):
                    stage = DONE  # the turn would end here, and a turn's end changes no farm
                run_turn(g, trial, trial_farms, stats, trial_fields, bag, stage, np.bool_(False), entry, scratch)
                repeat = repeats_previous(trial, kinds, previous)
            else:
                repeat = False
                advance(g, act_int, act_word, act_fall, action_block, block_starts, trial, trial_farms, stats,
                        trial_fields, bag, action, np.bool_(False), entry, scratch)
            other = other_seat(t, action)
            rival = 0.0 if players > 2 or other < 0 or other == me else -np.inf
            if other >= 0 and other != me:
                rival = max(rival, seat_score(count_score, trial_farms[other]) - before[other])
                copy_into(farm[other], trial_farms[other])
            if featured:
                mine, near, specials, cubes = scored_features(t, trial_farms[me])
                value = score_weight * (mine - before[me]) - rival_weight * rival
                value += features_value(weights, near, specials, cubes, base)
            else:
                value = score_weight * (seat_score(count_score, trial_farms[me]) - before[me]) - rival_weight * rival
            if repeat:
                value = -np.inf
            copy_into(farm[me], trial_farms[me])
            if keep_all:
                actions[slot] = action
                values[slot] = value
                noises[slot] = noise(stream, action)
                slot += 1
            elif best < 0 or value > best_value:
                best, best_value, best_noise = action, value, -1.0
            elif value == best_value:
                if best_noise < 0:
                    best_noise = noise(stream, best)
                tied = noise(stream, action)
                if tied > best_noise:
                    best, best_noise = action, tied
    return best


@kernel
def greedy_values(t: Tables, state, seeds, decisions, weights, key, rows, groups, first, actions, values,
                  noises) -> None:
    """Every legal action of games ``rows`` (flags ``groups[i]``, flat slots from ``first[i]``) with its one-ply
    value and tie-break noise ``uniforms_at(seed, purpose, decisions, action)`` (:func:`score_game`; ``key``:
    the purpose's key; ``weights`` as in :func:`score_game`)."""
    s = scratch_for(t, state[1], state[2])
    for i in range(rows.size):
        row = rows[i]
        load(state, row, s.kinds, s.fields)
        s.words[:] = groups[i]
        score_game(t, s, state[1][row], state[15][row], weights, noise_stream(seeds[row], key, decisions[row]),
                   actions, values, noises, first[i])


@inner
def greedy_choice(t: Tables, s: Scratch, state, seeds, decisions, row: int, weights, key) -> int:
    """The greedy action of game ``row`` (:func:`score_game`), with the noise
    ``uniforms_at(seeds[row], purpose, decisions[row], action)``; -1 with no legal action."""
    farm = state[1][row]
    load(state, row, s.kinds, s.fields)
    legal_words(t, s.kinds, farm, s.fields, s.words, s.scratch)
    return score_game(t, s, farm, state[15][row], weights, noise_stream(seeds[row], key, decisions[row]),
                      s.no_actions, s.no_values, s.no_values, np.int64(0))


@kernel
def greedy_choices(t: Tables, state, seeds, decisions, rows, weights, key, chosen) -> None:
    """``chosen[row]``: the greedy action (:func:`greedy_choice`, with ``weights``) of each game ``rows``."""
    s = scratch_for(t, state[1], state[2])
    for i in range(rows.size):
        chosen[rows[i]] = greedy_choice(t, s, state, seeds, decisions, rows[i], weights, key)


@kernel
def roll_out(t: Tables, state, seeds, decisions, weights, keys, me: int, stop_turn, limit: int, win_bonus: float,
             worth) -> None:
    """Greedy play (every seat with ``weights``, seat ``p`` with the noise purpose key ``keys[p]``) in every game of
    ``state`` (with the refill) until its turn counter reaches ``stop_turn[row]``, the end, or ``limit`` decisions;
    ``worth[row]``: :func:`seat_worth` of the game at the rollout's end for seat ``me``."""
    meadow, farms, stats, bag = state[0], state[1], state[2], state[3]
    g = t.g
    s = scratch_for(t, farms, stats)
    for row in range(meadow.shape[0]):
        for _ in range(limit):
            load(state, row, s.kinds, s.fields)
            if s.fields[F_DONE] or s.fields[F_TURN] >= stop_turn[row]:
                break
            action = greedy_choice(t, s, state, seeds, decisions, row, weights, keys[s.fields[F_TO_MOVE]])
            s.entry[:] = 0
            remember_turn_start(s.kinds, s.fields, state[15][row])
            advance(g, t.act_int, t.act_word, t.act_fall, t.action_block, t.block_starts, s.kinds, farms[row],
                    stats[row], s.fields, bag[row], action, np.bool_(True), s.entry, s.scratch)
            store(state, row, s.kinds, s.fields)
            decisions[row] += 1
        worth[row] = seat_worth(t, weights, farms[row], me, state[13][row], win_bonus)


@inner
def seat_worth(t: Tables, weights, farms, me: int, done: bool, win_bonus: float) -> float:
    """What a position is worth to seat ``me`` (farms ``farms[P, K]``): ``score`` times my family score minus
    ``rival`` times the opponents' (the best's, the mix ``weights[MEAN_WEIGHT]`` of it replaced by their mean),
    after a finished game's result (``win_bonus`` times the sign of my margin over the best opponent, the mix of
    it replaced by the mean sign of my margins over each); in a game still running plus the weighed features
    of my farm (:func:`farm_features`, as levels). Weights in ``config.WEIGHT_NAMES`` order, then the mix."""
    count_score = t.count_score
    mix = weights[MEAN_WEIGHT]
    mine = seat_score(count_score, farms[me])
    rival = -np.inf
    total = 0.0
    signs = 0.0
    for seat in range(farms.shape[0]):
        if seat != me:
            theirs = seat_score(count_score, farms[seat])
            rival = max(rival, theirs)
            total += theirs
            signs += np.sign(mine - theirs)
    others = farms.shape[0] - 1
    value = weights[SCORE_WEIGHT] * mine - weights[RIVAL_WEIGHT] * ((1.0 - mix) * rival + mix * total / others)
    bonus = 0.0
    if done:
        bonus = ((1.0 - mix) * np.sign(mine - rival) + mix * signs / others) * win_bonus
    elif weights[NEAR_WEIGHT] != 0.0 or weights[SPECIALS_WEIGHT] != 0.0 or weights[CUBES_WEIGHT] != 0.0:
        near, specials, cubes = farm_features(t, farms[me])
        value += features_value(weights, near, specials, cubes, (np.int64(0), np.int64(0), np.int64(0)))
    return bonus + value


@kernel
def worths(t: Tables, farms, done, me: int, weights, win_bonus: float, worth) -> None:
    """``worth[row]``: :func:`seat_worth` of every game (farms ``farms[B, P, K]``, finished ``done[B]``)."""
    for row in range(farms.shape[0]):
        worth[row] = seat_worth(t, weights, farms[row], me, done[row], win_bonus)
