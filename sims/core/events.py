"""One typed event log for the batched engines: what each game's decisions did, step by step.

A game declares its event fields once (name, dtype, the value of a game that
logged nothing, and the names of its codes), keeps an :class:`EventLog` in its
state, and at each ``step`` either takes the step's arrays from the log for
its kernel to fill, or records arrays it already has::

    FIELDS = (EventField("block", np.int8, labels=BLOCKS), EventField("collected", np.int16, empty=0))
    log = EventLog(FIELDS)
    block, collected = log.step(size)      # [size] arrays, filled with each field's empty value, kept
    log.record(block=blocks, collected=n)  # or: arrays the step computed anyway, kept as they are
    log.decisions(trace)                   # at the end: {"game", "decision", "block", "collected"}

The log keeps one row of every field per game and engine step; ``decisions``
reads the rows of the decisions taken (``trace.actions >= 0``), codes decoded
to their labels. A game whose step causes a varying number of events per game
(Reforest: a play, its payments, covers, stores, round ends) has its kernel
write whole events instead, one int64 row each, fields in order::

    rows, count = log.buffer(most)    # int64 [most, fields] and [2]: rows written, 1 on running out
    kernel(..., rows, count)          # writes rows 0 .. count[0] - 1
    log.keep(rows, count)             # kept (a copy of the written rows)
    log.rows()                        # at the end: every kept event by game, in the order kept, decoded A disabled log (bots' branches: :meth:`EventLog.disabled`,
which :meth:`sims.core.engine.BatchedEngine.branch` applies) keeps nothing and
hands out zero-length arrays, so a step that logs costs nothing where nobody
reads the log. The engine's ``events(state, trace)`` still returns the table
the runner writes (a dict of flat columns with a ``game`` index).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class EventField:
    """One logged column: name, numpy dtype, the value of a game that logged nothing at a step, and the
    names of its codes (``labels[code]``; the code ``empty`` (-1) reads as ``""``), None for a number."""

    name: str
    dtype: Any
    empty: int = -1
    labels: tuple[str, ...] | None = None

    def decode(self, values: np.ndarray) -> np.ndarray:
        """``values`` as written: labels where the field has them (-1 -> ``""``), else the numbers as logged."""
        if self.labels is None:
            return values
        return np.array(self.labels + ("",), dtype=object)[values.astype(np.int64)]  # object: ~10x faster to frame


class EventLog:
    """Per engine step, one value of every field per game (see the module docstring)."""

    __slots__ = ("fields", "enabled", "_steps", "_rows", "_none")

    def __init__(self, fields: Sequence[EventField], enabled: bool = True):
        self.fields = tuple(fields)
        self.enabled = enabled
        self._steps: list[tuple[np.ndarray, ...]] = []
        self._rows: list[np.ndarray] = []
        self._none = tuple(np.zeros(0, dtype=f.dtype) for f in self.fields)

    def __len__(self) -> int:
        """Steps logged."""
        return len(self._steps)

    def step(self, size: int) -> tuple[np.ndarray, ...]:
        """This step's arrays, one ``[size]`` array per field in field order, filled with the field's empty
        value and kept in the log (to be filled in place); a disabled log keeps nothing and gives zero-length
        arrays."""
        if not self.enabled:
            return self._none
        arrays = tuple(np.full(size, f.empty, dtype=f.dtype) for f in self.fields)
        self._steps.append(arrays)
        return arrays

    def record(self, **columns: np.ndarray) -> None:
        """Keep this step's arrays (every field, ``[size]`` each, cast to the field's dtype); nothing when
        disabled."""
        if self.enabled:
            self._steps.append(tuple(np.asarray(columns[f.name], dtype=f.dtype) for f in self.fields))

    def stacked(self, name: str) -> np.ndarray:
        """``[games, steps]``: field ``name`` at every step (the game count of the first step logged)."""
        i = [f.name for f in self.fields].index(name)
        return np.stack([arrays[i] for arrays in self._steps], axis=1)

    def decisions(self, trace: Any, index: str = "decision") -> dict[str, np.ndarray]:
        """One row per decision taken (``trace.actions >= 0``), ordered by game then step: ``game`` (int64),
        ``index`` (the step, int32), then every field, codes decoded."""
        games, steps = np.nonzero(trace.actions >= 0)
        table: dict[str, np.ndarray] = {"game": games.astype(np.int64), index: steps.astype(np.int32)}
        for i, field in enumerate(self.fields):
            column = np.stack([arrays[i] for arrays in self._steps], axis=1) if self._steps else None
            values = column[games, steps] if column is not None else np.full(games.size, field.empty, field.dtype)
            table[field.name] = field.decode(values)
        return table

    def buffer(self, rows: int) -> tuple[np.ndarray, np.ndarray]:
        """For a kernel writing whole events: int64 ``[rows, fields]`` (one row an event, fields in order) and
        int64 ``[2]`` (rows written, 1 if it ran out of rows); a disabled log gives zero rows."""
        room = rows if self.enabled else 0
        return np.empty((room, len(self.fields)), dtype=np.int64), np.zeros(2, dtype=np.int64)

    def keep(self, rows: np.ndarray, count: np.ndarray) -> None:
        """Keep the events a kernel wrote into :meth:`buffer` (``count[0]`` rows); a kernel that ran out of
        rows is an engine error."""
        if count[1]:
            raise RuntimeError(f"event buffer of {rows.shape[0]} rows overflowed")
        if count[0]:
            self._rows.append(rows[:count[0]].copy())

    def rows(self) -> dict[str, np.ndarray] | None:
        """Every kept event, ordered by the first field (the game) and within a game as kept, each field cast
        to its dtype and decoded; None if none was kept."""
        if not self._rows:
            return None
        table = np.concatenate(self._rows)
        table = table[np.argsort(table[:, 0], kind="stable")]
        return {field.name: field.decode(table[:, i].astype(field.dtype)) for i, field in enumerate(self.fields)}

    def disabled(self) -> EventLog:
        """A log of the same fields that keeps nothing (a bot's branch)."""
        return EventLog(self.fields, enabled=False)

    def emptied(self) -> EventLog:
        """A new empty log of the same fields, enabled as this one."""
        return EventLog(self.fields, enabled=self.enabled)


def event_logs(state: Any) -> list[str]:
    """The names of a batched state's :class:`EventLog` fields."""
    return [item.name for item in dataclasses.fields(state) if isinstance(getattr(state, item.name), EventLog)]


def disable_events(state: Any) -> None:
    """Replace every event log of ``state`` by a disabled one: play that nobody reads the events of (a speed
    run, a bot's branch) then logs nothing."""
    for name in event_logs(state):
        setattr(state, name, getattr(state, name).disabled())


__all__ = ["EventField", "EventLog", "disable_events", "event_logs"]
