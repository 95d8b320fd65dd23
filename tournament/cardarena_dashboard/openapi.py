"""The OpenAPI 3.0 document of ``/api/v1`` (served at ``/api/v1/openapi.json``)."""

from __future__ import annotations

from functools import cache
from typing import Any

from .paging import DEFAULT_LIMIT, MAX_LIMIT, MAX_OFFSET


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _error(description: str) -> dict[str, Any]:
    return _json(_ref("Error"), description)


def _page_of(item: str) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["items", "offset", "limit", "next_offset"],
        "properties": {
            "items": {"type": "array", "items": _ref(item)},
            "offset": {"type": "integer", "minimum": 0},
            "limit": {"type": "integer", "minimum": 1},
            "next_offset": {"type": "integer", "nullable": True},
        },
    }


_PAGING = [
    {
        "name": "limit",
        "in": "query",
        "description": f"Page size (default {DEFAULT_LIMIT}).",
        "schema": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT},
    },
    {
        "name": "offset",
        "in": "query",
        "description": "Items to skip; use `next_offset` of the previous page.",
        "schema": {"type": "integer", "minimum": 0, "maximum": MAX_OFFSET},
    },
]


_NO_NUL = "^[^\\u0000]*$"
"""Text parameters never hold NUL (``paging.text_arg`` answers 400)."""


def _text_param(name: str, where: str = "query", description: str = "") -> dict[str, Any]:
    param: dict[str, Any] = {
        "name": name,
        "in": where,
        "description": description or name,
        "schema": {"type": "string", "maxLength": 200, "pattern": _NO_NUL},
    }
    if where == "path":
        param["required"] = True
        param["schema"] = {"type": "string", "minLength": 1, "maxLength": 200, "pattern": _NO_NUL}
    return param


TOURNAMENT_STATUSES = ("upcoming", "running", "finished", "cancelled")
"""The statuses a tournament can have (``cardarena.store.tournaments.STATUSES``)."""

_NUM = {"type": "number", "nullable": True}
_STR = {"type": "string", "nullable": True}
_TIME = {**_STR, "description": "The time before as `YYYY-MM-DD HH:MM UTC`; null when unset."}


def _time_control(**extra: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "description": "Clocks of every match (docs/tournaments.md, 'Match rules').",
        "properties": {
            "move_ms": {"type": "integer", "minimum": 1, "maximum": 2**31 - 1, "default": 2000},
            "bank_ms": {"type": "integer", "minimum": 0, "maximum": 2**31 - 1, "default": 30000},
        },
        **extra,
    }


def _fault_policy(**extra: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "description": "What happens to a bot that times out, answers illegally or does not come "
        "(docs/tournaments.md, 'Match rules').",
        "properties": {
            "default_action": {"type": "string", "enum": ["first", "random"], "default": "first"},
            "max_strikes": {"type": "integer", "minimum": 0, "default": 3},
            "max_rejections": {"type": "integer", "minimum": 0, "default": 10},
            "join_timeout_ms": {"type": "integer", "minimum": 1, "default": 15000},
            "no_show_attempts": {"type": "integer", "minimum": 0, "default": 3},
            "max_actions": {
                "type": "integer",
                "minimum": 1,
                "default": 100_000,
                "description": "Player actions after which a match that has not ended is stopped: a no contest "
                "(aborted: action_limit), never played again (docs/service.md, 'The action limit').",
            },
        },
        **extra,
    }


_SEAT_VERSIONS: dict[str, Any] = {
    "type": "array",
    "items": {"type": "string", "nullable": True},
    "description": "Per seat, the version label its bot declared (Hello.version) when the match "
    "started; null for none (docs/replay-format.md).",
}


_MS: dict[str, Any] = {"type": "integer", "nullable": True, "minimum": 0}

_THINK: dict[str, Any] = {
    "type": "array",
    "description": "Per seat, how long it took to answer, as the service measured it (from sending a request "
    "to the answer, or to the fault); absent for a match recorded before times were (docs/replay-format.md).",
    "items": {
        "type": "object",
        "properties": {
            "asked": {"type": "integer", "description": "Actions the seat was asked for."},
            "median_ms": {**_MS, "description": "The lower median of their times; null when it was never asked."},
            "max_ms": {**_MS, "description": "The longest (a time-out counts as the time it waited)."},
            "slowest": {**_MS, "description": "The action_index of the first action that took max_ms."},
            "timeouts": {"type": "integer", "description": "Time-out and disconnect faults."},
            "bank_ms_left": {**_MS, "description": "Its time bank at the end of the match."},
        },
    },
}

_PER_ACTION_MS: dict[str, Any] = {"type": "array", "items": _MS}


