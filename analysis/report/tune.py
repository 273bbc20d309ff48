"""Tune reports: the search path (each candidate's seat share with its confidence sequence), the
confirmation run's verdict on new deals, and the games spent (a ``glade tune`` directory, ``tune.json``)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import numpy as np
import polars as pl
from matplotlib.figure import Figure

from analysis import plots
from analysis.report.methods import _methods_section
from analysis.report.model import Code, Column, DELTA, Facts, Flag, Flags, Paragraph, Plot, Report, Section, Table
from analysis.report.text import _ci, _game_title, _int, _p, _pct
from analysis.tune import ALPHA, BOT_SHARE, candidate_rows, limit_text, load_tune, paste_text, verdict_text
from sims.records import now

_STATUS_COLORS = {"best": plots.FAIR, "survived": plots.PALETTE[0]}


@plots._styled
def search_path_figure(rows: list[dict], fair: float, delta: float) -> Figure:
    """Per candidate looked at (grid order): seat 0's share at its last look with the confidence sequence,
    the fair share (dashed) and the balance band (dotted)."""
    share = np.array([r["share"][0] for r in rows])
    low, high = np.array([r["low"][0] for r in rows]), np.array([r["high"][0] for r in rows])
    labels = [textwrap.fill(f"{_short(r['candidate'])} ({r['deals']:,})", 36) for r in rows]
    lines = max((label.count("\n") + 1 for label in labels), default=1)
    fig, axes = plots._figure(0.9 + (0.2 + 0.14 * lines) * len(rows))
    ax = axes[0, 0]
    colors = [_STATUS_COLORS.get(r["status"], plots.PALETTE[4]) for r in rows]
    plots._forest(ax, labels, share, low, high, fair, colors=colors,
                  markers=["D" if r["status"] == "best" else "o" for r in rows])
    for edge in (fair - delta, fair + delta):
        ax.axvline(edge, color=plots.FAIR, ls=":", lw=0.9, zorder=1)
    plots._pct_axis(ax)
    ax.set_title("Seat 0 share at each candidate's last look (deals)", fontsize=9.5)
    ax.set_xlabel(f"anytime-valid confidence sequence; dashed: fair {100 * fair:.0f}%, dotted: "
                  f"\u00b1{100 * delta:g} points; grey: dropped", color=plots.MUTED, fontsize=8)
    return plots.fit_labels(fig)


def _short(candidate: str) -> str:
    """``rules.flowers=25,board=7x7`` -> ``flowers=25 board=7x7``: the last part of each key."""
    return " ".join(part.split("=", 1)[0].rsplit(".", 1)[-1] + "=" + part.split("=", 1)[1]
                    for part in candidate.split(","))


def _verdict_flag(data: dict) -> Flag:
    c, best = data["confirmation"], data["best"]["id"]
    delta = data["study"]["delta"]
    shares = "; ".join(f"seat {s['seat']} {_pct(s['share'])} {_ci(s['low'], s['high'])}" for s in c["seats"])
    evidence = (f"{shares} ({c['share_method']}) on {c['deals']:,} new deals; {c['test'].split(' (')[0]} "
                f"{_p(c['p_value'])} against fair; equivalence within \u00b1{100 * delta:g} points "
                f"{c['equivalence'].split(' (')[0]} {_p(c['tost_p'])}")
    sentence = verdict_text(data).removeprefix("verdict: ")
    evidence += f". The setting, for glade play: {paste_text(data)}"
    level = {"balanced": "ok", "unbalanced": "warn", "rejected": "warn"}.get(c["verdict"], "info")
    return Flag(level, sentence[0].upper() + sentence[1:] + ".", evidence)


def _summary(data: dict) -> Section:
    study, games = data["study"], data["games"]
    flags = [_verdict_flag(data)]
    for target in data["confirmation"]["targets"]:
        level = {"inside": "ok", "within": "ok", "outside": "warn", "over": "warn"}.get(target["verdict"], "info")
        line = limit_text(target)
        flags.append(Flag(level, line[0].upper() + line[1:].split(" (")[0] + ".",
                          target.get("describe", "") + f"; {target['method']}"))
    flags.append(Flag("info", f"{games['total']:,} games spent.",
                      f"{games['search']:,} searching (budget {study['budget']:,}) and {games['confirm']:,} "
                      f"confirming; the search stopped because {data.get('stopped', 'it ended')}"))
    axes = (", ".join(f"{a['key']} ({', '.join(a['values'])})" for a in data["axes"]) if "axes" in data
            else ", ".join(study["params"]))
    lead = (f"{len(data['candidates'])} candidates of {axes} for {_game_title(study['game'])}, "
            f"bots {', '.join(study['bots'])}, seed {study['seed']}: every candidate played the same deals, "
            f"and the chosen one was played again on {data['confirmation']['deals']:,} new deals. "
            + (data["description"] + "." if data.get("description") else ""))
    return Section("summary", "Summary", [Paragraph(lead, "lead"), Flags(flags)])


def _path(data: dict) -> Section:
    study = data["study"]
    fair, delta = 1 / study["players"], study["delta"]
    rows = candidate_rows(data)
    table = Table([Column("candidate"), Column("deals", True), Column("seat 0 share [conf. seq.]", True),
                   Column("imbalance", True), Column("median turns", True), Column("in the turns band", True),
                   Column("stalled or blocked", True), Column("status"), Column("why")],
                  [[r["candidate"], _int(r["deals"]), f"{_pct(r['share'][0])} {_ci(r['low'][0], r['high'][0])}",
                    f"{100 * r['imbalance']:.1f} pt", f"{r['median_turns']:g}",
                    _pct(r["inside"]) if r.get("inside") is not None else "n/a",
                    _pct(r["unfinished"]) if r.get("unfinished") is not None else "n/a", r["status"], r["reason"]]
                   for r in rows], caption="Each candidate at its last look; imbalance = the largest seat's "
                   "distance from the fair share; in the turns band: the share of its games inside the study's band "
                   "(n/a without one); stalled or blocked: the share of its games that hit the turn cap or ended "
                   "with no seat able to move.", marked=[r["status"] == "best" for r in rows])
    looks = Table([Column("step", True), Column("phase"), Column("candidate"), Column("deals", True),
                   Column("seat shares"), Column("\u00b1", True), Column("games spent", True)],
                  [[str(e["step"]), e["phase"], e["candidate"], _int(e["deals"]),
                    ", ".join(_pct(s) for s in e["share"]), f"{100 * e['half_width']:.1f} pt", _int(e["spent"])]
                   for e in data["path"]], caption="Every look of the search, in order.")
    blocks = [Plot("tune-path", search_path_figure(rows, fair, delta),
                   "Seat 0's share per candidate with the confidence sequence the drop rule used."), table]
    if data.get("bracket"):
        blocks.insert(0, Paragraph(f"Bracket: {data['bracket']['note']}; kept for the race: "
                                   f"{', '.join(data['bracket']['kept'])}."))
    blocks.append(looks)
    return Section("path", "Search path", blocks)


def _confirmation(data: dict) -> Section:
    c = data["confirmation"]
    seats = pl.DataFrame(c["seats"]).rename({"low": "share_low", "high": "share_high"})
    fair = 1 / data["study"]["players"]
    table = Table([Column("seat"), Column("share", True), Column("95% interval", True), Column("p vs fair", True),
                   Column("equivalence p", True)],
                  [[str(s["seat"]), _pct(s["share"]), _ci(s["low"], s["high"]), _p(s["p_value"]), _p(s["tost_p"])]
                   for s in c["seats"]], caption=c["share_method"])
    facts = Facts([("setting", c["candidate"]), ("for glade play", paste_text(data)),
                   ("verdict", c["verdict"]), ("deals", _int(c["deals"])),
                   ("games", _int(c["games"])), ("root seed", str(c["seed"])),
                   ("deals shared with the search", "none (checked seed by seed)" if c["disjoint"] else "some")])
    return Section("confirmation", "Confirmation on new deals", [
        Paragraph("The search chose on its own deals, so its estimates of the chosen setting are biased towards "
                  "balance (the winner's curse). The verdict comes from a fresh run on deals the search never "
                  "played."), facts, table,
        Plot("tune-confirmation", plots.seat_win_rates(seats, fair), "The chosen setting's seat shares on new deals."),
        Code("the equivalence test in full", c["describe"]),
    ])


def build_tune_report(path: str | Path, delta: float = DELTA) -> Report:
    """The report of a tune directory (``tune.json``); its margin is the study's (``delta`` is not used)."""
    data = load_tune(path)
    if data["study"]["target"] == BOT_SHARE:
        from analysis.report.tune_bots import build_bot_tune_report
        return build_bot_tune_report(data, path)
    study = data["study"]
    rule = data["drop_rule"]
    methods = [
        f"Drop rule: per candidate and statistic a normal-mixture confidence sequence at level "
        f"{rule['confidence']:.5f} ({ALPHA:g} split over {rule['tests']} candidate-statistics, Bonferroni; rho "
        f"{rule['rho']:.4g}); a candidate is dropped when the smallest imbalance its sequences allow exceeds the "
        f"largest another candidate's allow; before that, a candidate whose share of stalled or blocked games is "
        f"shown above max_stalls, or whose share of games inside the turns band is shown below turns_share, is "
        f"dropped (unless every candidate left is).",
        "Successive halving when the budget cannot pay a round for every survivor: the worse half by estimate "
        "(not an error-controlled drop; the path says where it happened).",
        "Confirmation: the chosen setting on new deals (another root seed), judged by analysis.stats.seat_advantage "
        "(difference test and TOST within the study's delta).",
        "Stalls and blocked games on the confirmation (analysis.stats.unfinished): one-sided exact binomial tests of "
        "their share against the study's max_stalls (by deal when deals hold several games); the verdict is "
        "balanced only when it is shown below the limit.",
        "Game length on the confirmation (analysis.stats.band_share): the share of games inside the turns band, "
        "one-sided exact binomial tests against turns_share (t tests of per-deal shares when deals hold several "
        "games); the verdict is balanced only when more than that share is shown inside.",
        "Verdict: unbalanced when a seat is shown off; rejected when a target (stalls, the turns band, a mean) is "
        "shown missed; balanced when the seats and every target are shown met; otherwise undecided.",
    ]
    sections = [_summary(data), _path(data), _confirmation(data), _methods_section(methods),
                Section("study", "Study", [Code("tune.json: the study", json.dumps(study, indent=2))])]
    title = f"{_game_title(study['game'])} tune: {', '.join(p.split('=')[0] for p in study['params'])}"
    subtitle = (f"{len(data['candidates'])} candidates, bots {', '.join(study['bots'])}, seed {study['seed']}, "
                f"balanced within \u00b1{100 * study['delta']:g} points; tune directory {path}")
    return Report("tune", title, subtitle, sections, now(), headline=verdict_text(data).replace(": ", " ", 1),
                  terminal=f"the setting, for glade play: {paste_text(data)}")
