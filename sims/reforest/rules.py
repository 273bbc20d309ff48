"""Reforest, batched: N games as numpy arrays with a leading game axis.

The rules are those of the docstring of :mod:`sims.reforest.config`, word
for word; this module only says how they are laid out in arrays.

State layout (``B`` games, ``P`` seats, ``S`` species, 6 spaces, ``D`` the
most plants a stack can hold, ``N`` nursery slots)::

    hand[B, P, S]          cards held, a count per species
    stack[B, P, 6, D]      plants of each space, bottom to top (-1 above the top)
    stack_size[B, P, 6]    plants in each stack (the canopy is stack[..., size - 1])
    energy[B, P, 6, S]     stored energy, a count per species and space
    deck[B, C]             species in deck order; cards deck_top .. deck_end - 1 are left, top first
    nursery[B, N]          species per slot, -1 when empty

A decision changes one game's position through a handler per action block;
what follows automatically (placing, the effect queue, the end of the turn)
runs in :meth:`ReforestEngine._settle` until every game waits on a decision.
Every card taken from the deck goes through :meth:`ReforestEngine._take_top`
and then :meth:`ReforestEngine._check_round_end`, so a round ends the moment a
take empties the deck (the card taken is already where it was going: in the
hand, the nursery, the discard pile or under a stack).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sims.core.engine import BatchedEngine, BatchedState, GameResults, Trace
from sims.core.rng import shuffle_order
from sims.reforest.config import (
    EFFECT_KINDS,
    END_REASONS,
    EVENT_KINDS,
    GAME_COLUMNS,
    MEASURES,
    PHASES,
    ROUNDS,
    ROW_SPACES,
    ROWS,
    SEAT_COLUMNS,
    SPACE_ROW,
    SPACES,
    ReforestConfig,
)

MAIN, PAY, GATHER, SOLO_DISCARD, EFFECT, DRAW, HAND_LIMIT = range(len(PHASES))
(B_GATHER, B_PLAY, B_PAY_HAND, B_PAY_ENERGY, B_TAKE, B_STOP, B_USE, B_DECLINE, B_DISCARD,
 B_SOLO_DISCARD) = range(10)
COMPLETE, STALL = END_REASONS.index("complete"), END_REASONS.index("stall")
EVENT = {name: index for index, name in enumerate(EVENT_KINDS)}
STAT = {name: index for index, name in enumerate(SEAT_COLUMNS)}
KIND = {name: index for index, name in enumerate(EFFECT_KINDS)}

# What runs automatically after a decision, per game (0: the game waits on a decision).
DECIDE, PLACE, QUEUE, FINISH_GATHER, AFTER_GATHER, END_TURN = range(6)
QUEUE_SLOTS = 1 + SPACES + 1  # the covered plant, a reaction per space, the played plant


def row_counts(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row totals of ``counts [R, w]`` (bools or small counts) and the running total of the flattened array.

    One cumsum over the flat array: along short rows numpy's cumsum is many times slower.
    """
    running = np.cumsum(counts.reshape(-1), dtype=np.int64)
    ends = running[counts.shape[1] - 1::counts.shape[1]]
    count = ends.copy()
    count[1:] -= ends[:-1]
    return count, running