SCHEMAS: dict[str, Any] = {
    "Error": {
        "type": "object",
        "required": ["error"],
        "properties": {
            "error": {
                "type": "object",
                "required": ["status", "message"],
                "properties": {"status": {"type": "integer"}, "message": {"type": "string"}},
            }
        },
    },
    "Game": {
        "type": "object",
        "required": ["id", "name", "min_players", "max_players", "summary", "higher_is_better", "solitaire"],
        "properties": {
            "id": {"type": "string"},
            "name": {"type": "string"},
            "min_players": {"type": "integer"},
            "max_players": {"type": "integer"},
            "summary": {"type": "string"},
            "higher_is_better": {"type": "boolean"},
            "solitaire": {"type": "boolean"},
        },
    },
    "Result": {
        "type": "object",
        "nullable": True,
        "properties": {
            "scores": {"type": "array", "items": {"type": "number"}},
            "ranks": {"type": "array", "items": {"type": "integer"}},
            "seat_versions": _SEAT_VERSIONS,
            "deal_scores": {
                "type": "array",
                "items": {"type": "array", "items": {"type": "number"}},
                "description": "Match results: each deal's scores per seat (when every deal was scored).",
            },
            "think": _THINK,
            "forfeited": {
                "type": "array",
                "items": {"type": "integer"},
                "description": "Seats that forfeited (strikes, resignation, no-show): they rank last.",
            },
            "no_show": {
                "type": "array",
                "items": {"type": "integer"},
                "description": "Seats whose bot never joined (also in `forfeited`); they share the last place. "
                "Every seat: a no contest, which tournaments leave out of their standings and ratings.",
            },
            "aborted": {
                "type": "string",
                "description": "Only for a match the service stopped before its end: why (`action_limit`: it "
                "reached its fault policy's `max_actions`, a game or bots that loop). A no contest: every seat "
                "scores 0 and shares place 1, tournaments leave it out of their standings and ratings, and its "
                "replay (`result` null) shows the match so far.",
            },
        },
    },
    "Match": {
        "type": "object",
        "required": ["id", "game", "players", "seats", "status", "result"],
        "properties": {
            "id": {"type": "string"},
            "game": {"type": "string"},
            "players": {"type": "integer"},
            "seats": {"type": "array", "items": {"type": "string"}},
            "tournament": _STR,
            "status": {"type": "string", "enum": ["queued", "running", "done", "withdrawn", "unknown"]},
            "attempts": {"type": "integer"},
            "created_at": _NUM,
            "finished_at": _NUM,
            "result": _ref("Result"),
            "seat_versions": _SEAT_VERSIONS,
            "replay_pruned": {
                **_STR,
                "description": "Why the replay is gone (the retention policy dropped it; the replay "
                "endpoint answers 410), or null.",
            },
        },
    },
    "Replay": {
        "type": "object",
        "description": "A `cardarena-replay/1` record (docs/replay-format.md).",
        "required": ["format", "game", "players", "seats", "deals", "result"],
        "properties": {
            "format": {"type": "string", "enum": ["cardarena-replay/1"]},
            "game": {"type": "string"},
            "players": {"type": "integer"},
            "seats": {"type": "array", "items": {"type": "string"}},
            "deals": {"type": "array", "items": {"type": "object"}},
            "result": _ref("Result"),
            "seat_versions": _SEAT_VERSIONS,
            "think_ms": {
                **_PER_ACTION_MS,
                "description": "Per player action (by action_index), the ms its seat took, null for an action "
                "it was not asked for; absent in replays recorded before times were and in local ones.",
            },
            "bank_ms_left": {
                **_PER_ACTION_MS,
                "description": "Per player action, its seat's time bank left after it in ms (null with think_ms).",
            },
            "version_changes": {
                "type": "array",
                "description": "A seat whose bot came back mid-match with another version: seat, "
                "action_index, version (docs/replay-format.md). Absent when none changed.",
                "items": {
                    "type": "object",
                    "properties": {
                        "seat": {"type": "integer"},
                        "action_index": {"type": "integer"},
                        "version": {"type": "string", "nullable": True},
                    },
                },
            },
        },
    },
    "Tournament": {
        "type": "object",
        "required": ["id", "game", "players", "entrants", "status"],
        "properties": {
            "id": {"type": "string"},
            "name": {"type": "string"},
            "game": {"type": "string"},
            "players": {"type": "integer"},
            "entrants": {"type": "array", "items": {"type": "string"}},
            "deal_sets": {"type": "integer"},
            "format": {"type": "string"},
            "seed": {
                "type": "string",
                "nullable": True,
                "description": "null until the tournament has ended (every deal follows from it).",
            },
            "options": {"type": "object", "description": "Game options of every match (the defaults filled in)."},
            "time_control": _time_control(
                description="Clocks of every match, the defaults filled in (empty for a tournament stored "
                "before match rules existed: the defaults). docs/tournaments.md, 'Match rules'."
            ),
            "fault_policy": _fault_policy(
                description="Time-outs, strikes, illegal answers and no-shows of every match, the defaults "
                "filled in (empty: the defaults). docs/tournaments.md, 'Match rules'."
            ),
            "rated": {
                "type": "boolean",
                "description": "false: a practice tournament, whose matches leave the OpenSkill ratings and "
                "their histories alone (its standings are computed as usual). Tournaments stored before the "
                "field existed are rated. docs/tournaments.md, 'Practice tournaments'.",
            },
            "status": {"type": "string", "enum": ["upcoming", "running", "finished", "cancelled"]},
            "total_matches": {"type": "integer"},
            "counted": {"type": "integer"},
            "schedule_id": _STR,
            "queue": {
                "type": "string",
                "description": "The lane its matches wait in: empty for the platform's, `run-...` for a "
                "`cardarena tournament run` (played only by that run's service).",
            },
            "created_at": {"type": "number", "description": "When it was created (unix time)."},
            "started_at": {**_NUM, "description": "When it started (unix time); null while upcoming."},
            "finished_at": {**_NUM, "description": "When it finished or was cancelled (unix time)."},
            "created_at_text": _TIME,
            "started_at_text": _TIME,
            "finished_at_text": _TIME,
            "next_run": _NUM,
            "next_run_text": _STR,
        },
    },
    "Schedule": {
        "type": "object",
        "description": "A recurring tournament: each run is a tournament `<schedule id>-<due time>` "
        "made from `template` (`cardarena tournament create --schedule`).",
        "required": ["id", "template", "cron", "every", "next_run", "last_run", "last_tournament", "last_error"],
        "properties": {
            "id": {"type": "string"},
            "template": {
                "type": "object",
                "description": "The runs' definition: `game`, `players`, `entrants` (a list of bot names, or "
                '`"all"`: every bot registered when a run starts), `deal_sets`, `options`, `time_control`, '
                "`fault_policy`, `name`, `rated`. `options`, `time_control` and `fault_policy` are as given when the "
                "schedule was created: null or only the fields given; each run fills in the defaults.",
                "properties": {
                    "game": {"type": "string"},
                    "players": {"type": "integer"},
                    "entrants": {
                        "oneOf": [
                            {"type": "array", "items": {"type": "string"}},
                            {"type": "string", "enum": ["all"]},
                        ]
                    },
                    "deal_sets": {"type": "integer"},
                    "options": {"type": "object", "nullable": True},
                    "time_control": _time_control(nullable=True),
                    "fault_policy": _fault_policy(nullable=True),
                    "name": {"type": "string", "description": "Empty: each run is named `<Game> <n>p`."},
                    "rated": {"type": "boolean", "description": "false: every run is a practice (unrated) one."},
                },
            },
            "cron": {**_STR, "description": "Cron expression (UTC), or null for an interval schedule."},
            "every": {**_NUM, "description": "Interval in seconds, or null for a cron schedule."},
            "created_at": {"type": "number"},
            "enabled": {"type": "boolean"},
            "next_run": {**_NUM, "description": "When the next run is due (unix time)."},
            "last_run": {**_NUM, "description": "Due time of the latest run taken (unix time); null before the first."},
            "last_tournament": {
                **_STR,
                "description": "The latest run's tournament id; null before the first run or when that run "
                "could not be created (see `last_error`).",
            },
            "last_error": {**_STR, "description": "Why the latest failed run could not be created, if one failed."},
            "last_error_at": _NUM,
            "entrants_text": {"type": "string"},
            "timing_text": {"type": "string"},
            "next_run_text": _STR,
            "last_run_text": _STR,
            "last_error_at_text": _STR,
        },
    },
    "StandingRow": {
        "type": "object",
        "required": ["rank", "bot", "points", "mean", "ci_low", "ci_high", "separated", "rating"],
        "properties": {
            "rank": {"type": "integer"},
            "bot": {"type": "string"},
            "points": {
                **_NUM,
                "description": "Multi-player: total points, the share of opponents beaten per match (a tie "
                "counts half). Solitaires: total score.",
            },
            "mean": {
                **_NUM,
                "description": "Primary metric, mean per deal set (null with nothing counted). Multi-player: "
                "score margin (score minus the table's mean score, negated where lower scores are better), "
                "deal by deal (mean per-deal margin over the deals every seating of the deal set played) where "
                "the game's deals are fixed by the seed and results carry deal scores, else from the final "
                "scores. Solitaires: the game score.",
            },
            "ci_low": {**_NUM, "description": "95 % bootstrap confidence interval, low end."},
            "ci_high": _NUM,
            "separated": {"type": "boolean", "nullable": True, "description": "Separated from the next rank."},
            "rating": {
                **_NUM,
                "description": "The bot's OpenSkill ordinal over all of its rated matches of the game (every "
                "tournament, not only this one): its current rating while the tournament is upcoming or running "
                "(as `/bots/{name}` shows it); once it is finished or cancelled, its rating when the tournament "
                "ended (see `rating_as_of`), so the standings of a finished tournament do not change.",
            },
            "matches": {"nullable": True},
            "win_rate": {
                **_NUM,
                "minimum": 0,
                "maximum": 1,
                "description": "Solitaire tournaments: share of the bot's matches it won by the game's own "
                "standard (won games / matches with a recorded outcome). Multi-player: share of first places. "
                "Null when no match says.",
            },
            "win_share": {
                **_NUM,
                "minimum": 0,
                "maximum": 1,
                "description": "Multi-player: mean share of opponents beaten per match (points / matches). "
                "Null for solitaires.",
            },
            "deal_sets": {"type": "integer", "minimum": 0, "description": "Deal sets the bot played in."},
            "mean_score": {**_NUM, "description": "Mean raw game score per match."},
            "places": {
                "type": "object",
                "additionalProperties": {"type": "integer", "minimum": 0},
                "description": 'How often the bot finished in each place: {"1": 3, "2": 1, ...}.',
            },
            "wins": {
                "type": "integer",
                "minimum": 0,
                "description": "Two-player games: matches won; solitaires: games won by the game's own standard. "
                "Absent for 3 or more players (win/draw/loss is not defined there; see `places`).",
            },
            "draws": {
                "type": "integer",
                "minimum": 0,
                "description": "Two-player games only (absent otherwise): matches drawn.",
            },
            "losses": {
                "type": "integer",
                "minimum": 0,
                "description": "Two-player games: matches lost; solitaires: games lost. Absent for 3 or more players.",
            },
            "strikes": {
                "type": "integer",
                "minimum": 0,
                "description": "The bot's strikes in this tournament (time-outs, disconnects, illegal answers).",
            },
            "forfeits": {"type": "integer", "minimum": 0, "description": "Matches of this tournament it forfeited."},
            "no_shows": {
                "type": "integer",
                "minimum": 0,
                "description": "Matches of this tournament it never joined (each also a forfeit). A no contest "
                "(no bot joined) is in no row and no count.",
            },
            "absent": {
                "type": "boolean",
                "description": "The bot never joined one of the matches it was seated in so far (those with "
                "other bots, each a forfeited loss, and the no contests, which count for nobody): it shares "
                "the last place, level with every other absent bot, whatever its mean. A bot whose matches "
                "were all no contests has no counted match and a null `mean`.",
            },
        },
    },
    "Standings": {
        "type": "object",
        "required": ["tournament", "items"],
        "properties": {
            "tournament": {"type": "string"},
            "items": {"type": "array", "items": _ref("StandingRow")},
            "rating_as_of": {
                **_NUM,
                "description": "null: `rating` is each bot's current rating; else the tournament's end "
                "(`finished_at`, unix time): `rating` is each bot's rating then.",
            },
        },
    },
    "CrosstableItem": {
        "type": "object",
        "description": "How `bot` did against `opponent` over the matches where both sat (docs/tournaments.md, "
        "Crosstable); the same pair from the opponent's side is another item, turned round.",
        "required": [
            "bot",
            "opponent",
            "matches",
            "ahead",
            "behind",
            "level",
            "deal_sets",
            "mean_diff",
            "ci_low",
            "ci_high",
            "significant",
        ],
        "properties": {
            "bot": {"type": "string"},
            "opponent": {"type": "string"},
            "matches": {"type": "integer", "minimum": 1, "description": "Matches where both sat."},
            "ahead": {
                "type": "integer",
                "minimum": 0,
                "description": "Of those, matches where `bot` placed better than `opponent` (the recorded places; "
                "a forfeiting seat is last). With 3 or more players: the two bots' places at that table.",
            },
            "behind": {"type": "integer", "minimum": 0},
            "level": {"type": "integer", "minimum": 0, "description": "Matches where they shared a place."},
            "deal_sets": {
                "type": "integer",
                "minimum": 1,
                "description": "Deal sets where both sat (every seating of one deal): the units of the mean.",
            },
            "mean_diff": {
                "type": "number",
                "description": "`bot`'s mean score difference against `opponent` per deal set: in each deal set, the "
                "mean over the matches both played of `bot`'s metric minus `opponent`'s (the standings' metric: per "
                "deal over the deals every seating played with `deal_margin`, else from the final scores; turned "
                "where lower scores win): positive when `bot` did better.",
            },
            "ci_low": {
                "type": "number",
                "description": "95 % percentile bootstrap interval of `mean_diff` over the deal sets, low end.",
            },
            "ci_high": {"type": "number"},
            "significant": {
                "type": "boolean",
                "description": "The interval excludes 0 and they met in at least 5 deal sets.",
            },
        },
    },
    "Crosstable": {
        "type": "object",
        "required": ["tournament", "available", "reason", "metric", "counted", "resamples", "bots", "items"],
        "properties": {
            "tournament": {"type": "string"},
            "available": {
                "type": "boolean",
                "description": "false for a solitaire (every bot plays alone: there is no crosstable) and for "
                "standings an earlier version computed while the tournament still runs (it comes with the next "
                "update); `reason` says which.",
            },
            "reason": {**_STR, "description": "Why there is no crosstable; null when `available`."},
            "metric": {
                "type": "string",
                "enum": ["deal_margin", "margin"],
                "nullable": True,
                "description": "The standings' primary metric the differences are in; null before the first result.",
            },
            "counted": {"type": "integer", "minimum": 0, "description": "Counted matches it is computed from."},
            "resamples": {"type": "integer", "minimum": 0},
            "bots": {
                "type": "array",
                "items": {"type": "string"},
                "description": "The bots in the standings' order (rows and columns of the dashboard's matrix).",
            },
            "items": {
                "type": "array",
                "items": _ref("CrosstableItem"),
                "description": "Every ordered pair that met (with `bot`: that bot's only), by the bot's then the "
                "opponent's place in `bots`; a pair that never met has no item.",
            },
        },
    },
    "Bot": {
        "type": "object",
        "required": ["name"],
        "properties": {
            "name": {"type": "string"},
            "created_at": {"type": "number", "description": "When it was registered (unix time)."},
            "created_at_text": _TIME,
            "stats": {
                "type": "object",
                "additionalProperties": {"type": "integer"},
                "description": "Counters over every recorded match the bot was seated in (counted when its "
                "result is written): `matches` (played to the "
                "end; a no-show plays none), `timeouts`, `illegal_actions`, `errors` (decisions handed back "
                "unanswered: the bot's code failed), `disconnects`, `forfeits` (too "
                "many strikes, a resignation or a no-show).",
            },
            "connected": {
                "type": "boolean",
                "nullable": True,
                "description": "Connected to a live service instance now (null: presence not available).",
            },
            "ratings": {"type": "object", "additionalProperties": {"type": "object"}},
        },
    },
    "BotRegistration": {
        "type": "object",
        "required": ["name"],
        "properties": {
            "name": {
                "type": "string",
                "minLength": 1,
                "maxLength": 64,
                "pattern": "^[^:,]*$",
                "description": "1-64 printable characters, no leading or trailing space, no `:` or `,`; not "
                "one that looks like a registered bot's name (the same but for case, width or look-alike "
                "letters: 400).",
            }
        },
    },
    "BotRoster": {
        "type": "object",
        "required": ["names"],
        "additionalProperties": False,
        "properties": {
            "names": {
                "type": "array",
                "minItems": 1,
                "maxItems": 1000,
                "items": {"type": "string"},
                "description": "Bot names, each as in `BotRegistration`, each once. All are checked before any is "
                "registered: a bad or repeated name, or two or one and a registered bot's that look alike, "
                "registers nothing (400), nor does one already registered (409) unless `skip_registered`.",
            },
            "skip_registered": {
                "type": "boolean",
                "default": False,
                "description": "Leave out the names already registered instead of refusing (a roster that grew).",
            },
        },
    },
    "RegisteredRoster": {
        "type": "object",
        "required": ["bots", "skipped"],
        "properties": {
            "bots": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["name", "token"],
                    "properties": {
                        "name": {"type": "string"},
                        "token": {"type": "string", "description": "Shown once."},
                    },
                },
                "description": "The bots registered, in the order given, with their tokens.",
            },
            "skipped": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Names already registered, left out (`skip_registered`).",
            },
        },
    },
    "DeletedBot": {
        "type": "object",
        "required": ["deleted"],
        "properties": {"deleted": {"type": "string", "description": "The name, which can be registered again."}},
    },
    "RegisteredBot": {
        "type": "object",
        "required": ["bot", "token"],
        "properties": {"bot": _ref("Bot"), "token": {"type": "string", "description": "Shown once."}},
    },
    "TournamentDefinition": {
        "type": "object",
        "required": ["id", "game", "players", "entrants", "deal_sets"],
        "properties": {
            "id": {
                "type": "string",
                "pattern": "^(?!\\.\\.?$)[^:/]+$",
                "maxLength": 64,
                "description": "No ':' or '/', not '.' or '..' (it is a URL segment).",
            },
            "name": {
                "type": "string",
                "maxLength": 200,
                "description": "Default (empty): `<Game> <n>p`. Printable characters only: no control "
                "characters (terminal escapes, line breaks, tabs) and no invisible formatting ones (the "
                "bidirectional overrides U+202A-U+202E and U+2066-U+2069, zero-width characters).",
            },
            "game": {"type": "string"},
            "players": {"type": "integer", "minimum": 1},
            "entrants": {"type": "array", "items": {"type": "string"}, "minItems": 1},
            "deal_sets": {"type": "integer", "minimum": 1},
            "format": {
                "type": "string",
                "enum": ["auto"],
                "description": "The only format: it follows from the game and the player count.",
            },
            "seed": {
                "type": "string",
                "description": "Default: a random secret (every deal follows from it; shown once it ended).",
            },
            "options": {"type": "object", "description": "Game options; stored with the defaults filled in."},
            "time_control": _time_control(additionalProperties=False),
            "fault_policy": _fault_policy(additionalProperties=False),
            "rated": {
                "type": "boolean",
                "default": True,
                "description": "false: a practice tournament; its matches do not change the ratings.",
            },
            "notify": {
                "type": "array",
                "maxItems": 10,
                "items": {"type": "string", "maxLength": 2000, "pattern": "^[hH][tT][tT][pP][sS]?://"},
                "description": "Webhook URLs (http or https; Slack, Mattermost, Discord, Teams ...) each sent a "
                "JSON message when the tournament ends (docs/tournaments.md, 'Notifications'). Secret: never "
                "shown again, not even to admins (GET .../notifications gives their hosts). Public addresses "
                "only: an internal address or localhost is refused (400) unless the operator lists it in "
                "CARDARENA_NOTIFY_ALLOW_INTERNAL.",
            },
        },
    },
    "NotificationTargets": {
        "type": "object",
        "required": ["tournament", "targets"],
        "properties": {
            "tournament": {"type": "string"},
            "targets": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["target", "host", "state", "attempts", "last_error"],
                    "properties": {
                        "target": {"type": "integer", "description": "1 for the first URL given, ..."},
                        "host": {"type": "string", "description": "The URL's host (and port): never the URL."},
                        "state": {
                            "type": "string",
                            "nullable": True,
                            "enum": ["queued", "sending", "retrying", "delivered", "failed", None],
                            "description": "null until the tournament has ended and its end is announced.",
                        },
                        "attempts": {"type": "integer"},
                        "last_error": _STR,
                        "updated_at": _NUM,
                        "next_attempt_at": {**_NUM, "description": "When a retry is due (state retrying)."},
                    },
                },
            },
        },
    },
    "Page_Match": _page_of("Match"),
    "Page_Tournament": _page_of("Tournament"),
    "Page_Bot": _page_of("Bot"),
    "Page_Schedule": _page_of("Schedule"),
    "LeaderboardRow": {
        "type": "object",
        "required": ["rank", "bot", "ordinal", "mu", "sigma", "matches", "last_match_id", "last_rated_at", "retired"],
        "properties": {
            "rank": {
                "type": "integer",
                "minimum": 1,
                "description": "Equal ordinals share a rank and the next rank skips (1, 1, 3).",
            },
            "bot": {"type": "string"},
            "ordinal": {**_NUM, "description": "The OpenSkill rating: mu - 3 sigma (what the standings show)."},
            "mu": _NUM,
            "sigma": {**_NUM, "description": "Uncertainty: wide for a bot with few rated matches."},
            "matches": {"type": "integer", "minimum": 0, "description": "Rated matches of the game."},
            "last_match_id": {**_STR, "description": "Its last rated match."},
            "last_rated_at": {**_NUM, "description": "When its last rated match was rated (unix time)."},
            "last_rated_at_text": _TIME,
            "retired": {"type": "boolean", "description": "Retired (listed only with `retired=1`)."},
        },
    },
    "Leaderboard": {
        **_page_of("LeaderboardRow"),
        "required": ["game", "total", "retired", "min_matches", "items", "offset", "limit", "next_offset"],
        "properties": {
            **_page_of("LeaderboardRow")["properties"],
            "game": {"type": "string"},
            "total": {
                "type": "integer",
                "minimum": 0,
                "nullable": True,
                "description": "Bots on the whole board; null when `min_matches` is set and the reading stopped "
                "at the page (or at its bound of 5,000 bots) before the end of the board.",
            },
            "retired": {"type": "boolean", "description": "Whether retired bots are on it."},
            "min_matches": {
                "type": "integer",
                "minimum": 0,
                "maximum": MAX_OFFSET,
                "description": "The `min_matches` filter (0: none).",
            },
        },
    },
}


