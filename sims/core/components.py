"""Families of content components a game declares, for the reports' content strength per item.

A family names the events column that names an item (a card, an action kind, a
tile) and which events are a use of one, as plain conditions on events columns,
so a game states its content without importing the analysis code::

    ComponentFamily("Cards played", "played", (("event", "==", "play"),), "events column played ...")

``analysis.report.content`` turns the conditions into event filters.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# The operators a condition may use: (column, operator, value).
OPERATORS = ("==", "!=", ">", ">=", "in", "not in")


@dataclass(frozen=True)
class ComponentFamily:
    """One family of content components: its title, the events column naming an item, the events that are a use
    of an item (every condition holds; none: every event with a named item), the same in words for the report,
    and an events column of the points a use scored, if the engine logs one. ``separator``: the item column
    lists several items an event used, joined by it (Vora's ``collected_kinds``, ``"pig,crow"``); each counts
    as a use. ``points`` may name a column per item with ``{item}`` (Vorex's ``produced_{item}``: a use of
    ``water`` reads ``produced_water``). ``unit``: what the points column counts, where it is not points.
    ``held``: the events that put an item into a seat's hidden hand (dealt, gathered, drawn: conditions as
    ``where``), its item named in the column ``held_item``; with them the family's table adds each item's win
    rate when held at any point and the improvement when drawn (17lands' GIH WR and IWD). ``held_logged``:
    ``(column, value)`` of the held events a run must hold to have logged every hand (runs made before the
    starting hands were logged lack them, and their "never held" would be wrong)."""

    title: str
    item: str
    where: tuple[tuple[str, str, Any], ...] = ()
    text: str = ""
    points: str | None = None
    separator: str | None = None
    unit: str = "points"
    held: tuple[tuple[str, str, Any], ...] = ()
    held_item: str | None = None
    held_logged: tuple[str, Any] | None = None

    def __post_init__(self) -> None:
        for column, operator, _ in self.where + self.held:
            if operator not in OPERATORS:
                raise ValueError(f"family {self.title!r}: condition on {column!r} uses {operator!r}, "
                                 f"expected one of {', '.join(OPERATORS)}")


__all__ = ["OPERATORS", "ComponentFamily"]
