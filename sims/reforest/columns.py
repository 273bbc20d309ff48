"""Reforest's records and events columns (the data dictionary; see :mod:`sims.core.columns`)."""

from __future__ import annotations

from sims.core.columns import Column, GameColumns
from sims.reforest.config import ReforestConfig

_SEAT = {
    "points_plants": ("score from the value of the region's plants (canopy and half-sun understory)", "points"),
    "points_effects": ("score from the canopy plants' scoring effects", "points"),
    "points_energy": ("score from stored energy cards (scoring.energy each)", "points"),
    "points_visitors": ("score from the visitors the seat won or earned", "points"),
    "points_elevation": ("score from elevation: per row, elevation_per_plant x its smallest stack", "points"),
    "points_hand": ("score from cards left in hand (hand_cards_per_point cards a point)", "points"),
    "cards_played": ("plant cards the seat played", "cards"),
    "cost_paid": ("effective costs paid for plays, summed", "cards"),
    "paid_from_hand": ("cost units paid with cards from the hand", "cards"),
    "paid_from_energy": ("cost units paid with stored energy", "cards"),
    "gathers": ("Gather actions taken", "actions"),
    "cards_gathered": ("cards taken by gather picks", "cards"),
    "cards_drawn": ("cards taken by effect draw picks", "cards"),
    "cards_stored": ("cards stored as energy by effects", "cards"),
    "plants_covered": ("of the seat's plants, those covered by a taller plant", "plants"),
    "energy_from_cover": ("covered sun plants that became stored energy", "cards"),
    "effects_used": ("optional effects the seat used", "effects"),
    "effects_declined": ("optional effects the seat declined", "effects"),
    "hand_discards": ("cards discarded down to the hand limit", "cards"),
    "solo_discards": ("nursery or deck cards discarded after gathering (solitaire)", "cards"),
    "visitors_won": ("visitors the seat won or earned", "visitors"),
    "plants": ("plants in the seat's region at the end", "plants"),
    "energy": ("energy cards stored in the seat's region at the end", "cards"),
    "hand": ("cards in the seat's hand at the end", "cards"),
    "rounds_ended": ("rounds that ended (a round ends when the deck runs out)", "rounds"),
    "deck_resets": ("times the deck was rebuilt", ""),
    "visitors_unawarded": ("visitors discarded after round 3, or removed in solitaire", "visitors"),
    "solo_target": ("solitaire: the score to beat (a win iff score > target); 0 with 2+ players", "points"),
}

_EVENTS = {
    "play": "a plant played (space; amount = its effective cost)",
    "pay_hand": "a cost unit paid with a hand card (species)",
    "pay_energy": "a cost unit paid with stored energy (space; species = the energy card)",
    "cover": "a plant covered (species = the covered plant; amount 1 if it became energy, else 0)",
    "gather": "a card gathered (source)",
    "draw": "a card drawn by an effect (source)",
    "store": "a card stored as energy by an effect (space)",
    "effect": "an optional effect (species = its plant; amount 1 used, 0 declined)",
    "discard": "a hand card discarded to the hand limit",
    "solo_discard": "solitaire: a nursery or deck card discarded (source)",
    "round_end": "a round ended (amount = the round, 1 to 3)",
    "visitor": "a visitor awarded (seat = the winner, -1 if none; amount 1 won or earned, 0 carried, "
               "-1 discarded or removed)",
    "deal": "a card dealt into the seat's starting hand at setup (species; source = the deck; amount 1; decision "
            "and turn 0)",
}


def columns(config: ReforestConfig) -> GameColumns:
    """Every Reforest column beyond the shared records columns."""
    records = [Column(name, "Int64", meaning, unit) for name, (meaning, unit) in _SEAT.items()]
    slots = config.nursery_size
    sources = {str(slot): f"nursery slot {slot}" for slot in range(slots)}
    sources.update({str(slots): "the deck", "-1": "none"})
    events = [
        Column("game", "Int64", "game id (the records' game)"),
        Column("decision", "Int32", "the decision during which it happened, from 0"),
        Column("turn", "Int32", "the game's turn counter then", "turns"),
        Column("seat", "Int8", "the acting seat (visitor rows: the winner, -1 if none)"),
        Column("event", "String", "what happened", codes=_EVENTS),
        Column("species", "String", "the species concerned (see event); \"\" if none"),
        Column("played", "String", "the species played on play rows, else \"\" (the design component column)"),
        Column("space", "Int8", "region space 0-5 (low 0 1 2, middle 3 4, high 5)", codes={"-1": "none"}),
        Column("source", "Int8", "where a taken or discarded card came from", codes=sources),
        Column("amount", "Int16", "a number whose meaning depends on event (see its codes)"),
        Column("visitor", "String", "the visitor's name on visitor rows, else \"\""),
        Column("effect", "String", "the plant whose effect or reaction fired: on effect rows where it was used, "
                                   "and on the draw and store rows of the cards it gave; else \"\""),
        Column("points", "Int16", "on visitor rows won or earned (amount 1), the visitor's points, else 0", "points"),
        Column("gave", "Int16", "on effect rows where it was used, the cards the effect drew or stored, else 0",
               "cards"),
        Column("card_points", "Int16", "on play rows, what the played card scores at the end: its value while it "
               "is a plant (a covered sun plant became energy and scores as energy) plus its scoring effect if it "
               "ends in the canopy; summed over a seat's plays, its points_plants + points_effects; else 0", "points"),
    ]
    end = {"complete": "the last round ended (solitaire: after the extra turn)",
           "stall": "max_turns reached without a result"}
    return GameColumns(records, events, end)
