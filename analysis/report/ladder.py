"""Ladder reports: a ``glade ladder`` directory's pairs (each bot against the next one up), their shares with
intervals by deal, and the bots' Bradley-Terry ratings (``OUT/ladder.json`` and a run directory per pair)."""

from __future__ import annotations

from pathlib import Path

from analysis import plots
from analysis import stats
from analysis.ladder import BAR, LADDER_JSON, measure, pair_dir, read_ladder_json, stacked
from analysis.report.methods import _methods_section, _versions_now
from analysis.report.model import Column, Facts, Flag, Flags, Paragraph, Plot, Report, Section, Table
from analysis.report.run import config_block
from analysis.report.text import _ci, _game_title, _int, _pct, _versions_text
from sims.core.spec import ConfigError
from sims.records import MANIFEST, load_manifest, load_records, machine, now


def _bots(data: dict) -> list[str]:
    """The ladder's bots, weakest first, from its pairs (each the next one's lower bot)."""
    pairs = data.get("pairs") or []
    return [pairs[0]["lower"]] + [p["upper"] for p in pairs] if pairs else []


def build_ladder_report(path: str | Path, delta: float = 0.0) -> Report:
    """The report of a ``glade ladder`` directory: every pair's share and the ratings, measured again from the
    pairs' records (``analysis.ladder.measure``: the same numbers as ``ladder.json``)."""
    out = Path(path)
    data = read_ladder_json(out)
    if data is None:
        raise ConfigError(str(out / LADDER_JSON), "(file)", "a ladder directory written by glade ladder", has_got=False)
    bots = _bots(data)
    dirs = [pair_dir(out, lower, upper) for lower, upper in zip(bots, bots[1:])]
    missing = [str(d) for d in dirs if not (d / MANIFEST).is_file()]
    if len(bots) < 2 or missing:
        raise ConfigError(str(out / LADDER_JSON), "pairs", "pairs whose run directories are beside it (glade ladder)",
                          ", ".join(missing) or "no pairs")
    manifests = [load_manifest(d) for d in dirs]
    records = stacked([load_records(d) for d in dirs])
    try:
        ladder = measure(records, bots, data["game"], int(data["players"]))
        gradient = stats.skill_gradient(records, reference=bots[0])
    except stats.StatsError as error:
        raise ConfigError(str(out), "(records)", f"records a report can use ({error})", has_got=False) from None
    title = _game_title(ladder.game)
    flags = [Flag("ok" if p.meets_bar else "warn" if p.high < 0.5 else "info",
                  f"{p.upper} beats {p.lower} {_pct(p.share)} {_ci(p.low, p.high)}: "
                  f"{'meets' if p.meets_bar else 'misses'} the {_pct(BAR, 0)} bar.",
                  f"share of points over every pair of seats held by different bots (better rank 1, same rank or a "
                  f"stall 1/2), {p.deals:,} deals ({p.games:,} games), {gradient.pair_method}")
             for p in ladder.pairs]
    strongest = max(ladder.ratings, key=lambda r: r.elo)
    flags.append(Flag("info", f"Strongest: {strongest.bot}, Elo {strongest.elo:+,.0f} "
                              f"[{strongest.low:+,.0f}, {strongest.high:+,.0f}] over {bots[0]}.",
                      f"Bradley-Terry ratings ({gradient.rating_method}), Elo = 400/ln 10 per logit"))
    deals = max((p.deals for p in ladder.pairs), default=0)
    summary = Section("summary", "Summary", [
        Paragraph(f"{title}, {ladder.players} players: each bot plays the next one up on the same {deals:,} deals "
                  f"(seed {manifests[0].get('seed')}), the seats split between the two and every seat rotation "
                  f"played, so each bot sits in each seat of each deal. The bar: the upper bot takes at least "
                  f"{_pct(BAR, 0)} of the points, its interval above it.", "lead"),
        Flags(flags)])
    pair_rows = [[p.lower, p.upper, _pct(p.share), _ci(p.low, p.high), _int(p.deals), _int(p.games),
                  "meets" if p.meets_bar else "misses"] for p in ladder.pairs]
    rating_rows = [[r.bot, f"{r.elo:+,.0f}", f"[{r.low:+,.0f}, {r.high:+,.0f}]"] for r in ladder.ratings]
    pairs = Section("pairs", "Pairs and ratings", [
        Table([Column("Lower bot"), Column("Upper bot"), Column("Upper's share", True), Column("95% interval", True),
               Column("Deals", True), Column("Games", True), Column(f"{_pct(BAR, 0)} bar")], pair_rows,
              caption=f"The upper bot's share of the points against the lower bot ({gradient.pair_method}); the deal "
                      "is the unit (its seat rotations are one paired unit).", marked=[not p.meets_bar
                                                                                        for p in ladder.pairs]),
        Table([Column("Bot"), Column("Elo", True), Column("95% interval", True)], rating_rows,
              caption=f"Bradley-Terry ratings on every pair of seats held by different bots ({gradient.rating_method}),"
                      f" on the Elo scale (400/ln 10 per logit), {bots[0]} at 0."),
        Plot("skill-gradient", plots.skill_gradient(gradient.pairwise, gradient.ratings, gradient.reference),
             "Left: each pair's share of points with its paired interval; the dashed line is 50%. Right: "
             "Bradley-Terry ratings in Elo with t 95% intervals (deals - 1 degrees of freedom)."),
    ])
    methods = [line for line in stats.methods_used() if line.startswith(("Skill gradient", "Bot ratings",
                                                                          "The deal is the unit"))]
    facts = [("Game", f"{title} ({ladder.game}), {ladder.players} players"),
             ("Ladder directory", str(out)),
             ("Bots", ", ".join(bots) + " (weakest first)"),
             ("Seed", str(manifests[0].get("seed"))),
             ("Versions (ladder)", _versions_text(manifests[0].get("versions") or {})),
             ("Versions (report)", _versions_text(_versions_now())),
             ("Machine", f"{machine()} (the machine that wrote this report)")]
    pair_table = Table([Column("Pair"), Column("Directory"), Column("Config hash"), Column("Bots")],
                       [[f"{lower} vs {upper}", str(d), str(m.get("config_hash")), ", ".join(m.get("bots", []))]
                        for (lower, upper), d, m in zip(zip(bots, bots[1:]), dirs, manifests)],
                       caption="One glade play run directory per pair (seats rotated).")
    sections = [summary, pairs, _methods_section(methods + [f"Ladder: {ladder.method}."]),
                Section("manifest", "Ladder manifest", [Facts(facts), pair_table,
                                                         config_block(manifests[0], dirs[0] / MANIFEST,
                                                                      " of the first pair")])]
    subtitle = (f"{ladder.players} players, bots {', '.join(bots)}, {deals:,} deals a pair. Ladder directory "
                f"{out}")
    headline = "; ".join(f"{p.upper} beats {p.lower} {_pct(p.share)} {_ci(p.low, p.high)}" for p in ladder.pairs)
    return Report("ladder", f"{title} skill ladder", subtitle, sections, now(), headline=headline)


__all__ = ["build_ladder_report"]
