"""The engines' typed event log (sims/core/events.py): steps kept, decisions read, disabled logs and branches."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sims.core.engine import BatchedState, Trace, branch_games, take_games
from sims.core.events import EventField, EventLog, disable_events

FIELDS = (EventField("seat", np.int8), EventField("block", np.int8, labels=("push", "steal")),
          EventField("count", np.int16, empty=0))


def test_decisions_read_the_steps_taken_by_game_then_step_with_codes_decoded():
    log = EventLog(FIELDS)
    seat, block, count = log.step(3)  # filled in place, as a kernel does
    seat[:] = [0, 1, -1]
    block[:] = [1, 0, -1]
    count[:] = [2, 0, 0]
    log.record(seat=np.array([1, 0, 5]), block=np.array([0, -1, 1]), count=np.array([0, 7, 9]))
    trace = Trace(actions=np.array([[4, 6], [5, -1], [-1, -1]]))  # game 1 ended after a step, game 2 before
    table = log.decisions(trace)
    assert list(table) == ["game", "decision", "seat", "block", "count"]
    assert table["game"].tolist() == [0, 0, 1] and table["decision"].tolist() == [0, 1, 0]
    assert table["seat"].tolist() == [0, 1, 1] and table["seat"].dtype == np.int8
    assert table["block"].tolist() == ["steal", "push", "push"]
    assert table["count"].tolist() == [2, 0, 0] and table["count"].dtype == np.int16
    assert log.decisions(trace, index="turn")["turn"].dtype == np.int32
    assert log.stacked("count").tolist() == [[2, 0], [0, 7], [0, 9]]


def test_the_empty_code_reads_as_an_empty_label():
    assert FIELDS[1].decode(np.array([-1, 1, 0], dtype=np.int8)).tolist() == ["", "steal", "push"]


def test_a_disabled_log_keeps_nothing_and_hands_out_empty_arrays():
    log = EventLog(FIELDS).disabled()
    arrays = log.step(5)
    assert [a.size for a in arrays] == [0, 0, 0] and [a.dtype for a in arrays] == [np.int8, np.int8, np.int16]
    log.record(seat=np.zeros(5), block=np.zeros(5), count=np.zeros(5))
    assert len(log) == 0 and not log.enabled


@dataclass
class LoggedState(BatchedState):
    board: np.ndarray
    events: EventLog


def test_take_games_empties_the_log_and_branches_disable_it():
    size = 3
    state = LoggedState(np.arange(size, dtype=np.uint64), np.zeros(size, bool), np.zeros(size, np.int8),
                        np.zeros(size, np.int32), np.zeros(size, np.int8), np.zeros(size, np.int32),
                        np.arange(size) * 10, EventLog(FIELDS))
    state.events.step(size)
    taken = take_games(state, np.array([2, 2]))
    assert taken.board.tolist() == [20, 20] and len(taken.events) == 0 and taken.events.enabled
    branch = branch_games(state, np.array([0]))
    assert not branch.events.enabled and len(state.events) == 1 and state.events.enabled
    disable_events(state)
    assert not state.events.enabled
