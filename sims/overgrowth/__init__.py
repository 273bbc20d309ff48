"""Overgrowth: a two-player race to grow a line of flowers between two shaded areas."""

from sims.core.engine import BotSpec, GameDefinition
from sims.overgrowth import bots, config, reference, reference_bots, render, rules

GAME = GameDefinition(
    name="overgrowth",
    title="Overgrowth",
    player_counts=(2,),
    load_config=config.load,
    batched=lambda cfg, players: rules.OvergrowthEngine(cfg),
    reference=lambda cfg, players, seed: reference.OvergrowthGame(cfg),
    bots={
        "random": BotSpec("random", bots.RandomBot, reference_bots.ReferenceRandomBot,
                          "uniform among legal actions"),
        "greedy": BotSpec("greedy", bots.GreedyBot, reference_bots.ReferenceGreedyBot,
                          "one ply: immediate win, else connection distances and flower count"),
        "planner": BotSpec("planner", bots.PlannerBot, None,
                           "rollouts: the best greedy candidates, each played out a few turns by greedy play"),
    },
    render_reference=render.render_game,
    render_compact=render.compact,
    describe_action=lambda game, action: render.describe_action(game.config, action, game.action_kind(action)),
    max_turns=lambda cfg: cfg.max_turns,
    bot_weights=lambda cfg, kind: cfg.bot_weights.get(kind, {}),
    personas=lambda cfg: cfg.personas,
    describe="2 players; 7x7 board by default; advanced variant: rules.orthogonal_connection",
    components=("kind", config.ACTION_KINDS),
)
