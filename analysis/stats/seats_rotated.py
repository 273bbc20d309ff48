"""Seat advantage with mixed lineups and rotated seats: the same bot in different seats of the same deal.

A deal that suits one bot (its shuffles favour that bot's way of playing)
suits it in every rotation, so a model that pools the deals and gives each bot
one strength leaves that deal-by-bot effect out; a logit that leaves out such
heterogeneity shrinks its seat terms toward zero, and "balanced" came too easily.
Within one deal, though, every bot sits in every seat once per rotation cycle:
each seat's share of the deal's counted games then holds every bot equally
often, and the deal's effect on each bot is the same in every seat. Under "no
seat effect" the seats are exchangeable, so each seat's mean per-deal share is
exactly the fair share whatever the deals and bots do: the t test (2 players)
or Hotelling's T-squared (3-4) on the per-deal shares is valid.

What those shares estimate is this lineup's seat share, not what equal players
would get: between bots of different strength a seat's edge moves fewer games
(with 2 players, per deal, ``(expit(s + x) + expit(s - x)) / 2`` lies between
1/2 and ``expit(s)`` for any bot gap x), and no estimate from a mixed lineup
recovers the equal-player share when deals suit bots differently (with two
games a deal the deal-by-bot spread and the seat effect cannot be told
apart). So a mixed lineup can show that seats differ ("unbalanced"), never that
they are balanced: that verdict needs equal players, and the note names the
lineup to play.
"""

from __future__ import annotations

from analysis.report.text import _confidence, _pct
from analysis.stats.common import CONFIDENCE, VERDICT_NOT_MEASURED, VERDICT_UNBALANCED
from analysis.stats.seat_result import (
    DESIGN_ROTATED,
    ESTIMAND_LINEUP,
    LOPSIDED_SHARE,
    SeatAdvantage,
    _SeatContext,
    _equal_lineup,
    _seat_result,
)
from analysis.stats.seat_tally import SeatTally
from analysis.stats.seat_tests import exact_first_places, per_deal_seat_tests


def _rotated(t: SeatTally, c: _SeatContext) -> SeatAdvantage:
    """This rotated lineup's seat shares, one value per deal, and the exact-under-the-null test on them.

    Each seat's share of the deal's counted games (2 players: single-winner
    games; 3-4: first places, shared ones as fractions) is one value per deal;
    the test and t intervals are those of equal players with rotated seats
    (:func:`analysis.stats.seat_tests.per_deal_seat_tests`). No equivalence
    test: the verdict is "unbalanced" when the test rejects, else "not measured
    by this lineup", with a note naming the equal lineup that measures balance.
    """
    equal = _equal_lineup(t.bot_wins, c.players)
    share_method = f"t {_confidence(CONFIDENCE)} on per-deal shares of this lineup"
    handling = c.handling + f"; the deal is the unit, every bot in every seat of a deal ({t.tested:,} games)"
    nan = [float("nan")] * c.players
    if t.uneven_deals or not t.tested:
        reason = (f"lineups vary, but {t.uneven_deals:,} deal{'s' if t.uneven_deals != 1 else ''} do not seat every "
                  "bot equally often in every seat (full seat rotations of each deal, --rotate-seats, are what "
                  "separates seats from bots)" if t.uneven_deals else "no game has a counted result")
        return _seat_result(c, t.tested, t.counted_deals, "deals", nan, nan, nan, nan, nan,
                            "none (bots and seats not balanced within deals)", float("nan"), float("nan"), None,
                            handling, DESIGN_ROTATED, share_method, "none", f"{reason}; play {equal} to measure seat "
                            "balance", verdict=VERDICT_NOT_MEASURED, estimand=ESTIMAND_LINEUP)
    shares, deals = t.share_vectors()
    tests = per_deal_seat_tests(shares, deals, c)
    note = _lopsided(t, c.players) or (
        "a mixed lineup's seat shares are pulled toward fair by its bots' differences (a deal that suits one bot "
        f"suits it in every seat), so they can show that seats differ, not that equal players would be balanced; "
        f"play {equal} to measure balance")
    verdict = VERDICT_UNBALANCED if tests.p_value < c.alpha else VERDICT_NOT_MEASURED
    return _seat_result(c, t.tested, t.counted_deals, "deals", tests.share, tests.low, tests.high, tests.seat_p,
                        nan, tests.test, tests.statistic, tests.p_value, None, handling, DESIGN_ROTATED,
                        share_method, "a mixed lineup cannot show balance between equal players", note,
                        verdict=verdict, detectable=tests.detectable, estimand=ESTIMAND_LINEUP,
                        first=exact_first_places(t.first))


def _lopsided(t: SeatTally, players: int) -> str:
    """A note when one bot takes more than :data:`LOPSIDED_SHARE` of its decided comparisons against another."""
    worst = None
    for (a, b), (points_a, n) in t.pairs.items():
        share_a = points_a / n
        strong, weak, share = (a, b, share_a) if share_a >= 0.5 else (b, a, 1 - share_a)
        if share > LOPSIDED_SHARE and (worst is None or share > worst[2]):
            worst = (strong, weak, share)
    if worst is None:
        return ""
    strong, weak, share = worst
    return (f"{strong} takes {_pct(share)} of its decided comparisons against {weak}, so this lineup tells little "
            f"about seat balance between equal players; play {','.join([strong] * players)} to measure it")
