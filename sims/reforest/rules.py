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

A decision, and what follows it automatically (placing, the effect queue,
draws that end a round, the end of the turn), runs in the compiled kernels of
:mod:`sims.reforest.kernels`, one game after the other, until every game
waits on a decision; this module lays out the arrays for them and reads
positions (legal masks, measures, scores, results) with numpy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from sims.core.engine import BatchedEngine, BatchedState, GameResults, Trace
from sims.core.events import EventField, EventLog
from sims.core.rng import shuffle_order
from sims.reforest import kernels
from sims.reforest.kernels import COMPLETE, DRAW, EFFECT, GATHER, HAND_LIMIT, MAIN, PAY, QUEUE_SLOTS, SOLO_DISCARD
from sims.reforest.config import (
    EFFECT_KINDS,
    END_REASONS,
    EVENT_KINDS,
    GAME_COLUMNS,
    MAX_PLAYERS,
    PHASES,
    ROUNDS,
    ROW_SPACES,
    ROWS,
    SEAT_COLUMNS,
    SPACE_ROW,
    SPACES,
    ReforestConfig,
)

def event_fields(config: ReforestConfig) -> tuple[EventField, ...]:
    """The events table's columns as the kernels write them (:data:`kernels.EVENT_FIELDS`, in that order):
    species, visitors and event kinds by name, -1 read as ``""``."""
    species, visitors = config.species_names, config.visitor_names
    fields = (EventField("game", np.int64), EventField("decision", np.int32), EventField("turn", np.int32),
              EventField("seat", np.int8), EventField("event", np.int8, labels=EVENT_KINDS),
              EventField("species", np.int16, labels=species), EventField("played", np.int16, labels=species),
              EventField("space", np.int8), EventField("source", np.int8), EventField("amount", np.int16),
              EventField("visitor", np.int8, labels=visitors), EventField("effect", np.int16, labels=species),
              EventField("points", np.int16, empty=0))
    assert tuple(f.name for f in fields) == kernels.EVENT_FIELDS
    return fields


def effect_yields(event: np.ndarray, effect: np.ndarray) -> np.ndarray:
    """int16 per row of an events table (by game, in order): on the row of an effect used, the draw and store
    rows after it that name an effect (they are its cards: an effect's draws and stores come before the next
    effect of the game), else 0."""
    fired = (event == "effect") & (effect != "")
    given = np.isin(event, ("draw", "store")) & (effect != "")
    owner = np.cumsum(fired) - 1  # the last effect used at or before each row
    counts = np.bincount(owner[given], minlength=int(fired.sum()))
    gave = np.zeros(event.size, dtype=np.int16)
    gave[fired] = counts
    return gave


