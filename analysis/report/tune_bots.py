"""Reports of a ``glade tune`` with target ``bot-share``: each candidate's share against the baseline with
its confidence sequence, the chosen weights' share on new deals, and the games spent."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from analysis import plots
from analysis.report.methods import _methods_section
from analysis.report.model import Code, Column, Facts, Flag, Flags, Paragraph, Plot, Report, Section, Table
from analysis.report.text import _ci, _game_title, _int, _pct
from analysis.tune import ALPHA, candidate_rows
from sims.records import now

_STATUS_COLORS = {"best": plots.FAIR, "survived": plots.PALETTE[0]}


@plots._styled
def share_path_figure(rows: list[dict], challenger: str, baseline: str) -> Figure:
    """Per candidate looked at: the challenger's share at its last look with the confidence sequence; 50% dashed."""
    fig, axes = plots._figure(0.9 + 0.34 * len(rows))
    ax = axes[0, 0]
    plots._forest(ax, [f"{r['candidate'].split('=', 1)[-1]} ({r['deals']:,})" for r in rows],
                  np.array([r["share"] for r in rows]), np.array([r["low"] for r in rows]),
                  np.array([r["high"] for r in rows]), 0.5,
                  colors=[_STATUS_COLORS.get(r["status"], plots.PALETTE[4]) for r in rows],
                  markers=["D" if r["status"] == "best" else "o" for r in rows])
    plots._pct_axis(ax)
    ax.set_title(f"{challenger}'s share against {baseline} at each candidate's last look (deals)", fontsize=9.5)
    ax.set_xlabel("anytime-valid confidence sequence; dashed: 50%; grey: dropped", color=plots.MUTED, fontsize=8)
    return plots.fit_labels(fig)


def _flag(data: dict) -> Flag:
    c, best = data["confirmation"], data["best"]["id"]
    evidence = (f"{c['challenger']} {_pct(c['share'])} {_ci(c['low'], c['high'])} against {c['baseline']} on "
                f"{c['deals']:,} new deals ({c['pair_games']:,} games); {c['method']}")
    level, text = {"better": ("ok", f"{best} beats {c['baseline']}: the interval lies above 50%."),
                   "worse": ("warn", f"{best} loses to {c['baseline']}: the interval lies below 50%."),
                   "undecided": ("info", f"{best} is not shown better or worse than {c['baseline']}.")}[c["verdict"]]
    return Flag(level, text, evidence)


def build_bot_tune_report(data: dict, path: str | Path) -> Report:
    """The report of a bot-share tune directory (``data``: its tune.json)."""
    study, games, c = data["study"], data["games"], data["confirmation"]
    rows = candidate_rows(data)
    lead = (f"{len(data['candidates'])} weight settings of {study['challenger']} for {_game_title(study['game'])}, "
            f"{study['players']} players, each against {study['baseline']} on the same deals of seed "
            f"{study['seed']} (seats rotated); the chosen one was played again on {c['deals']:,} new deals. "
            + (data["description"] + "." if data.get("description") else ""))
    spent = Flag("info", f"{games['total']:,} games spent.", f"{games['search']:,} searching (budget "
                 f"{study['budget']:,}) and {games['confirm']:,} confirming; the search stopped because "
                 f"{data.get('stopped', 'it ended')}")
    table = Table([Column("candidate"), Column("deals", True), Column("share [conf. seq.]", True),
                   Column("status"), Column("why")],
                  [[r["candidate"], _int(r["deals"]), f"{_pct(r['share'])} {_ci(r['low'], r['high'])}", r["status"],
                    r["reason"]] for r in rows], caption=f"{study['challenger']}'s share of the comparisons against "
                  f"{study['baseline']} at each candidate's last look.", marked=[r["status"] == "best" for r in rows])
    rule = data["drop_rule"]
    methods = [
        f"Score: {study['challenger']}'s share of every pair of seats it holds against {study['baseline']} (the "
        "better rank 1, the same rank or a stall 1/2), averaged per deal over the deal's rotated games "
        "(analysis.ladder.measure).",
        f"Drop rule: per candidate a normal-mixture confidence sequence at level {rule['confidence']:.5f} "
        f"({ALPHA:g} split over {rule['tests']} candidates); a candidate is dropped when its sequence's top lies "
        "below another's bottom. Successive halving by estimate when the budget runs short (not a test).",
        f"Confirmation: the chosen weights on new deals (another root seed), {c['method']}.",
    ]
    sections = [
        Section("summary", "Summary", [Paragraph(lead, "lead"), Flags([_flag(data), spent])]),
        Section("path", "Search path", [Plot("tune-path", share_path_figure(rows, study["challenger"],
                                                                           study["baseline"]),
                                             "Each candidate's share with the sequence the drop rule used."), table]),
        Section("confirmation", "Confirmation on new deals", [
            Facts([("setting", c["candidate"]), ("verdict", c["verdict"]), ("deals", _int(c["deals"])),
                   ("games", _int(c["games"])), ("root seed", str(c["seed"]))]),
            Code("the pair and ratings in full", c["describe"])]),
        _methods_section(methods),
        Section("study", "Study", [Code("tune.json: the study", json.dumps(study, indent=2))]),
    ]
    title = f"{_game_title(study['game'])} tune: {study['challenger']} against {study['baseline']}"
    subtitle = f"{len(data['candidates'])} candidates, {study['players']} players, seed {study['seed']}; {path}"
    return Report("tune", title, subtitle, sections, now())
