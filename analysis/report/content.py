"""What each game's records and events already say about its content and its seats, for the designer sections.

A game declares one component family in its definition (``GameDefinition.components``);
a designer asks about every family: Reforest's visitors as well as its cards,
Vorex's tiles and stump productions as well as its action kinds. This module
names, per game, the families its events already identify, the events that are
a seat's own move (for tempo), the column that orders play, and the score
sources its records hold (``points_*`` columns, or derived from records where
the score is a plain function of them). It reads only what the engines write:
families that need events the engines do not record yet are listed in
``missing`` and said in the report.

    >>> content_of("vorex").families[1].title
    'Tiles placed'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import polars as pl

from analysis.stats import POINTS_PREFIX


@dataclass(frozen=True)
class Family:
    """One family of content components: which events use an item, and the column naming it."""

    title: str
    item: str  # the events column naming the item
    where: pl.Expr | None  # the events that are a use of an item of this family (None: rows with a named item)
    text: str  # the same in words, for the report: which columns are read
    points: str | None = None  # an events column of points the use scored, if the engine logs one


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


TRAJECTORY = ("per-turn (or per-round) score of every seat, for lead changes, comeback rate and trajectory "
              "figures (no engine records one yet)")


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


_CONTENT = {
    "overgrowth": GameContent(
        families=(Family("Actions", "kind", pl.col("kind").is_in(["overgrow", "grow", "cast", "spread"]),
                         "events column kind (overgrow, grow, cast, spread; first placements and passes left out)"),),
        order="turn", moves_text="every event",
        sources=_overgrowth_sources,
        sources_text="records columns flowers_placed (+) and flowers_lost (-): the score is their difference",
        missing=(TRAJECTORY, "points each action brought (events hold the action, not the flowers it placed or "
                             "cost)"),
    ),
    "vora": GameContent(
        families=(
            Family("Actions and specials", "block",
                   pl.col("block").is_in(["push", "double", "devour", "wolf", "pick_up", "fly_swap", "dig", "pick",
                                          "steal"]),
                   "events column block (the game's declared design components)"),
            Family("Kinds collected", "kind", pl.col("collected") > 0,
                   "events column kind on events with collected > 0 (the kind of the pushed cube whose push "
                   "collected)"),
        ),
        order="decision", moves=pl.col("phase") == "main", moves_text="events with phase main",
        sources=_vora_sources,
        sources_text="records columns farm_<kind> scored by the config's [scoring] thresholds and points",
        missing=(TRAJECTORY, "the kinds each collection took (events hold the pushed cube's kind and the count "
                             "collected, not which kinds were collected)"),
    ),
    "vorex": GameContent(
        families=(
            Family("Action kinds", "kind",
                   pl.col("kind").is_in(["draw", "expand", "bloom", "bonus_expand", "bonus_bloom"]),
                   "events column kind (the game's declared design components)"),
            Family("Tiles placed", "tile",
                   pl.col("kind").is_in(["setup_place", "expand", "bonus_expand"]) & (pl.col("tile") != ""),
                   "events column tile on events with kind setup_place, expand or bonus_expand"),
            Family("Tiles bloomed", "tile", pl.col("kind").is_in(["bloom", "bonus_bloom"]) & (pl.col("tile") != ""),
                   "events column tile on events with kind bloom or bonus_bloom"),
            Family("Stump productions", "stump", pl.col("stump") != "",
                   "events column stump (what a stump produced), points from stump_points", points="stump_points"),
        ),
        order="turn", moves=pl.col("phase") != "setup", moves_text="events with phase other than setup",
        missing=(TRAJECTORY, "flowers' production kinds and the points a tile's flowers scored at the end "
                             "(events hold the tile placed or bloomed, not its end-of-game scoring)"),
    ),
    "reforest": GameContent(
        families=(
            Family("Cards played", "played", pl.col("event") == "play",
                   "events column played on events with event play"),
            Family("Visitors won", "visitor", (pl.col("event") == "visitor") & (pl.col("amount") == 1),
                   "events column visitor on events with event visitor and amount 1 (the seat is the winner)"),
            Family("Effects used", "species", (pl.col("event") == "effect") & (pl.col("amount") == 1),
                   "events column species on events with event effect and amount 1 (used, not declined)"),
        ),
        order="turn", moves=~pl.col("event").is_in(["round_end", "visitor"]) & (pl.col("seat") >= 0),
        moves_text="events other than round_end and visitor",
        missing=(TRAJECTORY, "points each card, visitor or effect brought (records hold points by source per seat, "
                             "events no points)"),
    ),
}


def content_of(game: str | None, events: pl.DataFrame | None = None,
               declared: tuple[str, tuple | None] | None = None) -> GameContent:
    """The content declarations of ``game``; for a game not listed here, its declared components
    (or none) as the one family, and ``turn`` (if the events have it) as the play order."""
    if game in _CONTENT:
        return _CONTENT[game]
    families: tuple[Family, ...] = ()
    if declared is not None:
        column, values = declared
        where = pl.col(column).is_in(list(values)) if values is not None else None
        families = (Family("Components", column, where, f"events column {column}"),)
    order = "turn" if events is not None and "turn" in events.columns else None
    return GameContent(families=families, order=order, missing=(TRAJECTORY,))


def family_events(events: pl.DataFrame, family: Family) -> pl.DataFrame | None:
    """The events that use an item of ``family``, or None if the events lack its columns."""
    needed = {family.item} | set(family.where.meta.root_names() if family.where is not None else [])
    if not needed <= set(events.columns):
        return None
    used = events.filter(family.where) if family.where is not None else events
    if used.schema[family.item] == pl.String:
        used = used.filter(pl.col(family.item).is_not_null() & (pl.col(family.item) != ""))
    return used.filter(pl.col("seat") >= 0) if "seat" in used.columns else used


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
