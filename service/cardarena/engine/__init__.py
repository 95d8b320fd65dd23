"""The pure rules core: cards, the match RNG, the Game/State contract, the registry, replays.

Nothing in :mod:`cardarena.engine` or :mod:`cardarena.games` does IO, reads a clock or
imports a network, storage or web library (a test enforces it).
"""

from .core import (
    ACTION_LIMIT,
    ACTION_LIMIT_REASON,
    CHANCE,
    MAX_ACTIONS,
    ActionInfo,
    DealRecord,
    FieldsView,
    Game,
    GameError,
    HiddenInformation,
    IllegalAction,
    InvalidChance,
    InvalidOptions,
    NotYourTurn,
    OptionRange,
    Result,
    SnapshotView,
    State,
    UnknownAction,
    forfeit_ranks,
    no_contest,
    public_forms,
    ranks_from_scores,
)
from .playout import ActionLimitReached, Policy, play_match, random_policy
from .registry import games, get_game
from .replay import FORMAT, RecordedAction, ReplayMismatch, Rerun, build_replay, rerun, rerun_from_seed
from .rng import MatchRng

__all__ = [
    "ACTION_LIMIT",
    "ACTION_LIMIT_REASON",
    "CHANCE",
    "FORMAT",
    "MAX_ACTIONS",
    "ActionInfo",
    "ActionLimitReached",
    "DealRecord",
    "FieldsView",
    "Game",
    "GameError",
    "HiddenInformation",
    "IllegalAction",
    "InvalidChance",
    "InvalidOptions",
    "MatchRng",
    "NotYourTurn",
    "OptionRange",
    "Policy",
    "RecordedAction",
    "ReplayMismatch",
    "Rerun",
    "Result",
    "SnapshotView",
    "State",
    "UnknownAction",
    "build_replay",
    "forfeit_ranks",
    "games",
    "get_game",
    "no_contest",
    "play_match",
    "public_forms",
    "random_policy",
    "ranks_from_scores",
    "rerun",
    "rerun_from_seed",
]