def _get(summary: str, ok: dict[str, Any], params: list[dict[str, Any]] | None = None, **errors: str) -> dict[str, Any]:
    responses: dict[str, Any] = {"200": _json(ok, "OK")}
    for code, text in errors.items():
        responses[code.lstrip("e")] = _error(text)
    responses.setdefault("400", _error("Bad input"))
    return {"get": {"summary": summary, "parameters": params or [], "responses": responses}}


_UNAVAILABLE = "The store module is not installed"


def _standings_get(tid: dict[str, Any]) -> dict[str, Any]:
    """``GET /tournaments/{id}/standings``: JSON, or CSV with ``format=csv``."""
    form = {
        "name": "format",
        "in": "query",
        "description": "`json` (the default) or `csv`: the CSV of `cardarena tournament standings ID --csv`, one "
        "row per bot (tournament, game, players, rank, bot, mean, ci_low, ci_high, separated_from_next, matches, "
        "deal_sets, points, win_share, win_rate, mean_score, wins/draws/losses where defined, place_1.., rating, "
        "strikes, forfeits).",
        "schema": {"type": "string", "enum": ["json", "csv"], "default": "json"},
    }
    found = _get(
        "Standings, best first (supports If-None-Match)", _ref("Standings"), [tid, form], e404="Unknown tournament"
    )
    found["get"]["responses"]["200"]["content"]["text/csv"] = {"schema": {"type": "string"}}
    found["get"]["responses"]["503"] = _error(_UNAVAILABLE)
    return found