def plays_at_end(table: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Where each ``play`` row's card is at the end, from an events table (by game, in order), two bool arrays
    per row: still a plant (face up; rules §5.4: a covered sun plant becomes stored energy) and in the canopy
    (the last plant played on its space). A play on an occupied space logs one ``cover`` row after it, whose
    amount (1: became energy) is about the space's play before it."""
    play, cover = table["event"] == "play", table["event"] == "cover"
    rows = np.flatnonzero(play | cover)
    space = (table["game"][rows].astype(np.int64) * MAX_PLAYERS + table["seat"][rows]) * SPACES + table["space"][rows]
    order = np.argsort(space, kind="stable")  # by game, seat and space; each space's rows in order
    rows, space = rows[order], space[order]
    is_play = play[rows]
    played = rows[is_play]
    latest = np.cumsum(is_play) - 1  # at each row, its space's latest play (index into played)
    to_energy = ~is_play & (table["amount"][rows] == 1)
    face_up, canopy = play.copy(), np.zeros(play.size, dtype=bool)
    face_up[played[latest[to_energy] - 1]] = False  # the play the latest one covered
    plays_space = space[is_play]
    canopy[played[np.r_[plays_space[1:] != plays_space[:-1], True]]] = True
    return face_up, canopy


STAT = {name: index for index, name in enumerate(SEAT_COLUMNS)}
KIND = {name: index for index, name in enumerate(EFFECT_KINDS)}


def seat_rows(array: np.ndarray, rows: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """``array[rows, seat]`` for an array ``[B, P, ...]`` (one take along a flat axis: faster than fancy indexing)."""
    flat = array.reshape((-1,) + array.shape[2:])
    return np.take(flat, rows * array.shape[1] + seat, axis=0)


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
    events: EventLog  # whole events (event_fields), in the order they happened; bots' branches keep none
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
        self.event_fields = event_fields(config)
        self._build_fast_tables()
        self.tables = self._kernel_tables()
        self.legal_buffers = kernels.legal_buffers(config.num_species)  # scratch of choose_uniform
        # events one decision can cause: its own few, the stores of one effect, three round ends
        self.events_per_step = 8 + int(self.effect_n.max()) + ROUNDS * (config.num_visitors + 2)

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
        self.ones_species = np.ones(s)
        self.ones_spaces_f = np.ones(SPACES)
        self.payment_f = self.payment.T.astype(np.float64)
        self.solo_thresholds = np.asarray(cfg.solo_thresholds)

    def _kernel_tables(self) -> kernels.Tables:
        cfg, offsets = self.config, self.config.offsets
        solo = self.solo
        measure = np.asarray(cfg.solo_measure if solo else cfg.goal_measure).astype(np.int64)
        argument = np.asarray(cfg.solo_arg if solo else cfg.goal_arg).astype(np.int64)
        contiguous = lambda table, dtype: np.ascontiguousarray(table, dtype=dtype)  # noqa: E731
        return kernels.Tables(
            players=self.players, solo=solo, gather_cards=cfg.gather_cards, hand_limit=cfg.hand_limit,
            nursery_size=cfg.nursery_size, block_of=self.block_of, field_of=self.field_of,
            off_gather=offsets["gather"], off_play=offsets["play"], off_pay_hand=offsets["pay_hand"],
            off_take=offsets["take"], off_use=offsets["use"], off_discard=offsets["discard"],
            off_solo_discard=offsets["solo_discard"],
            cost=contiguous(self.cost, np.int64), sun=self.sun, is_draw=self.is_draw, effect_n=self.effect_n,
            hand_limit_raise=contiguous(self.hand_limit_raise, np.int64),
            has_trait=contiguous(self.has_trait, np.int16), reacts=contiguous(self.reacts, np.bool_),
            covered_effect=self.covered_effect, played_effect=self.played_effect, after_gather=self.after_gather,
            base_cost=self.base_cost, discount_matrix=contiguous(self.discount_matrix.reshape(-1, cfg.num_species),
                                                                  np.float64),
            passive_species=contiguous(self.passive_species, np.int64),
            when_traits=contiguous(self.when_traits, np.int64), place_table=self.place_table,
            adjacent=contiguous(self.adjacent, np.bool_), low_row=self.low_row,
            payment=contiguous(self.payment > 0, np.bool_), height=contiguous(self.height, np.float64),
            row_of_space=self.row_of_space, measure_kind=np.where(measure >= 0, measure, 0),
            measure_arg=np.where(argument >= 0, argument, 0),
            solo_thresholds=contiguous(self.solo_thresholds, np.float64), value=self.value, kind=self.kind,
            effect_trait=self.effect_trait, effect_row=self.effect_row, effect_k=self.effect_k,
            visitor_points=self.visitor_points, energy_points=cfg.energy_points,
            elevation_per_plant=cfg.elevation_per_plant, hand_cards_per_point=cfg.hand_cards_per_point,
            row_first=np.array([spaces[0] for spaces in ROW_SPACES], dtype=np.int64),
            row_last=np.array([spaces[-1] for spaces in ROW_SPACES], dtype=np.int64))

    # --- setup ------------------------------------------------------------------------

    def init(self, seeds: np.ndarray) -> ReforestState:
        cfg, players = self.config, self.players
        seeds = np.asarray(seeds, dtype=np.uint64)
        size, s, n = len(seeds), cfg.num_species, cfg.nursery_size
        kept = np.asarray(cfg.card_species)[shuffle_order(seeds, "deck", 0, cfg.total_cards)[:, : self.cap]]
        kept = kept.astype(np.int16)
        species = np.arange(s, dtype=np.int16)
        counts = lambda cards: (cards[..., None] == species).sum(axis=-2).astype(np.int16)  # noqa: E731
        ends = np.cumsum([cfg.hand_size(p) for p in range(players)])  # seat p takes cards ends[p-1]..ends[p]-1
        hands = np.stack([counts(kept[:, ends[p] - cfg.hand_size(p):ends[p]]) for p in range(players)], axis=1)
        start = int(ends[-1])
        nursery = kept[:, start:start + n].copy()
        start += n
        tucked_n = cfg.tucked(players)
        tucked = np.stack([counts(kept[:, start + i * tucked_n:start + (i + 1) * tucked_n]) for i in range(2)], 1)
        start += 2 * tucked_n
        visitors = shuffle_order(seeds, "visitors", 0, cfg.num_visitors).astype(np.int8)
        v = cfg.num_visitors
        queue = np.full((size, QUEUE_SLOTS), -1, dtype=np.int16)
        events = EventLog(self.event_fields)
        events.keep(*self._dealt(kept[:, :int(ends[-1])]))
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
            events=events,
        )

    def _dealt(self, hands: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The ``deal`` events of the starting hands (``hands``: each game's dealt cards in deck order, seat by
        seat), one row a card, as :meth:`EventLog.keep` takes them: by game, then deck order."""
        size, dealt = hands.shape
        seat = np.repeat(np.arange(self.players), [self.config.hand_size(p) for p in range(self.players)])
        rows = np.zeros((size * dealt, len(kernels.EVENT_FIELDS)), dtype=np.int64)
        field = {name: i for i, name in enumerate(kernels.EVENT_FIELDS)}
        rows[:, field["game"]] = np.repeat(np.arange(size), dealt)
        rows[:, field["seat"]] = np.tile(seat, size)
        rows[:, field["event"]] = kernels.EV_DEAL
        rows[:, field["species"]] = hands.reshape(-1)
        for name in ("played", "space", "visitor", "effect"):
            rows[:, field[name]] = -1
        rows[:, field["source"]] = self.config.nursery_size
        rows[:, field["amount"]] = 1
        return rows, np.array([rows.shape[0], 0], dtype=np.int64)

    # --- reading a region -------------------------------------------------------------

    def canopy(self, stack: np.ndarray, stack_size: np.ndarray) -> np.ndarray:
        """The top plant of each space (-1 if empty), for stacks ``[..., 6, D]`` and sizes ``[..., 6]``."""
        top = np.maximum(stack_size.astype(np.int64) - 1, 0)[..., None]
        return np.where(stack_size > 0, np.take_along_axis(stack, top, axis=-1)[..., 0], -1)

    def trait_counts(self, stack: np.ndarray) -> np.ndarray:
        """Plants with each trait ``[..., T]`` of regions ``[..., 6, D]``."""
        return self.has_trait[stack].sum(axis=(-3, -2), dtype=np.int64)

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

    def play_legal(self, state: ReforestState, rows: np.ndarray, me: np.ndarray) -> np.ndarray:
        """bool ``[R, S, 6]``: the legal plays (species, space) of seat ``me`` in games ``rows``."""
        return self.play_legal_by_space(state, rows, me).transpose(1, 2, 0)

    def legal_mask(self, state: ReforestState) -> np.ndarray:
        return self.legal_mask_rows(state, np.arange(state.size))

    def legal_pairs(self, state: ReforestState, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Flat ``(game, action)`` arrays of every legal action of games ``rows``, by game, actions ascending."""
        rr, actions = np.nonzero(self.legal_mask_rows(state, rows))
        return rows[rr], actions

    def choose_uniform(self, state: ReforestState, rows: np.ndarray, u: np.ndarray) -> np.ndarray:
        """:meth:`BatchedEngine.choose_uniform`, compiled (:func:`kernels.choose_uniform`): each game's legal
        actions listed from the few its phase allows instead of the whole mask."""
        rows = np.asarray(rows, dtype=np.int64)
        chosen = np.empty(rows.size, dtype=np.int64)
        kernels.choose_uniform(self.arrays(state), self.tables, rows, np.ascontiguousarray(u, dtype=np.float64),
                               chosen, *self.legal_buffers)
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
        """Each game's decision and everything that follows it (:func:`sims.reforest.kernels.step`)."""
        actions = np.asarray(actions, dtype=np.int64)
        rows = np.flatnonzero(~state.done & (actions >= 0))
        state.steps += 1
        if rows.size == 0:
            return
        events, count = state.events.buffer(rows.size * self.events_per_step)
        kernels.step(self.arrays(state), self.tables, events, count, rows, actions[rows],
                     np.full(rows.size, -1, dtype=np.int64))
        state.events.keep(events, count)

    def finish_turns(self, state: ReforestState, rows: np.ndarray, start_turn: np.ndarray) -> None:
        """Play the lowest legal action in games ``rows`` until their turn ``start_turn`` is over (no log)."""
        events, count = np.zeros((0, len(kernels.EVENT_FIELDS)), dtype=np.int64), np.zeros(2, dtype=np.int64)
        kernels.finish_turns(self.arrays(state), self.tables, events, count, rows.astype(np.int64),
                             start_turn.astype(np.int64), np.empty(rows.size, dtype=np.int64))

    def arrays(self, state: ReforestState) -> kernels.Arrays:
        """The state's arrays, as the kernels take them."""
        return kernels.Arrays(*(getattr(state, name) for name in kernels.Arrays._fields))

    def _may_stop(self, state, games: np.ndarray, sources: np.ndarray) -> np.ndarray:
        """A gather may stop after its first card, or when no card can be taken."""
        return (state.picks_left[games] < self.config.gather_cards) | ~sources.any(axis=1)

    # --- measures and scores ------------------------------------------------------------

    def measures(self, state: ReforestState, rows: np.ndarray | None = None) -> np.ndarray:
        """float64 ``[n, P, V]``: each visitor's goal measure (solitaire: its solo goal) of each region."""
        rows = np.arange(state.size) if rows is None else np.asarray(rows, dtype=np.int64)
        return kernels.measures(self.arrays(state), self.tables, rows)

    def score_parts(self, state: ReforestState) -> dict[str, np.ndarray]:
        """The six ``points_*`` columns, int64 ``[B, P]``, on the position as it is."""
        parts = kernels.score_parts(self.arrays(state), self.tables)
        return {name: parts[:, :, index] for index, name in enumerate(kernels.POINTS)}

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

    def events(self, state: ReforestState, trace: Trace) -> dict[str, np.ndarray] | None:
        """Every event of the games (:func:`event_fields`), by game in the order they happened; ``gave``: on the
        row of an effect used, the cards it drew or stored (the draw and store rows it gave follow it);
        ``card_points``: on a play row, the card's own points at the end (:meth:`card_points`)."""
        table = state.events.rows()
        if table is not None:
            table["gave"] = effect_yields(table["event"], table["effect"])
            table["card_points"] = self.card_points(state, table)
        return table

    def card_points(self, state: ReforestState, table: dict[str, np.ndarray]) -> np.ndarray:
        """int16 per row of ``table`` (the events of the games of ``state``, which have ended): on a ``play`` row,
        what the played card scores at the end, its value while it is a plant (rules §9.1) and its scoring effect
        if it is in the canopy (§9.2); 0 on other rows. Summed over a seat's plays: its points_plants and
        points_effects. A canopy plant's effect points are the seat's points_effects less those with that space's
        canopy left empty (one score per space, :func:`kernels.score_parts`)."""
        face_up, canopy = plays_at_end(table)
        arrays = self.arrays(state)
        effects = kernels.POINTS.index("points_effects")
        scored = kernels.score_parts(arrays, self.tables)[:, :, effects]
        by_space = np.empty(state.canopy.shape, dtype=np.int64)
        for space in range(SPACES):
            bare = state.canopy.copy()
            bare[:, :, space] = -1
            bare_scored = kernels.score_parts(arrays._replace(canopy=bare), self.tables)[:, :, effects]
            by_space[:, :, space] = scored - bare_scored
        points = np.zeros(face_up.size, dtype=np.int64)
        names = np.array(self.config.species_names)
        order = np.argsort(names)
        rows = np.flatnonzero(face_up)
        points[rows] = self.value[order[np.searchsorted(names, table["played"][rows], sorter=order)]]
        rows = np.flatnonzero(canopy)
        points[rows] += by_space[table["game"][rows], table["seat"][rows], table["space"][rows]]
        return points.astype(np.int16)

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

    def progress(self, state: ReforestState, rows: np.ndarray) -> np.ndarray:
        """Each seat's score if the game ended now (the six ``points_*`` summed), float64 ``[len(rows), players]``."""
        return sum(self.score_parts(state).values())[rows].astype(np.float64)


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
