"""Vora's records and events columns (the data dictionary; see :mod:`sims.core.columns`)."""

from __future__ import annotations

from sims.core.columns import Column, GameColumns
from sims.vora.config import ACTION_SPECIALS, BLOCKS, PHASES, VoraConfig

_STATS = {
    "collected": "cubes the seat collected from the meadow into its farm",
    "extras": "EXTRA combos the seat earned (a formation of formations.extra cubes)",
    "bigs": "BIG combos the seat earned (a formation of formations.big cubes or a crossing)",
    "picks": "meadow cubes the seat picked (EXTRA or BIG decisions)",
    "steals": "cubes the seat stole from another farm (BIG decisions)",
    "stolen": "cubes stolen from the seat's farm",
    "declines": "EXTRA or BIG combos the seat declined (took no cube)",
    "pushes": "push actions the seat took (single pushes)",
    "received": "fallen cubes the seat received (its own side, or a RECIPIENT decision)",
}

_PHASES = {"main": "the turn's main action", "recipient": "who gets a cube fallen on an unseated side",
           "extra": "pick a meadow cube or decline (an EXTRA combo)",
           "big": "pick a meadow cube, steal or decline (a BIG combo)"}


def columns(config: VoraConfig) -> GameColumns:
    """Every Vora column beyond the shared records columns; ``farm_<kind>`` follow the config's kinds."""
    farms = [Column(f"farm_{kind}", "Int64", f"{kind} cubes in the seat's farm at the end", "cubes")
             for kind in config.kind_names]
    units = {"pushes": "actions", "extras": "combos", "bigs": "combos", "declines": "combos"}
    stats = [Column(name, "Int64", meaning, units.get(name, "cubes")) for name, meaning in _STATS.items()]
    specials = [Column(f"special_{name}", "Int64", f"{name.replace('_', ' ')} special actions the seat took",
                       "actions") for name in ACTION_SPECIALS]
    blocks = {block: f"a {block.replace('_', ' ')} decision" for block in BLOCKS}
    events = [
        Column("game", "Int64", "game id (the records' game)"),
        Column("decision", "Int32", "decision index in the game, from 0"),
        Column("seat", "Int8", "the seat deciding"),
        Column("phase", "String", "the decision's phase", codes={p: _PHASES[p] for p in PHASES}),
        Column("action", "Int32", "the action number chosen (the game's action numbering)"),
        Column("block", "String", "the action's block (what kind of action)", codes=blocks),
        Column("kind", "String", "the cube kind the action moved, \"\" if none"),
        Column("collected", "Int16", "cubes collected while resolving the decision", "cubes"),
        Column("extras", "Int8", "EXTRA combos earned while resolving it", "combos"),
        Column("bigs", "Int8", "BIG combos earned while resolving it", "combos"),
        Column("victim", "Int8", "the seat robbed by a steal, or given a fallen cube by a recipient decision",
               codes={"-1": "none"}),
        Column("special", "String", "the kind whose action special the decision used (double push, devour, wolf, "
               "pick up, fly, dig), \"\" if none"),
        Column("collected_kinds", "String", "the kinds collected while resolving the decision, comma-separated in "
               "kind order, \"\" if none"),
        Column("passive", "String", "the kinds whose passive special shaped a collection the decision set off "
               "(liquid: water taken outside straight lines; grazer: grass taken beside a sheep line that no grass "
               "formation took), comma-separated in kind order, \"\" if none"),
        Column("points", "Float32", "the deciding seat's family-score change over the decision (the action and "
               "the collections, combos and falls it set off)", "points"),
    ]
    end = {"bag_empty": "the bag could not refill the meadow; the game ended after that turn",
           "stall": "max_turns completed turns without a result"}
    return GameColumns(farms + stats + specials, events, end)
