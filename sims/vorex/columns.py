"""Vorex's records and events columns (the data dictionary; see :mod:`sims.core.columns`)."""

from __future__ import annotations

from sims.core.columns import Column, GameColumns
from sims.vorex.config import BLOCKS, BROWN, GREEN, OBJECTIVE_NAMES, PHASES, PRODUCED_COLUMNS, RESOURCES, VorexConfig

_SEAT = {
    "points_flowers": ("score from the seat's flowers", "points"),
    "points_stumps": ("score from points stumps holding the seat's flowers", "points"),
    "points_green": ("score from the green objective", "points"),
    "points_brown": ("score from the brown objective", "points"),
    "flowers_placed": ("flowers the seat placed", "flowers"),
    "flowers_ruins": ("of them, flowers placed on ruins", "flowers"),
    "resources_left": ("resources the seat holds at the end", "resources"),
    "resources_gained": ("resources gained (draws, bonus draws, beetles)", "resources"),
    "resources_paid": ("resources paid (light included)", "resources"),
    "tiles_placed": ("forest tiles the seat placed (setup tiles included)", "tiles"),
    "draws": ("draw actions (ACTION decisions)", "actions"),
    "expands": ("expand actions (ACTION decisions)", "actions"),
    "blooms": ("bloom actions (ACTION decisions)", "actions"),
    "bonus_draws": ("bonus draws taken", "actions"),
    "bonus_expands": ("bonus expands taken", "actions"),
    "bonus_blooms": ("bonus blooms taken", "actions"),
    "stumps_production": ("production stumps holding the seat's flower at the end", "stumps"),
    "stumps_action": ("action stumps holding the seat's flower at the end", "stumps"),
    "stumps_points": ("points stumps holding the seat's flower at the end", "stumps"),
}

_KINDS = {
    "setup_place": "a setup tile placed", "draw": "a draw action", "expand": "an expand action (a tile placed)",
    "bloom": "a bloom action (a flower placed)", "bonus_expand": "a bonus expand", "bonus_bloom": "a bonus bloom",
    "decline": "a bonus declined", "weed_bloom": "the solo weed blooms", "weed_expand": "the solo weed expands",
}

_COUNTS = {
    "stump_points": ("value of a points stump bloomed, else 0", "points"),
    "reduced": ("cost units removed by reductions", "resources"),
    "paid": ("resources paid, light included", "resources"),
    "light_paid": ("light paid", "resources"),
    "gained": ("resources gained by the decision and what it caused (draw, beetles, automatic bonus draw)",
               "resources"),
    "ruins_formed": ("ruins formed while resolving it", "ruins"),
    "ruin_flowers": ("ruin flowers placed, by any seat, while resolving it", "flowers"),
    "points": ("the deciding seat's score change the decision caused (all it set off included; the weed: 0)",
               "points"),
    "points_flowers": ("of it, from the seat's flowers", "points"),
    "points_stumps": ("of it, from points stumps", "points"),
    "points_green": ("of it, from the green objective", "points"),
    "points_brown": ("of it, from the brown objective", "points"),
}


def columns(config: VorexConfig) -> GameColumns:
    """Every Vorex column beyond the shared records columns."""
    records = [Column(name, "Int64", meaning, unit) for name, (meaning, unit) in _SEAT.items()]
    records += [
        Column("green", "String", "the game's green objective", codes={
            **{g: OBJECTIVE_NAMES[g] for g in GREEN}, "none": "no green objective"}),
        Column("brown", "String", "the game's brown objective", codes={b: OBJECTIVE_NAMES[b] for b in BROWN}),
        Column("solo_name", "String", "solo: the subspecies name earned, \"\" unless solo_win"),
        Column("ruins", "Int64", "ruins on the map at the end", "ruins"),
        Column("tiles_left", "Int64", "pile and face-up tiles never placed", "tiles"),
    ]
    events = [
        Column("game", "Int64", "game id (the records' game)"),
        Column("decision", "Int32", "decision index in the game, from 0"),
        Column("turn", "Int32", "turn index in the game", "turns"),
        Column("seat", "Int32", "the seat deciding (the weed's seat in solo)"),
        Column("phase", "String", "the decision's phase", codes={p: p.replace("_", " ") for p in PHASES}),
        Column("action", "Int32", "the action number chosen (the game's action numbering)"),
        Column("block", "String", "the action's block", codes={b: b for b in BLOCKS}),
        Column("kind", "String", "what the decision was", codes=_KINDS),
        Column("tile", "String", "name of the tile placed, or of the bloomed hex's tile; \"\" if none"),
        Column("level", "Int32", "that tile's level, 0-3", codes={"-1": "none"}),
        Column("stump", "String", "hex kind bloomed, \"\" if none"),
        *(Column(name, "Int32", meaning, unit) for name, (meaning, unit) in _COUNTS.items()),
        Column("produced", "String", "the production kinds whose stumps produced for the mover in the decision's "
               "draws (a draw action or an automatic bonus draw), joined by \",\"; \"\" if none"),
        *(Column(name, "Int32", f"{kind} the draws took from the supply for the mover's flowers on {kind} "
                 "production stumps (capped by the supply)", "resources")
          for name, kind in zip(PRODUCED_COLUMNS, RESOURCES)),
    ]
    end = {"last_flower": "a seat placed its last flower; the round finished",
           "blocked": "nobody could grow the forest: a whole round in which nobody could place a flower or a tile "
           "(2-4 players), or at once when no seat still to play could ever change the position (rules §7.3)",
           "solo_win": "solo: the player placed its last flower", "weed_last_flower": "solo: the weed placed its "
           "last flower", "weed_no_stump": "solo: the weed had to bloom and no stump was free",
           "stall": "max_turns reached without a result"}
    return GameColumns(records, events, end)