def kth_unit(running: np.ndarray, count: np.ndarray, k: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    """The column holding unit ``k`` (from 0) of each row, and the unit's index within that column.

    ``running`` and ``count`` from :func:`row_counts` (at least one row); the values of rows
    where ``k >= count`` are meaningless (but in range).
    """
    target = running[width - 1::width] - count + k + 1  # the unit's number in the whole array, from 1
    position = np.minimum(np.searchsorted(running, target, side="left"), running.size - 1)
    column = np.minimum(np.maximum(position - np.arange(count.size) * width, 0), width - 1)
    within = target - 1 - np.where(position > 0, running[position - 1], 0)
    return column, within


def seat_rows(array: np.ndarray, rows: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """``array[rows, seat]`` for an array ``[B, P, ...]`` (one take along a flat axis: faster than fancy indexing)."""
    flat = array.reshape((-1,) + array.shape[2:])
    return np.take(flat, rows * array.shape[1] + seat, axis=0)


def seat_view(array: np.ndarray) -> np.ndarray:
    """A view ``[B * P, ...]`` of a C-contiguous array ``[B, P, ...]``, for writing at ``rows * P + seat``."""
    assert array.flags.c_contiguous
    return array.reshape((-1,) + array.shape[2:])


@dataclass
class ReforestState(BatchedState):
    hand: np.ndarray  # int16 [B, P, S]
    stack: np.ndarray  # int16 [B, P, 6, D]
    stack_size: np.ndarray  # int8 [B, P, 6]
    energy: np.ndarray  # int16 [B, P, 6, S]
    canopy: np.ndarray  # int16 [B, P, 6]: the top plant of each space, -1 if empty (kept with stack)
    traits: np.ndarray  # int16 [B, P, T]: plants with each trait in the region (kept with stack)
    stored: np.ndarray  # int16 [B, P, 6]: energy cards per space (kept with energy)
    deck: np.ndarray  # int16 [B, C]
    deck_top: np.ndarray  # int32 [B]
    deck_end: np.ndarray  # int32 [B]
    nursery: np.ndarray  # int16 [B, N]
    discard: np.ndarray  # int16 [B, S]
    tucked: np.ndarray  # int16 [B, 2, S]
    kept: np.ndarray  # int16 [B, S]: the cards of the game (for the conservation check and solo target)
    round_visitors: np.ndarray  # int8 [B, 3]
    carried: np.ndarray  # int8 [B, V]: tied visitors carried to the next round, in order (-1 after)
    won: np.ndarray  # int8 [B, P, V]: visitors of each seat in award order (-1 after)
    won_count: np.ndarray  # int8 [B, P]
    rounds_ended: np.ndarray  # int8 [B]
    resets: np.ndarray  # int16 [B]
    reset_order: np.ndarray  # int8 or int16 [B, 3, C]: the deck positions of reset i + 1 in shuffle order
    round3_turn: np.ndarray  # int32 [B]: state.turn when round 3 ended, -1 before
    unawarded: np.ndarray  # int16 [B]
    phase: np.ndarray  # int8 [B]
    play_species: np.ndarray  # int16 [B]: the plant being played (-1 none)
    play_space: np.ndarray  # int8 [B]
    owed: np.ndarray  # int16 [B]: cards still to pay
    picks_left: np.ndarray  # int16 [B]: gather or draw picks left
    queue_species: np.ndarray  # int16 [B, Q]: the plant whose effect is queued
    queue_space: np.ndarray  # int8 [B, Q]: its space (where stores go)
    queue_len: np.ndarray  # int8 [B]
    queue_pos: np.ndarray  # int8 [B]: the entry being resolved
    stats: np.ndarray  # int32 [B, P, len(SEAT_COLUMNS)]
    event_log: list = field(default_factory=list)  # dicts of flat arrays, in the order they happened
    logging: bool = True  # bots' branches keep no log
    steps: int = 0


class ReforestEngine(BatchedEngine):
    """The batched Reforest engine for one player count."""

    end_reasons = END_REASONS

    def __init__(self, config: ReforestConfig, players: int):
        self.config = config
        self.players = players
        self.num_actions = config.num_actions
        self.solo = players == 1
        s = config.num_species
        self.depth = config.max_stack_plants
        self.cap = config.deck_size(players)
        self.low_row = np.array([row == 0 for row in SPACE_ROW])
        self.adjacent = np.asarray(config.adjacent)
        self.payment = np.asarray(config.payment_spaces).astype(np.int16)
        self.row_of_space = np.array(SPACE_ROW, dtype=np.int64)
        # species tables, with one extra entry at index -1 meaning "no plant"
        pad = lambda table, fill=0: np.r_[np.asarray(table), fill]  # noqa: E731
        self.cost = pad(config.cost).astype(np.int16)
        self.value = pad(config.value).astype(np.int64)
        self.height = pad(config.height, -1.0)
        self.sun = pad(config.sun, False).astype(bool)
        self.kind = pad(config.effect_kind).astype(np.int64)
        self.effect_n = pad(config.effect_n).astype(np.int64)
        self.effect_k = pad(config.effect_k).astype(np.int64)
        self.effect_trait = np.maximum(pad(config.effect_trait, 0), 0).astype(np.int64)
        self.effect_row = np.maximum(pad(config.effect_row, 0), 0).astype(np.int64)
        self.has_trait = np.r_[np.asarray(config.has_trait), np.zeros((1, config.num_traits), bool)]
        self.allowed = np.asarray(config.allowed_spaces)
        self.rank = np.r_[np.asarray(config.height_rank), 10_000].astype(np.int16)  # empty: above every plant
        kind = self.kind
        self.is_draw = np.isin(kind, [KIND[k] for k in ("on_play_draw", "react_play_trait_draw",
                                                         "after_gather_draw", "on_covered_draw")])
        self.hand_limit_raise = np.where(kind == KIND["passive_hand_limit"], self.effect_n, 0)
        # passive discounts: [species + 1, T] discount per trait of the played plant
        self.passive = np.zeros((s + 1, config.num_traits), dtype=np.int64)
        self.has_trait_t = self.has_trait[:s].T.astype(np.int64)
        for sp in np.nonzero(kind == KIND["passive_discount_trait"])[0]:
            self.passive[sp, self.effect_trait[sp]] = self.effect_n[sp]
        when = kind[:s] == KIND["on_play_discount_per_trait"]
        self.when_n = np.where(when, self.effect_n[:s], 0)
        self.when_trait = self.effect_trait[:s]
        self.when_self = self.has_trait[np.arange(s), self.when_trait].astype(np.int64)
        # reactions: [species + 1 (reacting plant), S (played)] True if the played plant triggers it
        react = np.isin(kind, [KIND["react_play_trait_draw"], KIND["react_play_trait_store"]])
        self.reacts = react[:, None] & self.has_trait[:s][:, self.effect_trait].T
        self.covered_effect = np.isin(kind, [KIND["on_covered_draw"], KIND["on_covered_store"]])
        self.played_effect = np.isin(kind, [KIND["on_play_draw"], KIND["on_play_store"]])
        self.after_gather = np.isin(kind, [KIND["after_gather_draw"], KIND["after_gather_store"]])
        # actions: block and field of every action number
        self.block_of = np.zeros(config.num_actions, dtype=np.int64)
        self.field_of = np.zeros(config.num_actions, dtype=np.int64)
        for index, (name, size) in enumerate(config.block_sizes.items()):
            start = config.offsets[name]
            self.block_of[start:start + size] = index
            self.field_of[start:start + size] = np.arange(size)
        self.visitor_points = np.asarray(config.visitor_points).astype(np.int64)
        self._build_fast_tables()

    def _build_fast_tables(self) -> None:
        """Tables that turn the legality and measure computations into a few lookups and one matmul."""
        cfg = self.config
        s, t = cfg.num_species, cfg.num_traits
        # base cost = base_cost - discounts @ discount_matrix, the discounts being the canopy plants of each
        # species with a passive discount, then the plants with each trait a when-played discount counts
        self.base_cost = (self.cost[:s] - self.when_n * self.when_self).astype(np.float64)
        when_matrix = np.zeros((t, s))
        when_matrix[self.when_trait, np.arange(s)] = self.when_n
        self.passive_species = np.nonzero(self.passive[:s].any(axis=1))[0]
        self.when_traits = np.nonzero(when_matrix.any(axis=1))[0]
        self.discount_matrix = np.concatenate([self.passive[self.passive_species] @ self.has_trait_t,
                                               when_matrix[self.when_traits]], axis=0).astype(np.float64)
        # place_table[x, c, s]: species s may go on space x whose state is c (a canopy species,
        # EMPTY_SPACE: empty and no plant may grow there, GROW_SPACE: empty and a plant may grow there)
        rank = self.rank[:s]
        place = np.zeros((SPACES, s + 2, s), dtype=bool)
        place[:, :s, :] = rank[None, None, :] > rank[None, :, None]
        place[:, s + 1, :] = True
        self.place_table = place & self.allowed.T[:, None, :]
        self.empty_space, self.grow_space = s, s + 1
        self.place_rows = self.place_table.reshape(-1, s)  # np.take on rows is much faster than fancy indexing
        self.place_row_of_space = np.arange(SPACES)[:, None] * (s + 2)
        self.place_flat = self.place_table.reshape(-1)  # index (space * (s + 2) + state) * s + species
        self.ones_species = np.ones(s)
        self.adjacent_and_all = np.concatenate([self.adjacent, np.ones((SPACES, 1))], axis=1).astype(np.float64)
        self.ones_spaces = np.ones(SPACES, dtype=np.int64)
        self.ones_spaces_f = np.ones(SPACES)
        self.ones_nursery = np.ones(cfg.nursery_size)
        self._upper: dict[int, np.ndarray] = {}
        self.payment_f = self.payment.T.astype(np.float64)
        # measures: one column per feature (plants, traits, plants per row, energy, tallest)
        self.row_matrix = np.zeros((SPACES, len(ROW_SPACES)))
        for row, spaces in enumerate(ROW_SPACES):
            self.row_matrix[list(spaces), row] = 1.0
        first = {"plants": 0, "trait": 1, "row": 1 + t, "energy": 1 + t + len(ROW_SPACES),
                 "tallest": 2 + t + len(ROW_SPACES)}
        self.measure_columns = {
            solo: np.array([first[MEASURES[kind]] + (arg if MEASURES[kind] in ("trait", "row") else 0)
                            for kind, arg in zip(cfg.solo_measure if solo else cfg.goal_measure,
                                                 cfg.solo_arg if solo else cfg.goal_arg)], dtype=np.int64)
            for solo in (False, True)
        }
        self.solo_thresholds = np.asarray(cfg.solo_thresholds)

    # --- setup ------------------------------------------------------------------------

    def init(self, seeds: np.ndarray) -> ReforestState:
        cfg, players = self.config, self.players
        seeds = np.asarray(seeds, dtype=np.uint64)
        size, s, n, hand = len(seeds), cfg.num_species, cfg.nursery_size, cfg.hand_start
        kept = np.asarray(cfg.card_species)[shuffle_order(seeds, "deck", 0, cfg.total_cards)[:, : self.cap]]
        kept = kept.astype(np.int16)
        species = np.arange(s, dtype=np.int16)
        counts = lambda cards: (cards[..., None] == species).sum(axis=-2).astype(np.int16)  # noqa: E731
        hands = np.stack([counts(kept[:, p * hand:(p + 1) * hand]) for p in range(players)], axis=1)
        start = players * hand
        nursery = kept[:, start:start + n].copy()
        start += n
        tucked_n = cfg.tucked(players)
        tucked = np.stack([counts(kept[:, start + i * tucked_n:start + (i + 1) * tucked_n]) for i in range(2)], 1)
        start += 2 * tucked_n
        visitors = shuffle_order(seeds, "visitors", 0, cfg.num_visitors).astype(np.int8)
        v = cfg.num_visitors
        queue = np.full((size, QUEUE_SLOTS), -1, dtype=np.int16)
        return ReforestState(
            seeds=seeds,
            done=np.zeros(size, dtype=bool),
            to_move=np.zeros(size, dtype=np.int8),
            turn=np.zeros(size, dtype=np.int32),
            end=np.zeros(size, dtype=np.int8),
            decisions=np.zeros(size, dtype=np.int32),
            hand=hands,
            stack=np.full((size, players, SPACES, self.depth), -1, dtype=np.int16),
            stack_size=np.zeros((size, players, SPACES), dtype=np.int8),
            energy=np.zeros((size, players, SPACES, s), dtype=np.int16),
            canopy=np.full((size, players, SPACES), -1, dtype=np.int16),
            traits=np.zeros((size, players, cfg.num_traits), dtype=np.int16),
            stored=np.zeros((size, players, SPACES), dtype=np.int16),
            deck=kept.copy(),
            deck_top=np.full(size, start, dtype=np.int32),
            deck_end=np.full(size, self.cap, dtype=np.int32),
            nursery=nursery,
            discard=np.zeros((size, s), dtype=np.int16),
            tucked=tucked,
            kept=counts(kept),
            round_visitors=visitors[:, :ROUNDS].copy(),
            carried=np.full((size, v), -1, dtype=np.int8),
            won=np.full((size, players, v), -1, dtype=np.int8),
            won_count=np.zeros((size, players), dtype=np.int8),
            rounds_ended=np.zeros(size, dtype=np.int8),
            resets=np.zeros(size, dtype=np.int16),
            reset_order=np.stack([shuffle_order(seeds, "deck", reset, self.cap) for reset in range(1, ROUNDS + 1)],
                                 axis=1).astype(np.int8 if self.cap <= 127 else np.int16),
            round3_turn=np.full(size, -1, dtype=np.int32),
            unawarded=np.zeros(size, dtype=np.int16),
            phase=np.zeros(size, dtype=np.int8),
            play_species=np.full(size, -1, dtype=np.int16),
            play_space=np.full(size, -1, dtype=np.int8),
            owed=np.zeros(size, dtype=np.int16),
            picks_left=np.zeros(size, dtype=np.int16),
            queue_species=queue,
            queue_space=queue.astype(np.int8),
            queue_len=np.zeros(size, dtype=np.int8),
            queue_pos=np.zeros(size, dtype=np.int8),
            stats=np.zeros((size, players, len(SEAT_COLUMNS)), dtype=np.int32),
        )

    # --- reading a region -------------------------------------------------------------

    def canopy(self, stack: np.ndarray, stack_size: np.ndarray) -> np.ndarray:
        """The top plant of each space (-1 if empty), for stacks ``[..., 6, D]`` and sizes ``[..., 6]``."""
        top = np.maximum(stack_size.astype(np.int64) - 1, 0)[..., None]
        return np.where(stack_size > 0, np.take_along_axis(stack, top, axis=-1)[..., 0], -1)

    def trait_counts(self, stack: np.ndarray) -> np.ndarray:
        """Plants with each trait ``[..., T]`` of regions ``[..., 6, D]``."""
        return self.has_trait[stack].sum(axis=(-3, -2), dtype=np.int64)

    def hand_limits(self, canopy: np.ndarray) -> np.ndarray:
        return self.config.hand_limit + np.take(self.hand_limit_raise, canopy) @ self.ones_spaces

    # --- legal actions ----------------------------------------------------------------

    def play_discounts(self, state: ReforestState, rows: np.ndarray, me: np.ndarray) -> np.ndarray:
        """float64 ``[R, k]``: what the discounts of seat ``me`` in games ``rows`` depend on.

        Its canopy plants of each species with a passive discount, then its plants with each
        trait a when-played discount counts; the base cost of each species (printed cost minus
        passive and when-played discounts) is ``self.base_cost - discounts @ self.discount_matrix``.
        """
        canopy = seat_rows(state.canopy, rows, me)
        traits = seat_rows(state.traits, rows, me)
        columns = [(canopy == p).astype(np.float64) @ self.ones_spaces_f for p in self.passive_species]
        columns += [traits[:, t].astype(np.float64) for t in self.when_traits]
        return np.stack(columns, axis=1) if columns else np.zeros((rows.size, 0))

    def play_cost(self, state: ReforestState, rows: np.ndarray, me: np.ndarray, species: np.ndarray,
                  space: np.ndarray) -> np.ndarray:
        """int64 ``[R]``: the effective cost ``max(0, base - the canopy plant's cost)`` of playing (species, space)."""
        discounts = self.play_discounts(state, rows, me)
        base = self.base_cost[species] - (discounts * self.discount_matrix.T[species]).sum(axis=1)
        succession = self.cost[state.canopy[rows, me, space]]
        return np.maximum(base - succession, 0).astype(np.int64)

    def play_legal_by_space(self, state: ReforestState, rows: np.ndarray, me: np.ndarray) -> np.ndarray:
        """bool ``[6, R, S]``: the legal plays (space, game, species) of seat ``me`` in games ``rows``.

        A play needs the card in hand, a place (an empty space a plant may grow on, or
        covering a strictly shorter plant; the species' allowed spaces) and a budget:
        ``max(0, base - succession) <= budget`` with ``succession`` the canopy plant's cost
        and ``budget`` the cards in hand - 1 + the energy of the payment spaces (never below
        zero when a card is held, so ``base <= budget + succession`` says the same).
        """
        canopy = state.canopy[rows, me]
        occupied = canopy >= 0
        next_to_plant = (occupied.astype(np.float64) @ self.adjacent) > 0
        region_empty = ~occupied.any(axis=1)
        grow = np.where(region_empty[:, None], self.low_row[None], ~occupied & next_to_plant)
        where = np.where(grow, self.grow_space, np.where(occupied, canopy, self.empty_space))
        legal = np.take(self.place_rows, self.place_row_of_space + where.T, axis=0)  # [6, R, S]
        hand = state.hand[rows, me]
        legal &= (hand > 0)[None]
        budget = ((hand.astype(np.float64) @ self.ones_species - 1)[:, None]
                  + state.stored[rows, me].astype(np.float64) @ self.payment_f + self.cost[canopy])
        base = self.base_cost - self.play_discounts(state, rows, me) @ self.discount_matrix
        # small integers, compared as int16 (clipped: the order is kept, and no cost comes near the bounds)
        small = lambda values: np.minimum(np.maximum(values, -30_000), 30_000).astype(np.int16)  # noqa: E731
        legal &= small(base)[None, :, :] <= small(budget).T[:, :, None]
        return legal

    def _held_plays(self, state: ReforestState, rows: np.ndarray, me: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The legal plays of :meth:`play_legal_by_space` for the species held only (a few of the species).

        ``game, species, legal``: one entry per (game, species held) of ``rows``, by game then
        species (``game`` indexes ``rows``), and bool ``legal [n, 6]`` per space, so the flat
        ``legal`` runs through the plays in ascending action order.
        """
        s = self.config.num_species
        canopy = seat_rows(state.canopy, rows, me)
        occupied = canopy >= 0
        neighbours = occupied.astype(np.float64) @ self.adjacent_and_all  # [R, 6 + 1]: plants next to, in all
        grow = (~occupied & (neighbours[:, :SPACES] > 0)) | ((neighbours[:, SPACES] == 0)[:, None] & self.low_row)
        where = np.where(grow, self.grow_space, np.where(occupied, canopy, self.empty_space))
        place_row = self.place_row_of_space[:, 0] * s + where * s  # [R, 6]
        hand = seat_rows(state.hand, rows, me)
        held = np.flatnonzero(hand > 0)
        game, species = np.divmod(held, s)
        budget = ((hand.astype(np.float64) @ self.ones_species - 1)[:, None]
                  + seat_rows(state.stored, rows, me).astype(np.float64) @ self.payment_f + self.cost[canopy])
        base = self.base_cost - self.play_discounts(state, rows, me) @ self.discount_matrix
        legal = np.take(self.place_flat, np.take(place_row, game, axis=0) + species[:, None])
        legal &= np.take(base, held)[:, None] <= np.take(budget, game, axis=0)
        return game, species, legal

    def play_legal(self, state: ReforestState, rows: np.ndarray, me: np.ndarray) -> np.ndarray:
        """bool ``[R, S, 6]``: the legal plays (species, space) of seat ``me`` in games ``rows``."""
        return self.play_legal_by_space(state, rows, me).transpose(1, 2, 0)

    def running_totals(self, counts: np.ndarray) -> np.ndarray:
        """float64 ``[R, w]``: ``counts[:, :j + 1].sum(axis=1)`` for each column ``j`` (one matmul; cumsum is slow
        along short rows)."""
        width = counts.shape[1]
        if width not in self._upper:
            self._upper[width] = np.triu(np.ones((width, width)))
        return counts.astype(np.float64) @ self._upper[width]

    def legal_mask(self, state: ReforestState) -> np.ndarray:
        return self.legal_mask_rows(state, np.arange(state.size))

    def legal_pairs(self, state: ReforestState, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Flat ``(game, action)`` arrays of every legal action of games ``rows``, by game, actions ascending."""
        rr, actions = np.nonzero(self.legal_mask_rows(state, rows))
        return rows[rr], actions

    def choose_legal(self, state: ReforestState, rows: np.ndarray, u: np.ndarray | None = None) -> np.ndarray:
        """int64 ``[R]``: legal action number ``min(floor(u * n), n - 1)`` of each game of ``rows``.

        ``n`` counts the game's legal actions, in ascending order; ``u`` is one uniform per
        game (None: the lowest legal action); -1 for a game without any. The same choice as
        :func:`sims.core.choice.choose_uniform` on :meth:`legal_mask_rows`, read per phase
        from the few actions the phase allows instead of the whole mask.
        """
        offsets = self.config.offsets
        chosen = np.full(rows.size, -1, dtype=np.int64)
        phase = np.where(state.done[rows], -1, state.phase[rows])

        def kth(at, count):
            if u is None:
                return np.zeros(at.size, dtype=np.int64)
            return np.minimum((u[at] * count).astype(np.int64), np.maximum(count - 1, 0))

        def pick(at, mask, first):
            """Actions ``first + i`` for the legal columns ``i`` of ``mask`` [r, w]."""
            count, running = row_counts(mask)
            k = kth(at, count)
            column, _ = kth_unit(running, count, k, mask.shape[1])
            chosen[at] = np.where(count > k, first + column, -1)

        at = np.nonzero(phase == MAIN)[0]
        if at.size and u is None:
            chosen[at] = offsets["gather"]
        elif at.size:  # gather, then the plays (species, space) in ascending order
            g = rows[at]
            game, species, legal = self._held_plays(state, g, state.to_move[g].astype(np.int64))
            plays = np.bincount(game, weights=legal.sum(axis=1), minlength=at.size).astype(np.int64)
            k = kth(at, 1 + plays) - 1
            if legal.size:
                running = np.cumsum(legal.reshape(-1), dtype=np.int64)
                target = np.cumsum(plays) - plays + np.maximum(k, 0) + 1  # the play's number over all games, from 1
                unit = np.minimum(np.searchsorted(running, target, side="left"), running.size - 1)
                play = offsets["play"] + species[unit // SPACES] * SPACES + unit % SPACES
            else:
                play = np.zeros(at.size, dtype=np.int64)
            chosen[at] = np.where(k < 0, offsets["gather"], play)
        at = np.nonzero(phase == PAY)[0]
        if at.size:  # pay_hand (species), then pay_energy (spaces): one run of action numbers
            g = rows[at]
            me = state.to_move[g].astype(np.int64)
            energy = (seat_rows(state.stored, g, me) > 0) & (self.payment[state.play_space[g].astype(np.int64)] > 0)
            pick(at, np.concatenate([seat_rows(state.hand, g, me) > 0, energy], axis=1), offsets["pay_hand"])
        at = np.nonzero((phase == GATHER) | (phase == DRAW) | (phase == SOLO_DISCARD))[0]
        if at.size:  # the nursery slots and the deck, then stop (gathers only): one run of action numbers
            g = rows[at]
            sources = np.concatenate([state.nursery[g] >= 0, (state.deck_end[g] > state.deck_top[g])[:, None]],
                                     axis=1)
            mask = np.concatenate([sources, (phase[at] == GATHER)[:, None]
                                   & self._may_stop(state, g, sources)[:, None]], axis=1)
            pick(at, mask, np.where(phase[at] == SOLO_DISCARD, offsets["solo_discard"], offsets["take"]))
        at = np.nonzero(phase == EFFECT)[0]
        if at.size:  # use, decline
            chosen[at] = offsets["use"] + kth(at, np.full(at.size, 2))
        at = np.nonzero(phase == HAND_LIMIT)[0]
        if at.size:
            g = rows[at]
            pick(at, seat_rows(state.hand, g, state.to_move[g].astype(np.int64)) > 0, offsets["discard"])
        return chosen

    def legal_mask_rows(self, state: ReforestState, rows: np.ndarray) -> np.ndarray:
        """bool ``[R, A]``: the legal mask of games ``rows`` only (all False for finished games)."""
        mask = np.zeros((rows.size, self.num_actions), dtype=bool)
        offsets, cfg = self.config.offsets, self.config
        s = cfg.num_species
        phase = np.where(state.done[rows], -1, state.phase[rows])
        at = np.nonzero(phase == MAIN)[0]
        if at.size:
            g = rows[at]
            mask[at, offsets["gather"]] = True
            legal = self.play_legal(state, g, state.to_move[g].astype(np.int64))
            mask[at, offsets["play"]:offsets["play"] + s * SPACES] = legal.reshape(at.size, -1)
        at = np.nonzero(phase == PAY)[0]
        if at.size:
            g = rows[at]
            me = state.to_move[g].astype(np.int64)
            mask[at, offsets["pay_hand"]:offsets["pay_hand"] + s] = state.hand[g, me] > 0
            energy = state.stored[g, me] > 0
            mask[at, offsets["pay_energy"]:offsets["pay_energy"] + SPACES] = (
                energy & (self.payment[state.play_space[g].astype(np.int64)] > 0))
        at = np.nonzero((phase == GATHER) | (phase == DRAW) | (phase == SOLO_DISCARD))[0]
        if at.size:
            g = rows[at]
            sources = np.concatenate([state.nursery[g] >= 0, (state.deck_end[g] > state.deck_top[g])[:, None]], axis=1)
            base = np.where(phase[at] == SOLO_DISCARD, offsets["solo_discard"], offsets["take"])
            rr, cc = np.nonzero(sources)
            mask[at[rr], base[rr] + cc] = True
            gathering = phase[at] == GATHER
            mask[at[gathering], offsets["stop"]] = self._may_stop(state, g[gathering], sources[gathering])
        at = np.nonzero(phase == EFFECT)[0]
        mask[at, offsets["use"]] = True
        mask[at, offsets["decline"]] = True
        at = np.nonzero(phase == HAND_LIMIT)[0]
        if at.size:
            g = rows[at]
            mask[at, offsets["discard"]:offsets["discard"] + s] = state.hand[g, state.to_move[g].astype(np.int64)] > 0
        return mask

    # --- stepping ---------------------------------------------------------------------

    def step(self, state: ReforestState, actions: np.ndarray) -> None:
        actions = np.asarray(actions, dtype=np.int64)
        rows = np.nonzero(~state.done & (actions >= 0))[0]
        state.steps += 1
        if rows.size == 0:
            return
        actions = actions[rows]
        block = self.block_of[actions]
        fields = self.field_of[actions]
        todo = np.zeros(rows.size, dtype=np.int64)
        handlers = {
            B_GATHER: self._gather, B_PLAY: self._play, B_PAY_HAND: self._pay_hand,
            B_PAY_ENERGY: self._pay_energy, B_TAKE: self._take, B_STOP: self._stop, B_USE: self._use,
            B_DECLINE: self._decline, B_DISCARD: self._discard, B_SOLO_DISCARD: self._solo_discard,
        }
        order = np.argsort(block, kind="stable")  # by block, each block's games ascending
        ends = np.cumsum(np.bincount(block, minlength=len(handlers)))
        start = 0
        for code, end in enumerate(ends.tolist()):
            if end > start:
                chosen = order[start:end]
                todo[chosen] = handlers[code](state, rows[chosen], fields[chosen])
            start = end
        self._settle(state, rows, todo)

    def _may_stop(self, state, games: np.ndarray, sources: np.ndarray) -> np.ndarray:
        """A gather may stop after its first card, or when no card can be taken."""
        return (state.picks_left[games] < self.config.gather_cards) | ~sources.any(axis=1)

    def _gather(self, state, rows, fields):
        self._stat(state, rows, "gathers")
        state.phase[rows] = GATHER
        state.picks_left[rows] = self.config.gather_cards
        return np.full(rows.size, DECIDE)

    def _play(self, state, rows, fields):
        me = state.to_move[rows].astype(np.int64)
        species, space = fields // SPACES, fields % SPACES
        cost = self.play_cost(state, rows, me, species, space)
        state.hand[rows, me, species] -= 1
        state.play_species[rows] = species
        state.play_space[rows] = space
        state.owed[rows] = cost
        self._stat(state, rows, "cards_played")
        self._stat(state, rows, "cost_paid", cost)
        self._log(state, rows, "play", species=species, space=space, amount=cost, played=species)
        paying = cost > 0
        state.phase[rows[paying]] = PAY
        return np.where(paying, DECIDE, PLACE)

    def _pay_hand(self, state, rows, species):
        me = state.to_move[rows].astype(np.int64)
        state.hand[rows, me, species] -= 1
        state.discard[rows, species] += 1
        self._stat(state, rows, "paid_from_hand")
        self._log(state, rows, "pay_hand", species=species)
        return self._paid(state, rows)

    def _pay_energy(self, state, rows, space):
        me = state.to_move[rows].astype(np.int64)
        card = np.argmax(state.energy[rows, me, space] > 0, axis=1)  # the lowest species id stored there
        state.energy[rows, me, space, card] -= 1
        state.stored[rows, me, space] -= 1
        state.discard[rows, card] += 1
        self._stat(state, rows, "paid_from_energy")
        self._log(state, rows, "pay_energy", species=card, space=space)
        return self._paid(state, rows)

    def _paid(self, state, rows):
        state.owed[rows] -= 1
        return np.where(state.owed[rows] > 0, DECIDE, PLACE)

    def _take(self, state, rows, source):
        """A gather or draw pick: a nursery slot's card or the deck's top card into the hand."""
        me = state.to_move[rows].astype(np.int64)
        drawing = state.phase[rows] == DRAW
        card = self._pick(state, rows, source)
        state.hand[rows, me, card] += 1
        self._stat(state, rows, "cards_drawn", drawing)
        self._stat(state, rows, "cards_gathered", ~drawing)
        kind = np.where(drawing, EVENT["draw"], EVENT["gather"])
        self._log(state, rows, kind, species=card, source=source, amount=1)
        self._check_round_end(state, rows[source == self.config.nursery_size])
        state.picks_left[rows] -= 1
        left = state.picks_left[rows] > 0
        todo = np.where(drawing, QUEUE, FINISH_GATHER)
        draw_more = drawing & left & self._any_card(state, rows)
        gather_more = ~drawing & left
        state.queue_pos[rows[drawing & ~draw_more]] += 1
        state.picks_left[rows[drawing & ~draw_more]] = 0
        return np.where(draw_more | gather_more, DECIDE, todo)

    def _stop(self, state, rows, fields):
        state.picks_left[rows] = 0
        return np.full(rows.size, FINISH_GATHER)

    def _solo_discard(self, state, rows, source):
        card = self._pick(state, rows, source)
        state.discard[rows, card] += 1
        self._stat(state, rows, "solo_discards")
        self._log(state, rows, "solo_discard", species=card, source=source, amount=1)
        self._check_round_end(state, rows[source == self.config.nursery_size])
        return np.full(rows.size, AFTER_GATHER)

    def _use(self, state, rows, fields):
        position = state.queue_pos[rows].astype(np.int64)
        plant = state.queue_species[rows, position].astype(np.int64)
        space = state.queue_space[rows, position].astype(np.int64)
        self._stat(state, rows, "effects_used")
        self._log(state, rows, "effect", species=plant, space=space, amount=1)
        draws = self.is_draw[plant]
        drawing = rows[draws]
        state.picks_left[drawing] = self.effect_n[plant[draws]]
        state.phase[drawing] = DRAW
        storing = ~draws
        self._store(state, rows[storing], space[storing], self.effect_n[plant[storing]])
        state.queue_pos[rows[storing]] += 1
        return np.where(draws, DECIDE, QUEUE)

    def _decline(self, state, rows, fields):
        position = state.queue_pos[rows].astype(np.int64)
        self._stat(state, rows, "effects_declined")
        self._log(state, rows, "effect", species=state.queue_species[rows, position],
                  space=state.queue_space[rows, position], amount=0)
        state.queue_pos[rows] += 1
        return np.full(rows.size, QUEUE)

    def _discard(self, state, rows, species):
        me = state.to_move[rows].astype(np.int64)
        state.hand[rows, me, species] -= 1
        state.discard[rows, species] += 1
        self._stat(state, rows, "hand_discards")
        self._log(state, rows, "discard", species=species, amount=1)
        return np.full(rows.size, END_TURN)

    # --- what follows a decision ------------------------------------------------------

    def _settle(self, state: ReforestState, rows: np.ndarray, todo: np.ndarray) -> None:
        """Run placing, effect queues, gathers' ends and turns' ends until every game waits on a decision."""
        stages = ((PLACE, self._place), (FINISH_GATHER, self._finish_gather), (AFTER_GATHER, self._after_gather),
                  (QUEUE, self._next_effect), (END_TURN, self._end_turn))
        while True:
            busy = todo != DECIDE
            if not busy.any():
                return
            rows, todo = rows[busy], todo[busy]
            for code, handler in stages:
                chosen = todo == code
                if chosen.any():
                    todo[chosen] = handler(state, rows[chosen])

    def _place(self, state, rows):
        """The plant goes on its space; the covered plant and the effect queue (covered, reactions, played)."""
        me = state.to_move[rows].astype(np.int64)
        species = state.play_species[rows].astype(np.int64)
        space = state.play_space[rows].astype(np.int64)
        seat = rows * self.players + me
        size = seat_view(state.stack_size)[seat, space].astype(np.int64)
        canopies = np.take(seat_view(state.canopy), seat, axis=0).astype(np.int64)  # before placing
        covered = canopies[np.arange(rows.size), space]
        has_cover = covered >= 0
        to_energy = has_cover & self.sun[covered]
        # a sun plant leaves the stack and becomes energy; the new plant takes its place
        level = np.where(to_energy, size - 1, size)
        lost = rows[to_energy], me[to_energy]
        state.energy[lost + (space[to_energy], covered[to_energy])] += 1
        state.stored[lost + (space[to_energy],)] += 1
        state.traits[lost] -= self.has_trait[covered[to_energy]]
        seat_view(state.stack)[seat, space, level] = species
        seat_view(state.stack_size)[seat, space] = level + 1
        seat_view(state.canopy)[seat, space] = species
        traits = seat_view(state.traits)
        traits[seat] += self.has_trait[species]
        self._stat(state, rows, "plants_covered", has_cover)
        self._stat(state, rows, "energy_from_cover", to_energy)
        hit = rows[has_cover]
        if hit.size:
            self._log(state, hit, "cover", species=covered[has_cover], space=space[has_cover],
                      amount=to_energy[has_cover].astype(np.int64))
        entries = np.full((rows.size, QUEUE_SLOTS), -1, dtype=np.int64)
        places = np.empty((rows.size, QUEUE_SLOTS), dtype=np.int64)
        entries[:, 0] = np.where(self.covered_effect[covered], covered, -1)
        places[:, 0] = space
        reacting = self.reacts[canopies, species[:, None]] & (np.arange(SPACES)[None] != space[:, None])
        entries[:, 1:1 + SPACES] = np.where(reacting, canopies, -1)
        places[:, 1:1 + SPACES] = np.arange(SPACES)
        entries[:, -1] = np.where(self.played_effect[species], species, -1)
        places[:, -1] = space
        self._set_queue(state, rows, entries, places)
        state.play_species[rows] = -1
        state.play_space[rows] = -1
        state.phase[rows] = MAIN
        return np.full(rows.size, QUEUE)

    def _set_queue(self, state, rows, entries, places):
        # the entries first, in order, then the empty slots (a stable partition)
        queued = entries >= 0
        before = self.running_totals(queued).astype(np.int64)
        count = before[:, -1:]
        slot = np.where(queued, before - 1, count + np.arange(QUEUE_SLOTS) - before)
        slot += np.arange(rows.size)[:, None] * QUEUE_SLOTS
        species = np.empty(entries.size, dtype=np.int16)
        species[slot.reshape(-1)] = entries.reshape(-1)
        space = np.empty(places.size, dtype=np.int8)
        space[slot.reshape(-1)] = places.reshape(-1)
        species, space = species.reshape(entries.shape), space.reshape(places.shape)
        state.queue_species[rows] = species
        state.queue_space[rows] = space
        state.queue_len[rows] = count[:, 0]
        state.queue_pos[rows] = 0

    def _finish_gather(self, state, rows):
        if not self.solo:
            return np.full(rows.size, AFTER_GATHER)
        discarding = self._any_card(state, rows)
        state.phase[rows[discarding]] = SOLO_DISCARD
        return np.where(discarding, DECIDE, AFTER_GATHER)

    def _after_gather(self, state, rows):
        me = state.to_move[rows].astype(np.int64)
        canopies = seat_rows(state.canopy, rows, me).astype(np.int64)
        entries = np.full((rows.size, QUEUE_SLOTS), -1, dtype=np.int64)
        places = np.zeros((rows.size, QUEUE_SLOTS), dtype=np.int64)
        entries[:, :SPACES] = np.where(self.after_gather[canopies], canopies, -1)
        places[:, :SPACES] = np.arange(SPACES)
        self._set_queue(state, rows, entries, places)
        state.picks_left[rows] = 0
        state.phase[rows] = MAIN
        return np.full(rows.size, QUEUE)

    def _next_effect(self, state, rows):
        """Offer the next queued effect that can act; skip those that cannot; end the turn after the last."""
        position = state.queue_pos[rows].astype(np.int64)
        pending = position < state.queue_len[rows]
        plant = state.queue_species[rows, np.minimum(position, QUEUE_SLOTS - 1)].astype(np.int64)
        deck = state.deck_end[rows] > state.deck_top[rows]
        can_act = pending & np.where(self.is_draw[plant], deck | (state.nursery[rows] >= 0).any(axis=1), deck)
        state.phase[rows[can_act]] = EFFECT
        state.phase[rows[~can_act]] = MAIN
        skipped = pending & ~can_act
        state.queue_pos[rows[skipped]] += 1
        return np.where(can_act, DECIDE, np.where(skipped, QUEUE, END_TURN))

    def _end_turn(self, state, rows):
        """Hand-limit discards, then the refill, the turn count, the game-end check and the next seat."""
        me = state.to_move[rows].astype(np.int64)
        canopies = seat_rows(state.canopy, rows, me)
        over = seat_rows(state.hand, rows, me).astype(np.float64) @ self.ones_species > self.hand_limits(canopies)
        state.phase[rows[over]] = HAND_LIMIT
        state.queue_len[rows] = 0
        state.queue_pos[rows] = 0
        ending = rows[~over]
        if ending.size:
            self._refill(state, ending)
            state.turn[ending] += 1
            if self.solo:
                finished = (state.rounds_ended[ending] == ROUNDS) & (state.turn[ending] >= state.round3_turn[ending] + 2)
            else:
                finished = (state.rounds_ended[ending] == ROUNDS) & ((state.to_move[ending] + 1) % self.players == 0)
            state.done[ending[finished]] = True
            state.end[ending[finished]] = COMPLETE
            state.to_move[ending] = (state.to_move[ending] + 1) % self.players
            state.phase[ending] = MAIN
        return np.full(rows.size, DECIDE)

    def _refill(self, state, rows):
        """Each empty nursery slot, ascending, takes the deck's top card while the deck holds cards.

        All slots at once: if the deck runs out, the slots after the one that took its last card
        stay empty for the round end, whose own refill fills every slot (or the deck is empty).
        """
        empty = state.nursery[rows] < 0
        if not empty.any():
            return
        top = state.deck_top[rows].astype(np.int64)
        left = state.deck_end[rows] - top
        order = self.running_totals(empty).astype(np.int64)  # 1 for the first empty slot, ...
        taking = empty & (order <= left[:, None])
        taken = (taking @ self.ones_nursery).astype(np.int64)
        card_index = np.minimum(top[:, None] + order - 1, self.cap - 1)
        cards = np.take(state.deck.reshape(-1), (rows * self.cap)[:, None] + card_index)
        state.nursery[rows] = np.where(taking, cards, state.nursery[rows])
        state.deck_top[rows] += taken.astype(np.int32)
        self._check_round_end(state, rows[(taken > 0) & (taken == left)])

    # --- cards ------------------------------------------------------------------------

    def _any_card(self, state, rows):
        return (state.deck_end[rows] > state.deck_top[rows]) | (state.nursery[rows] >= 0).any(axis=1)

    def _take_top(self, state, rows):
        """The deck's top card of games ``rows`` (each must hold one); the caller checks the round end."""
        card = state.deck[rows, state.deck_top[rows]].astype(np.int64)
        state.deck_top[rows] += 1
        return card

    def _pick(self, state, rows, source):
        """Take the card of each game's source: a nursery slot (emptied) or the deck's top."""
        card = np.empty(rows.size, dtype=np.int64)
        from_deck = source == self.config.nursery_size
        card[from_deck] = self._take_top(state, rows[from_deck])
        slot_rows, slots = rows[~from_deck], source[~from_deck]
        card[~from_deck] = state.nursery[slot_rows, slots]
        state.nursery[slot_rows, slots] = -1
        return card

    def _store(self, state, rows, space, amount):
        """``amount`` times, the deck's top card goes as energy under ``space`` (stops if the deck is empty)."""
        me = state.to_move[rows].astype(np.int64)
        for index in range(int(amount.max(initial=0))):
            going = (amount > index) & (state.deck_end[rows] > state.deck_top[rows])
            if not going.any():
                break
            r, m, x = rows[going], me[going], space[going]
            card = self._take_top(state, r)
            state.energy[r, m, x, card] += 1
            state.stored[r, m, x] += 1
            self._stat(state, r, "cards_stored")
            self._log(state, r, "store", species=card, space=x, amount=1)
            self._check_round_end(state, r)

    # --- rounds -----------------------------------------------------------------------

    def _check_round_end(self, state: ReforestState, rows: np.ndarray) -> None:
        """End the round of every game in ``rows`` whose deck is empty while fewer than 3 rounds ended."""
        while rows.size:
            rows = rows[(state.deck_end[rows] <= state.deck_top[rows]) & (state.rounds_ended[rows] < ROUNDS)]
            if rows.size == 0:
                return
            self._award(state, rows)
            state.rounds_ended[rows] += 1
            third = rows[state.rounds_ended[rows] == ROUNDS]
            state.round3_turn[third] = state.turn[third]
            self._log(state, rows, "round_end", amount=state.rounds_ended[rows].astype(np.int64))
            self._reset_deck(state, rows)
            self._refill(state, rows)  # a cascade ends the next round inside, as the rules say

    def _award(self, state, rows):
        """The carried visitors in order, then this round's: won by the single greatest measure (or earned).

        Every candidate at once: the measures do not change while the visitors are awarded.
        """
        size = rows.size
        index = np.arange(size)
        round_index = state.rounds_ended[rows].astype(np.int64)
        carried = state.carried[rows].astype(np.int64)
        count = (carried >= 0).sum(axis=1)
        width = int(count.max()) + 1
        candidates = np.full((size, width), -1, dtype=np.int64)  # [R, K]: the carried ones, then this round's
        candidates[:, :width - 1] = carried[:, :width - 1]
        candidates[index, count] = state.round_visitors[rows, round_index]
        live = candidates >= 0
        visitor = np.maximum(candidates, 0)
        value = self.measures(state, rows, solo=self.solo)[index[:, None], :, visitor]  # [R, K, P]
        if self.solo:
            threshold = self.solo_thresholds[visitor, round_index[:, None]]
            winner = np.where(value[..., 0] >= threshold, 0, -1)
            tie = np.zeros(winner.shape, dtype=bool)
        else:
            leaders = value == value.max(axis=2, keepdims=True)
            single = leaders.sum(axis=2) == 1
            winner = np.where(single, np.argmax(leaders, axis=2), -1)
            tie = ~single
        wins = live & (winner >= 0)
        won = wins[..., None] & (winner[..., None] == np.arange(self.players))  # [R, K, P]
        earlier = np.cumsum(won, axis=1) - won  # the seat's wins among the earlier candidates
        r, k = np.nonzero(wins)
        seat = winner[r, k]
        slot = state.won_count[rows[r], seat] + earlier[r, k, seat]
        state.won[rows[r], seat, slot] = candidates[r, k]
        won_now = won.sum(axis=1)  # [R, P]
        state.won_count[rows] += won_now.astype(np.int8)
        state.stats[rows, :, STAT["visitors_won"]] += won_now.astype(np.int32)
        carry = live & tie & ~(round_index == ROUNDS - 1)[:, None]
        r, k = np.nonzero(carry)
        new_carried = np.full(carried.shape, -1, dtype=np.int64)
        new_carried[r, (np.cumsum(carry, axis=1) - 1)[r, k]] = candidates[r, k]
        state.carried[rows] = new_carried
        state.unawarded[rows] += (live & ~wins & ~carry).sum(axis=1).astype(np.int16)
        if state.logging:
            r, k = np.nonzero(live)
            outcome = np.where(wins, 1, np.where(carry, 0, -1))
            self._log(state, rows[r], "visitor", seat=winner[r, k], amount=outcome[r, k], visitor=candidates[r, k])

    def _reset_deck(self, state, rows):
        """Discard pile, nursery and the ended round's tucked cards, sorted, then shuffled into the deck."""
        cap, s, size = self.cap, self.config.num_species, rows.size
        nursery = state.nursery[rows].astype(np.int64)
        cells = (np.arange(size)[:, None] * s + nursery)[nursery >= 0]
        pool = state.discard[rows] + np.bincount(cells, minlength=size * s).reshape(size, s)
        ended = state.rounds_ended[rows].astype(np.int64)  # already counts the round just ended
        tucked = ended <= 2
        pool[tucked] += state.tucked[rows[tucked], ended[tucked] - 1]
        state.tucked[rows[tucked], ended[tucked] - 1] = 0
        # the pool's cards sorted by species, then shuffled: the order of a reset is the argsort of
        # random_bits(seed, "deck", reset, C); its positions beyond the pool's size drop out
        running = np.cumsum(pool.reshape(-1))
        total = running[s - 1::s].copy()
        total[1:] -= running[s - 1:-1:s]
        before = running[s - 1::s] - total  # cards in the pools of the earlier rows
        state.resets[rows] += 1
        order = state.reset_order[rows, state.resets[rows].astype(np.int64) - 1].astype(np.int64)
        kept = np.flatnonzero(order < total[:, None])  # flat [R, C] indices, by row then shuffle order
        row = kept // cap
        position = np.take(order, kept)  # the card's position in the sorted pool
        species = np.searchsorted(running, before[row] + position + 1, side="left") - row * s
        deck = np.full((size, cap), -1, dtype=np.int16)
        deck.reshape(-1)[row * cap + np.arange(kept.size) - before[row]] = species
        state.deck[rows] = deck
        state.deck_top[rows] = 0
        state.deck_end[rows] = total
        state.discard[rows] = 0
        state.nursery[rows] = -1

    # --- measures and scores ------------------------------------------------------------

    def measures(self, state: ReforestState, rows: np.ndarray | None = None, solo: bool = False) -> np.ndarray:
        """float64 ``[n, P, V]``: each visitor's goal measure (or solitaire goal) of each region."""
        pick = (lambda a: a) if rows is None else (lambda a: a[rows])  # noqa: E731
        per_space = pick(state.stack_size).astype(np.float64)
        canopy = pick(state.canopy)
        # stacks grow strictly taller, so a region's tallest plant is one of its canopy plants
        features = np.concatenate([
            per_space.sum(axis=-1, keepdims=True),
            pick(state.traits),
            per_space @ self.row_matrix,
            pick(state.stored).sum(axis=-1, keepdims=True),
            np.maximum(self.height[canopy].max(axis=-1, keepdims=True), 0.0),
        ], axis=-1, dtype=np.float64)
        return features[..., self.measure_columns[solo]]

    def score_parts(self, state: ReforestState) -> dict[str, np.ndarray]:
        """The six ``points_*`` columns, int64 ``[B, P]``, on the position as it is."""
        cfg = self.config
        stack, size = state.stack, state.stack_size
        plants = stack >= 0
        canopy = state.canopy.astype(np.int64)
        traits = state.traits.astype(np.int64)  # [B, P, T]
        energy_total = state.stored.sum(axis=2, dtype=np.int64)
        kind, n = self.kind[canopy], self.effect_n[canopy]
        per_trait = np.take_along_axis(traits, self.effect_trait[canopy], axis=2)
        sizes = size.astype(np.int64)
        in_row = self.row_of_space[None, :] == self.effect_row[canopy][..., None]  # [B, P, 6 canopy, 6]
        tall_enough = sizes[:, :, None, :] >= self.effect_k[canopy][..., None]
        row_stacks = (in_row & tall_enough).sum(axis=3)
        effects = np.where(kind == KIND["scoring_per_trait"], n * per_trait, 0)
        effects += np.where(kind == KIND["scoring_per_energy"], n * energy_total[..., None], 0)
        effects += np.where(kind == KIND["scoring_per_row_stack"], n * row_stacks, 0)
        won = state.won.astype(np.int64)
        visitors = np.where(won >= 0, self.visitor_points[np.maximum(won, 0)], 0).sum(axis=2)
        smallest = np.stack([sizes[..., list(spaces)].min(axis=-1) for spaces in ROW_SPACES], axis=-1)
        return {
            "points_plants": np.where(plants, self.value[stack], 0).sum(axis=(2, 3)),
            "points_effects": effects.sum(axis=2),
            "points_energy": cfg.energy_points * energy_total,
            "points_visitors": visitors,
            "points_elevation": cfg.elevation_per_plant * smallest.sum(axis=2),
            "points_hand": state.hand.sum(axis=2, dtype=np.int64) // cfg.hand_cards_per_point,
        }

    def solo_target(self, state: ReforestState) -> np.ndarray:
        cfg = self.config
        target = (state.kept.astype(np.int64) * self.value[:-1]).sum(axis=1)
        if cfg.difficulty == "hard":
            won = state.won[:, 0].astype(np.int64)
            for r in range(ROUNDS):
                visitor = state.round_visitors[:, r].astype(np.int64)
                earned = (won == visitor[:, None]).any(axis=1)
                target += np.where(earned, 0, self.visitor_points[visitor])
        return target

    # --- outcome ------------------------------------------------------------------------

    def results(self, state: ReforestState) -> GameResults:
        parts = self.score_parts(state)
        score = sum(parts.values())
        complete = state.end == COMPLETE
        if self.solo:
            target = self.solo_target(state)
            rank = np.where(score[:, 0] > target, 1, 2)[:, None]
            solo_target = target
        else:
            rank = 1 + (score[:, None, :] > score[:, :, None]).sum(axis=2)
            solo_target = np.zeros(state.size, dtype=np.int64)
        rank = np.where(complete[:, None], rank, 0).astype(np.int8)
        columns = dict(parts)
        for name in SEAT_COLUMNS:
            if name in STAT:
                columns.setdefault(name, state.stats[:, :, STAT[name]].astype(np.int64))
        columns["plants"] = (state.stack >= 0).sum(axis=(2, 3)).astype(np.int64)
        columns["energy"] = state.energy.sum(axis=(2, 3), dtype=np.int64)
        columns["hand"] = state.hand.sum(axis=2, dtype=np.int64)
        seat_columns = {name: columns[name] for name in SEAT_COLUMNS}
        game_columns = {
            "rounds_ended": state.rounds_ended.astype(np.int64),
            "deck_resets": state.resets.astype(np.int64),
            "visitors_unawarded": state.unawarded.astype(np.int64),
            "solo_target": solo_target.astype(np.int64),
        }
        assert tuple(game_columns) == GAME_COLUMNS
        return GameResults(score=score.astype(np.float64), rank=rank, end=state.end.copy(),
                           turns=state.turn.copy(), seat_columns=seat_columns, game_columns=game_columns)

    def invariants(self, state: ReforestState) -> dict[str, np.ndarray]:
        s = self.config.num_species
        species = np.arange(s)
        position = np.arange(self.cap)
        in_deck = (position[None, :] >= state.deck_top[:, None]) & (position[None, :] < state.deck_end[:, None])
        deck = ((state.deck[:, :, None] == species) & in_deck[:, :, None]).sum(axis=1)
        nursery = (state.nursery[:, :, None] == species).sum(axis=1)
        region = (state.stack[..., None] == species).sum(axis=(1, 2, 3))
        in_play = (state.play_species[:, None] == species)
        held = (state.hand.sum(axis=1) + region + state.energy.sum(axis=(1, 2)) + deck + nursery
                + state.discard + state.tucked.sum(axis=1) + in_play)
        heights = self.height[state.stack]
        rising = ((heights[..., 1:] > heights[..., :-1]) | (state.stack[..., 1:] < 0)).all(axis=(1, 2, 3))
        sizes_ok = ((state.stack >= 0).sum(axis=3) == state.stack_size).all(axis=(1, 2))
        kept_ok = ((self.canopy(state.stack, state.stack_size) == state.canopy).all(axis=(1, 2))
                   & (self.trait_counts(state.stack) == state.traits).all(axis=(1, 2))
                   & (state.energy.sum(axis=3) == state.stored).all(axis=(1, 2)))
        decks = (state.deck_end > state.deck_top) | (state.rounds_ended >= ROUNDS) | state.done
        placed = (state.won >= 0).sum(axis=(1, 2)) + (state.carried >= 0).sum(axis=1) + state.unawarded
        upcoming = ROUNDS - state.rounds_ended
        return {
            "cards conserved, species by species": (held == state.kept).all(axis=1),
            "no pile below zero": ((state.hand >= 0).all(axis=(1, 2)) & (state.energy >= 0).all(axis=(1, 2, 3))
                                   & (state.discard >= 0).all(axis=1)),
            "plants strictly taller up each stack": rising & sizes_ok,
            "the deck holds a card before round 3 ends": decks,
            "canopy, trait counts and energy counts agree with the stacks": kept_ok,
            "every round-end visitor is won, carried, dropped or to come": placed + upcoming == ROUNDS,
        }

    # --- records ------------------------------------------------------------------------

    def _stat(self, state, rows, name, amount=1, seat=None):
        seat = state.to_move[rows] if seat is None else seat
        _, players, columns = state.stats.shape
        index = (rows * players + seat) * columns + STAT[name]
        if not state.stats.flags.c_contiguous:
            state.stats = np.ascontiguousarray(state.stats)
        flat = state.stats.reshape(-1)  # a view: rows never repeat in one call, so a plain add counts each once
        flat[index] += amount

    def _log(self, state, rows, kind, seat=None, species=-1, space=-1, source=-1, amount=0, visitor=-1,
             played=-1):
        """One event per game of ``rows``; each field one value or one per game (expanded in :meth:`events`)."""
        if not state.logging or rows.size == 0:
            return
        fixed = lambda value: value.astype(np.int64) if isinstance(value, np.ndarray) else value  # noqa: E731
        state.event_log.append((
            rows.astype(np.int64),
            state.decisions[rows],
            state.turn[rows],
            fixed(state.to_move[rows] if seat is None else seat),
            EVENT[kind] if isinstance(kind, str) else fixed(kind),
            fixed(species), fixed(played), fixed(space), fixed(source), fixed(amount), fixed(visitor),
        ))

    def events(self, state: ReforestState, trace: Trace) -> dict[str, np.ndarray] | None:
        if not state.event_log:
            return None
        keys = ("game", "decision", "turn", "seat", "event", "species", "played", "space", "source", "amount",
                "visitor")
        sizes = [entry[0].size for entry in state.event_log]
        columns = {}
        for index, key in enumerate(keys):
            dtype = np.int32 if key in ("decision", "turn") else np.int64
            columns[key] = np.concatenate([np.broadcast_to(np.asarray(entry[index], dtype=dtype), (n,))
                                           for entry, n in zip(state.event_log, sizes)])
        order = np.argsort(columns["game"], kind="stable")  # within a game, the order they happened
        columns = {key: value[order] for key, value in columns.items()}
        species = np.array(self.config.species_names + ("",), dtype=object)
        visitors = np.array(self.config.visitor_names + ("",), dtype=object)
        kinds = np.array(EVENT_KINDS, dtype=object)
        return {
            "game": columns["game"],
            "decision": columns["decision"],
            "turn": columns["turn"],
            "seat": columns["seat"].astype(np.int8),
            "event": kinds[columns["event"]],
            "species": species[columns["species"]],
            "played": species[columns["played"]],
            "space": columns["space"].astype(np.int8),
            "source": columns["source"].astype(np.int8),
            "amount": columns["amount"].astype(np.int16),
            "visitor": visitors[columns["visitor"]],
        }

    def snapshot(self, state: ReforestState, game: int) -> dict[str, Any]:
        g = game
        players = self.players
        stack = state.stack[g]
        won = state.won[g]
        return {
            "hands": [[int(c) for c in state.hand[g, p]] for p in range(players)],
            "regions": [[[int(c) for c in stack[p, x] if c >= 0] for x in range(SPACES)] for p in range(players)],
            "energy": [[[int(c) for c in state.energy[g, p, x]] for x in range(SPACES)] for p in range(players)],
            "visitors_won": [[int(v) for v in won[p] if v >= 0] for p in range(players)],
            "round_visitors": [int(v) for v in state.round_visitors[g]],
            "carried": [int(v) for v in state.carried[g] if v >= 0],
            "nursery": [int(c) for c in state.nursery[g]],
            "deck": [int(c) for c in state.deck[g, int(state.deck_top[g]):int(state.deck_end[g])]],
            "discard": [int(c) for c in state.discard[g]],
            "tucked": [[int(c) for c in state.tucked[g, i]] for i in range(2)],
            "rounds_ended": int(state.rounds_ended[g]),
            "turn": int(state.turn[g]),
            "to_move": int(state.to_move[g]),
            "phase": PHASES[int(state.phase[g])],
            "end": END_REASONS[int(state.end[g])],
        }

    def describe_action(self, action: int) -> str:
        return describe_action(self.config, action)


def describe_action(config: ReforestConfig, action: int) -> str:
    """Words for an action number, e.g. ``play Douglas Fir on space 3 (middle row)``."""
    block, fields = config.decode(int(action))
    names = config.species_names
    if block == "play":
        species, space = fields
        return f"play {names[species]} on space {space} ({ROWS[SPACE_ROW[space]]} row)"
    if block in ("pay_hand", "discard"):
        return f"{block.replace('_', ' ')} {names[fields[0]]}"
    if block == "pay_energy":
        return f"pay energy from space {fields[0]}"
    if block in ("take", "solo_discard"):
        where = "the deck" if fields[0] == config.nursery_size else f"nursery slot {fields[0]}"
        return f"{block.replace('_', ' ')} from {where}"
    return block


def take_rows(state: ReforestState, rows: np.ndarray) -> ReforestState:
    """Copies of games ``rows`` for reading or branching (no log)."""
    from sims.core.engine import take_games

    branch = take_games(state, rows)
    branch.logging = False
    return branch