@cache
def openapi_document() -> dict[str, Any]:
    """The document (built once)."""
    mid = _text_param("match_id", "path", "Match id")
    mid["schema"] = {"type": "string", "minLength": 1, "maxLength": 200, "pattern": "^[^/\\u0000]+$"}
    tid = _text_param("tournament_id", "path", "Tournament id")
    bot = _text_param("name", "path", "Bot name")
    sid = _text_param("schedule_id", "path", "Schedule id")
    admin_security: list[dict[str, list[str]]] = [{"adminToken": []}]
    admin_errors = {
        "400": _error("Bad input"),
        "401": _error("Missing or wrong admin token"),
        "429": _error("Too many wrong admin tokens from this address within a minute: retry after Retry-After seconds"),
        "503": _error("Admin API disabled (no CARDARENA_ADMIN_TOKEN) or store missing"),
    }
    too_large = {"413": _error("Request body over 1 MiB")}
    paths: dict[str, Any] = {
        "/health": {
            "get": {
                "summary": "Whether the dashboard can read its Redis (a readiness probe)",
                "parameters": [],
                "responses": {
                    "200": _json(
                        {
                            "type": "object",
                            "required": ["status"],
                            "properties": {"status": {"type": "string", "enum": ["ok"]}},
                        },
                        "OK",
                    ),
                    "503": _json(
                        {
                            "type": "object",
                            "required": ["status", "error"],
                            "properties": {
                                "status": {"type": "string", "enum": ["unavailable"]},
                                "error": {"type": "string"},
                            },
                        },
                        "Redis cannot be read",
                    ),
                },
            }
        },
        "/games": _get(
            "Every registered game",
            {"type": "object", "properties": {"items": {"type": "array", "items": _ref("Game")}}},
        ),
        "/games/{game_id}": _get("One game", _ref("Game"), [_text_param("game_id", "path")], e404="Unknown game"),
        "/games/{game_id}/leaderboard": _get(
            "The game's rated bots, best OpenSkill ordinal first, over every rated match (practice tournaments "
            "are not rated); retired bots left out, and not ranked, unless `retired=1` (supports If-None-Match)",
            _ref("Leaderboard"),
            [
                _text_param("game_id", "path"),
                *_PAGING,
                {
                    "name": "retired",
                    "in": "query",
                    "description": "`1`: list retired bots too (marked, ranked with the others).",
                    "schema": {"type": "string", "enum": ["0", "1"], "default": "0"},
                },
                {
                    "name": "min_matches",
                    "in": "query",
                    "description": "Only bots with at least this many rated matches, ranked among themselves; the "
                    "board is then read from the top in batches until the page is full (at most 5,000 bots).",
                    "schema": {"type": "integer", "minimum": 0, "maximum": MAX_OFFSET, "default": 0},
                },
            ],
            e404="Unknown game",
            e503=_UNAVAILABLE,
        ),
        "/matches": _get(
            "Matches, newest first (filtered by a tournament: its own, most recently counted first; by bot "
            "and/or game: all of theirs, read from their index)",
            _ref("Page_Match"),
            [
                *_PAGING,
                _text_param("game"),
                _text_param("tournament", description="Tournament id (a stored tournament: 404 otherwise)"),
                _text_param("bot"),
            ],
            e404="Unknown tournament (the `tournament` filter)",
        ),
        "/matches/{match_id}": _get("One match", _ref("Match"), [mid], e404="Unknown match"),
        "/matches/{match_id}/replay": _get(
            "The replay of a finished match",
            _ref("Replay"),
            [mid],
            e404="Unknown match",
            e409="Not finished, or withheld while its deal set is being played (docs/dashboard.md, Hidden cards)",
            e410="Pruned: dropped by the retention policy (`cardarena prune`, docs/deploy.md, Retention); "
            "the match and its result are kept",
        ),
        "/tournaments": _get(
            "Tournaments, newest first",
            _ref("Page_Tournament"),
            [
                *_PAGING,
                {
                    "name": "status",
                    "in": "query",
                    "schema": {"type": "string", "enum": ["upcoming", "running", "finished", "cancelled"]},
                },
            ],
            e503=_UNAVAILABLE,
        ),
        "/tournaments/{tournament_id}": _get(
            "One tournament", _ref("Tournament"), [tid], e404="Unknown tournament", e503=_UNAVAILABLE
        ),
        "/tournaments/{tournament_id}/standings": _standings_get(tid),
        "/tournaments/{tournament_id}/crosstable": _get(
            "A tournament's crosstable: every pair of bots' record against each other (matches met, "
            "ahead/behind/level, mean score difference per deal set with its 95 % interval), computed with its "
            "standings (supports If-None-Match)",
            _ref("Crosstable"),
            [tid, _text_param("bot", description="Only this bot's row (404 if it is not in the crosstable)")],
            e404="Unknown tournament, or a `bot` not in its crosstable",
            e503=_UNAVAILABLE,
        ),
        "/tournaments/{tournament_id}/matches": _get(
            "A tournament's matches: those counted, most recently counted first, then the others in play order",
            _ref("Page_Match"),
            [tid, *_PAGING],
            e404="Unknown tournament",
            e503=_UNAVAILABLE,
        ),
        "/schedules": _get(
            "Recurring tournaments, soonest next run first", _ref("Page_Schedule"), _PAGING, e503=_UNAVAILABLE
        ),
        "/schedules/{schedule_id}": _get(
            "One recurring tournament", _ref("Schedule"), [sid], e404="Unknown schedule", e503=_UNAVAILABLE
        ),
        "/bots": _get("Registered bots", _ref("Page_Bot"), _PAGING, e503=_UNAVAILABLE),
        "/bots/{name}": _get("One bot", _ref("Bot"), [bot], e404="Unknown bot", e503=_UNAVAILABLE),
        "/admin/bots": {
            "post": {
                "summary": "Register a bot, or a roster of bots (as `cardarena bot register A B C`); the tokens "
                "are in the answer, once",
                "security": admin_security,
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {"schema": {"oneOf": [_ref("BotRegistration"), _ref("BotRoster")]}}
                    },
                },
                "responses": {
                    "201": _json({"oneOf": [_ref("RegisteredBot"), _ref("RegisteredRoster")]}, "Registered"),
                    "409": _error("Name taken (a roster: some already registered; nothing was registered)"),
                    **too_large,
                    **admin_errors,
                },
            }
        },
        "/admin/bots/{name}": {
            "delete": {
                "summary": "Delete a bot registered by mistake, which never played (as `cardarena bot delete`): "
                "no match seats it, no tournament has it as an entrant, no schedule names it, it has no rating "
                "and no statistics; its token stops working and the name can be registered again",
                "security": admin_security,
                "parameters": [bot],
                "responses": {
                    "200": _json(_ref("DeletedBot"), "Deleted"),
                    "404": _error("Unknown bot (with the registered name it was probably meant to be)"),
                    "409": _error("The bot has a history (matches, tournaments, a schedule, ratings): retire it"),
                    **admin_errors,
                },
            }
        },
        "/admin/bots/{name}/token": {
            "post": {
                "summary": "Replace a bot's token (lost or leaked): the new one is in the answer, once; the old "
                "one stops working and sessions open with it are ended",
                "security": admin_security,
                "parameters": [bot],
                "responses": {
                    "200": _json(_ref("RegisteredBot"), "Replaced"),
                    "404": _error("Unknown bot (with the registered name it was probably meant to be)"),
                    **admin_errors,
                },
            }
        },
        "/admin/tournaments": {
            "post": {
                "summary": "Create a tournament (status upcoming)",
                "security": admin_security,
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": _ref("TournamentDefinition")}},
                },
                "responses": {
                    "201": _json(_ref("Tournament"), "Created"),
                    "409": _error("Id taken"),
                    **too_large,
                    **admin_errors,
                },
            }
        },
        "/admin/tournaments/{tournament_id}/notifications": {
            "get": {
                "summary": "A tournament's notification targets (hosts only) and how each delivery stands",
                "security": admin_security,
                "parameters": [tid],
                "responses": {
                    "200": _json(_ref("NotificationTargets"), "OK"),
                    "404": _error("Unknown tournament"),
                    **admin_errors,
                },
            }
        },
        "/admin/tournaments/{tournament_id}/cancel": {
            "post": {
                "summary": "Cancel an upcoming or running tournament",
                "security": admin_security,
                "parameters": [tid],
                "responses": {
                    "200": _json(_ref("Tournament"), "Cancelled"),
                    "404": _error("Unknown tournament"),
                    "409": _error("Not upcoming or running"),
                    **admin_errors,
                },
            }
        },
    }
    return {
        "openapi": "3.0.3",
        "info": {
            "title": "cardarena API",
            "version": "1.0.0",
            "description": "Read-only views of tournaments, schedules, standings, matches, replays, bots and games, "
            "plus an admin part behind a bearer token. Lists page with `limit`/`offset`; every "
            'error is JSON `{"error": {"status", "message"}}`.',
        },
        "servers": [{"url": "/api/v1"}],
        "paths": paths,
        "components": {
            "schemas": SCHEMAS,
            "securitySchemes": {
                "adminToken": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "The dashboard's admin token (`CARDARENA_ADMIN_TOKEN`); unset: the admin "
                    "API answers 503 to everyone.",
                }
            },
        },
    }
