"""What each game's records and events already say about its content and its seats, for the designer sections.

A game declares every family of its content components in its definition
(``GameDefinition.families``, :class:`sims.core.components.ComponentFamily`):
Reforest's visitors as well as its cards, Vorex's tiles and stump productions
as well as its action kinds. This module turns them into event filters and
names, per game, the events that are a seat's own move (for tempo), the column
that orders play, and the score sources its records hold (``points_*``
columns, or derived from records where the score is a plain function of them).
It reads only what the engines write: families that need events the engines do
not record yet are listed in ``missing`` and said in the report.

    >>> content_of("vorex").families[1].title
    'Tiles placed'
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field

import polars as pl

from analysis.stats import POINTS_PREFIX
from analysis.stats.common import columns_of, is_empty
from sims.core.components import ComponentFamily


@dataclass(frozen=True)
class Family:
    """One family of content components: which events use an item, and the column naming it."""

    title: str
    item: str  # the events column naming the item
    where: pl.Expr | None  # the events that are a use of an item of this family (None: rows with a named item)
    text: str  # the same in words, for the report: which columns are read
    points: str | None = None  # an events column of points the use scored, if the engine logs one
    separator: str | None = None  # the item column lists several items joined by this (each one a use)
    unit: str = "points"  # what the points column counts
    held: pl.Expr | None = None  # the events that put an item into a seat's hand (None: the game deals none)
    held_item: str | None = None  # the events column naming the held item
    held_logged: tuple[str, object] | None = None  # (column, value) a run's held events hold if it logged hands


@dataclass(frozen=True)
class GameContent:
    """A game's families, its move events and play order, its score sources, and what is not recorded."""

    families: tuple[Family, ...] = ()
    order: str | None = None  # the events column that orders play (turn or decision index)
    moves: pl.Expr | None = None  # the events that are a seat's own move (None: every event)
    moves_text: str = "every event"
    sources: Callable[[pl.DataFrame, dict], pl.DataFrame | None] | None = None  # adds points_* columns
    sources_text: str = ""
    missing: tuple[str, ...] = field(default_factory=tuple)


_OPERATORS: dict[str, Callable[[pl.Expr, object], pl.Expr]] = {
    "==": lambda column, value: column == value,
    "!=": lambda column, value: column != value,
    ">": lambda column, value: column > value,
    ">=": lambda column, value: column >= value,
    "in": lambda column, value: column.is_in(list(value)),
    "not in": lambda column, value: ~column.is_in(list(value)),
}


def _conditions(conditions: tuple) -> pl.Expr | None:
    """Conditions on events columns as one filter (every condition holds), None for none."""
    where = None
    for column, operator, value in conditions:
        condition = _OPERATORS[operator](pl.col(column), value)
        where = condition if where is None else where & condition
    return where


def as_family(declared: ComponentFamily) -> Family:
    """A game's declared family as the events filter the report runs (every condition holds)."""
    return Family(declared.title, declared.item, _conditions(declared.where), declared.text, declared.points,
                  declared.separator, declared.unit, _conditions(declared.held), declared.held_item,
                  declared.held_logged)


def declared_families(game: str | None) -> tuple[Family, ...]:
    """The families ``game``'s definition declares (none for an unknown game)."""
    from sims.registry import game_names, get_game

    if game is None or game not in game_names():
        return ()
    return tuple(as_family(f) for f in get_game(game).families)


def _overgrowth_sources(records: pl.DataFrame, config: dict) -> pl.DataFrame | None:
    """Overgrowth's score is the flowers a seat placed less the flowers it lost (rulebook scoring)."""
    if not {"flowers_placed", "flowers_lost"} <= set(records.columns):
        return None
    return records.with_columns(pl.col("flowers_placed").alias(f"{POINTS_PREFIX}flowers_placed"),
                                (-pl.col("flowers_lost")).alias(f"{POINTS_PREFIX}flowers_lost"))


def _vora_sources(records: pl.DataFrame, config: dict) -> pl.DataFrame | None:
    """Vora's score per kind from the farm counts (``farm_<kind>``) and the config's scoring table."""
    scoring = config.get("scoring") or {}
    thresholds, points = scoring.get("thresholds"), scoring.get("points")
    kinds = [k.get("name") for k in config.get("kinds") or []]
    if not thresholds or not points or not kinds or not all(f"farm_{k}" in records.columns for k in kinds):
        return None

    def kind_points(count: pl.Expr) -> pl.Expr:
        expr = pl.lit(0.0)
        for threshold, value in zip(thresholds, points):  # thresholds ascend: the last one reached wins
            expr = pl.when(count >= threshold).then(pl.lit(float(value))).otherwise(expr)
        return expr

    return records.with_columns(*[kind_points(pl.col(f"farm_{k}")).alias(f"{POINTS_PREFIX}{k}") for k in kinds])


# Per game: play order, move events, score sources, and the families (or per-item points) its engine would have
# to log before a report could show them (said in the report).
_CONTENT = {
    "overgrowth": GameContent(
        order="turn", moves_text="every event",
        sources=_overgrowth_sources,
        sources_text="records columns flowers_placed (+) and flowers_lost (-): the score is their difference",
    ),
    "vora": GameContent(
        order="decision", moves=pl.col("phase") == "main", moves_text="events with phase main",
        sources=_vora_sources,
        sources_text="records columns farm_<kind> scored by the config's [scoring] thresholds and points",
    ),
    "vorex": GameContent(
        order="turn", moves=pl.col("phase") != "setup", moves_text="events with phase other than setup",
    ),
    "reforest": GameContent(
        order="turn", moves=~pl.col("event").is_in(["round_end", "visitor", "deal"]) & (pl.col("seat") >= 0),
        moves_text="events other than round_end, visitor and deal (the starting hands)",
    ),
}


def content_of(game: str | None, events: pl.DataFrame | pl.LazyFrame | None = None,
               declared: tuple[str, tuple | None] | None = None) -> GameContent:
    """The content declarations of ``game``; for a game not listed here, its declared components
    (or none) as the one family, and ``turn`` (if the events have it) as the play order."""
    families = declared_families(game)
    if game in _CONTENT:
        return dataclasses.replace(_CONTENT[game], families=families)
    if not families and declared is not None:
        column, values = declared
        where = pl.col(column).is_in(list(values)) if values is not None else None
        families = (Family("Components", column, where, f"events column {column}"),)
    order = "turn" if events is not None and "turn" in columns_of(events) else None
    return GameContent(families=families, order=order)


def family_events(events: pl.DataFrame | pl.LazyFrame, family: Family) -> pl.DataFrame | pl.LazyFrame | None:
    """The events that use an item of ``family``, or None if the events lack its columns (lazy for a lazy
    frame: a run's events are never loaded whole)."""
    names = columns_of(events)
    needed = {family.item} | set(family.where.meta.root_names() if family.where is not None else [])
    if not needed <= set(names):
        return None
    used = events.filter(family.where) if family.where is not None else events
    if family.separator is not None:
        used = used.with_columns(pl.col(family.item).str.split(family.separator)).explode(family.item)
    if used.collect_schema()[family.item] == pl.String:
        used = used.filter(pl.col(family.item).is_not_null() & (pl.col(family.item) != ""))
    if family.points is not None and "{item}" in family.points:  # each item's points in a column of its own
        items = used.lazy().select(pl.col(family.item).unique()).collect(engine="streaming")[family.item].to_list()
        columns = {item: family.points.format(item=item) for item in items}
        per_item = [pl.when(pl.col(family.item) == item).then(pl.col(column))
                    for item, column in columns.items() if column in names]
        used = used.with_columns(pl.coalesce(per_item).alias(family.points) if per_item
                                 else pl.lit(None, dtype=pl.Int64).alias(family.points))
    return used.filter(pl.col("seat") >= 0) if "seat" in names else used


def held_events(events: pl.DataFrame | pl.LazyFrame, family: Family) -> pl.DataFrame | pl.LazyFrame | None:
    """The events that put an item of ``family`` into a seat's hand, the item named in ``family.item``; None when
    the family declares none or the events lack their columns (a run made before they were logged)."""
    if family.held is None or family.held_item is None:
        return None
    names = columns_of(events)
    needed = {family.held_item, "seat"} | set(family.held.meta.root_names())
    if not needed <= set(names):
        return None
    held = events.filter(family.held & (pl.col("seat") >= 0))
    if family.held_logged is not None:
        column, value = family.held_logged
        if column not in names or is_empty(held.filter(pl.col(column) == value)):
            return None  # a run made before every hand was logged: 'never held' would be wrong
    return held.select("game", "seat", pl.col(family.held_item).alias(family.item))


def with_sources(game: str | None, records: pl.DataFrame, config: dict) -> tuple[pl.DataFrame, str]:
    """The records with ``points_*`` columns, derived where the game declares how; and which columns say so."""
    if any(c.startswith(POINTS_PREFIX) for c in records.columns):
        return records, "records columns " + ", ".join(c for c in records.columns if c.startswith(POINTS_PREFIX))
    content = content_of(game)
    if content.sources is None:
        return records, ""
    derived = content.sources(records, config)
    if derived is None:
        return records, ""
    return derived, content.sources_text
