"""Tournaments, schedules, counted results, standings snapshots and rating histories.

The repository behind the tournament workers (writers) and the dashboard (reader).

Read API (what the dashboard uses; all return plain JSON-able data or dataclasses):

* :meth:`TournamentStore.list` — tournaments, newest first, optionally by status.
* :meth:`TournamentStore.get` — one :class:`Tournament` (or ``None``).
* :meth:`TournamentStore.standings` — the latest standings snapshot (a dict, see
  ``cardarena_tournament.standings.Standings.to_json``) or ``None`` before the first result;
  :meth:`TournamentStore.crosstable` — the crosstable stored with it (its own key).
* :meth:`TournamentStore.matches` — the schedule in play order, each with its counted result.
* :meth:`TournamentStore.match_ids` — a page of its match ids, most recently counted first.
* :meth:`TournamentStore.rating_history` — one point per counted match of ``bot`` in ``game``;
  :meth:`TournamentStore.rating_lengths` / :meth:`TournamentStore.rating_points` read parts of
  it, and :meth:`TournamentStore.rating_end` says where it stood when a tournament ended.
* :meth:`TournamentStore.ratings` — the current rating of every bot in a game.
* :meth:`TournamentStore.leaderboard` — a page of a game's rated bots, best ordinal first, read
  from an index kept with the ratings (:meth:`TournamentStore.index_ratings` builds it for
  ratings an earlier version stored).
* :meth:`TournamentStore.schedules` / :meth:`TournamentStore.next_run` — recurring tournaments.

Write side, used by the Celery tasks, each step idempotent:

1. :meth:`create` stores a tournament (``upcoming``); creating an existing id is a no-op.
2. :meth:`start` stores its schedule (the expanded match list) and moves it to ``running``.
3. :meth:`record` counts a match result **exactly once** (``SADD`` on the counted set inside a
   Lua script, together with the result and the counter); a second delivery returns ``False``.
4. :meth:`apply_rating` applies one match to the ratings once per match id (a separate applied
   set, checked in a ``WATCH`` transaction), so a crash between 3 and 4 is repaired by the
   redelivered event.
5. :meth:`save_standings` stores a snapshot; :meth:`finish` moves a running tournament whose
   every match is counted to ``finished``.

Statuses: ``upcoming`` → ``running`` → ``finished``; ``upcoming``/``running`` → ``cancelled``.
"""

from __future__ import annotations

import builtins
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import redis

from ..names import name_of_order_bytes, name_order_bytes
from .bots import BotStore
from .keys import key
from .notifications import SCHEDULE_FIELD, NotificationStore
from .values import STATUSES as STATUSES

HEARTBEAT_FORGET_S = 86400.0
"""A heartbeat name (a worker host) silent this long leaves :attr:`TournamentStore.HEARTBEATS`."""


class TournamentError(ValueError):
    """A request the tournament store cannot honour (unknown id, wrong status ...)."""


class UnregisteredEntrants(TournamentError):
    """Entrants that are not registered bots, found in the step that stores a tournament or a
    schedule (``require_registered``): one deleted (``cardarena bot delete``) after the caller
    looked them up, say."""

    def __init__(self, names: Sequence[str]) -> None:
        super().__init__(f"not registered: {', '.join(names)}")
        self.names = list(names)


@dataclass(frozen=True)
class Tournament:
    """A tournament as stored."""

    id: str
    """Identifier (no ``:``); the first part of every match id."""
    game: str
    players: int
    """Seats per match."""
    entrants: tuple[str, ...]
    """Bot names."""
    deal_sets: int
    """Deals per table, each played in every seating."""
    name: str = ""
    format: str = "auto"
    """``auto``: round robin (2 players), all k-subsets or balanced groups, solitaire."""
    seed: str = "0"
    options: dict[str, Any] = field(default_factory=dict)
    """Game options for every match."""
    time_control: dict[str, int] = field(default_factory=dict)
    """``move_ms`` / ``bank_ms`` (the :class:`~cardarena.store.matches.TimeControl` fields)."""
    fault_policy: dict[str, Any] = field(default_factory=dict)
    """The :class:`~cardarena.store.matches.FaultPolicy` fields for every match: time-outs,
    strikes, illegal answers, no-shows (empty: the defaults)."""
    schedule_id: str | None = None
    """The recurring schedule that created this run, if any."""
    queue: str = ""
    """The lane its matches are queued in (``MatchSpec.queue``; ``tournament run`` uses its own)."""
    status: str = "upcoming"
    created_at: float = 0.0
    started_at: float | None = None
    finished_at: float | None = None
    total_matches: int = 0
    counted: int = 0
    """Matches whose result is counted."""
    rated: bool = True
    """Whether its matches update the OpenSkill ratings; ``False``: a practice tournament (its
    standings are computed as usual, the ratings and their histories are left alone).  Records
    stored before the field existed are rated."""

    def to_json(self) -> dict[str, Any]:
        """JSON form."""
        data = asdict(self)
        data["entrants"] = list(self.entrants)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Tournament:
        """Parse the JSON form."""
        return cls(**{**data, "entrants": tuple(data["entrants"])})


@dataclass(frozen=True)
class Schedule:
    """A recurring tournament: a template plus ``cron`` (croniter syntax) or ``every`` seconds."""

    id: str
    template: dict[str, Any]
    """Keyword arguments of :class:`Tournament` (game, players, entrants, deal_sets ...)."""
    cron: str | None = None
    every: float | None = None
    created_at: float = 0.0
    enabled: bool = True

    def to_json(self) -> dict[str, Any]:
        """JSON form."""
        return asdict(self)


_RECORD = """
if redis.call('SADD', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('RPUSH', KEYS[4], ARGV[1])
redis.call('HINCRBY', KEYS[3], 'counted', 1)
return 1
"""

_FINISH = """
if redis.call('HGET', KEYS[1], 'status') ~= 'running' then return 0 end
local total = tonumber(redis.call('HGET', KEYS[1], 'total_matches') or '0')
local counted = tonumber(redis.call('HGET', KEYS[1], 'counted') or '0')
if counted < total then return 0 end
redis.call('HSET', KEYS[1], 'status', 'finished', 'finished_at', ARGV[1])
redis.call('SREM', KEYS[2], ARGV[2])
redis.call('SADD', KEYS[3], ARGV[2])
for i = 5, #KEYS do redis.call('HSETNX', KEYS[4], ARGV[i - 2], redis.call('LLEN', KEYS[i])) end
return 1
"""

_MARK_END = """
for i = 2, #KEYS do redis.call('HSETNX', KEYS[1], ARGV[i - 1], redis.call('LLEN', KEYS[i])) end
return 1
"""

_POINTS = """
local out = {}
for i = 1, #ARGV do out[i] = redis.call('LINDEX', KEYS[1], ARGV[i]) or false end
return out
"""

_LEADERBOARD = """
-- KEYS: the game's leaderboard index (score -ordinal; each member a bot's name_order_bytes, so
-- equal scores in people order), its members by bot name, its ratings hash, a set of names to
-- leave out (or an absent key).  ARGV: offset, limit.  Returns {-1} when the index does not hold
-- every rated bot (none: written by an earlier version), else {shown, bot, rank, rating, ...}.
local n = redis.call('ZCARD', KEYS[1])
if n ~= redis.call('HLEN', KEYS[3]) or n ~= redis.call('HLEN', KEYS[2]) then return {-1} end
local offset, limit = tonumber(ARGV[1]), tonumber(ARGV[2])
local function num(x)
  if x == 'inf' then return math.huge elseif x == '-inf' then return -math.huge end
  return tonumber(x)
end
local gone, below = {}, {}
for _, b in ipairs(redis.call('SMEMBERS', KEYS[4])) do
  local m = redis.call('HGET', KEYS[2], b)
  local at = m and redis.call('ZRANK', KEYS[1], m)
  if at then gone[#gone + 1] = at; below[#below + 1] = num(redis.call('ZSCORE', KEYS[1], m)) end
end
table.sort(gone)
local pos = offset
for _, at in ipairs(gone) do if at <= pos then pos = pos + 1 else break end end
local out = {n - #gone}
local rows = redis.call('ZRANGE', KEYS[1], pos, pos + limit + #gone - 1, 'WITHSCORES')
local left = limit
for i = 1, #rows, 2 do
  if left == 0 then break end
  local bot, score = string.sub(rows[i], string.find(rows[i], '\\0', 1, true) + 1), rows[i + 1]
  if redis.call('SISMEMBER', KEYS[4], bot) == 0 then
    local rank = 1 + redis.call('ZCOUNT', KEYS[1], '-inf', '(' .. score)
    for _, s in ipairs(below) do if s < num(score) then rank = rank - 1 end end
    out[#out + 1] = bot
    out[#out + 1] = rank
    out[#out + 1] = redis.call('HGET', KEYS[3], bot)
    left = left - 1
  end
end
return out
"""

_CLAIM_RUN = """
local due = redis.call('ZSCORE', KEYS[1], ARGV[1])
if due == false or tonumber(due) > tonumber(ARGV[2]) then return false end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
if ARGV[4] == '1' then redis.call('HSET', KEYS[2], 'last_run', due) end
return due
"""

_INT_FIELDS = ("players", "deal_sets", "total_matches", "counted")
_FLOAT_FIELDS = ("created_at", "started_at", "finished_at")
_JSON_FIELDS = ("entrants", "options", "time_control", "fault_policy")
_BOOL_FIELDS = ("rated",)
"""Stored as ``"1"`` / ``"0"``."""


def _s(raw: Any) -> str:
    return raw.decode() if isinstance(raw, bytes) else str(raw)


def _stored(name: str, value: Any) -> Any:
    """A tournament field as a hash value."""
    if name in _JSON_FIELDS:
        return json.dumps(value)
    if name in _BOOL_FIELDS:
        return "1" if value else "0"
    return "" if value is None else value


def _rank_scores(ratings: dict[str, dict[str, Any]]) -> dict[str, float]:
    """The leaderboard index's scores of ``ratings``: each bot's negated ordinal (``mu - 3 sigma``
    when it has none; last when it has neither), by bot name."""

    def ordinal(r: dict[str, Any]) -> float:
        if isinstance(r.get("ordinal"), int | float):
            return float(r["ordinal"])
        if isinstance(r.get("mu"), int | float) and isinstance(r.get("sigma"), int | float):
            return float(r["mu"]) - 3 * float(r["sigma"])
        return float("-inf")

    return {bot: -ordinal(r) for bot, r in ratings.items()}


def tournament_id_problem(tid: str) -> str | None:
    """What is wrong with ``tid`` as a tournament id, or ``None``.  An id is the first part of
    its match ids and keys (``:``-separated) and a segment of its URLs on the dashboard
    (``/tournaments/<id>``): so no ``:``, no ``/``, and not ``.`` or ``..`` (which a browser
    resolves away)."""
    if not tid or ":" in tid or "/" in tid or tid in (".", ".."):
        return "must be non-empty, contain no ':' or '/', and not be '.' or '..'"
    return None


MAX_NAME = 200
"""Longest tournament name (the admin API's OpenAPI document says so too)."""


def tournament_name_problem(name: str) -> str | None:
    """What is wrong with ``name`` as a tournament name, or ``None`` (the empty name: the
    default, ``<Game> <n>p``).  A name is shown in terminals (``cardarena tournament list``),
    log lines, notifications and pages: at most :data:`MAX_NAME` characters, every one printable
    (``str.isprintable``), so no control character (a terminal escape, a line break, a tab) and
    no invisible formatting character (the bidirectional overrides U+202A–U+202E and isolates
    U+2066–U+2069, which reorder the text around them, zero-width ones)."""
    if len(name) > MAX_NAME:
        return f"a tournament name has at most {MAX_NAME} characters, not {len(name)}"
    bad = next((i for i, c in enumerate(name) if not c.isprintable()), None)
    if bad is not None:
        return (
            f"a tournament name must consist of printable characters: U+{ord(name[bad]):04X} at position {bad + 1} "
            "is a control or invisible formatting character"
        )
    return None


def _bot_records(bots: Sequence[str]) -> builtins.list[str]:
    """The keys of the records of ``bots`` (:class:`~cardarena.store.bots.BotStore`)."""
    return [BotStore.record_key(b) for b in bots]


def _require_registered(pipe: Any, bots: Sequence[str]) -> None:
    """On a pipeline watching their records (:func:`_bot_records`), before ``multi``: raise
    :class:`UnregisteredEntrants` unless every one of ``bots`` is registered."""
    if not bots:
        return
    records = _bot_records(bots)
    if int(pipe.exists(*records)) == len(records):
        return
    raise UnregisteredEntrants([b for b, r in zip(bots, records, strict=True) if not pipe.exists(r)])


class TournamentStore:
    """Repository of tournaments, schedules, results, standings and ratings on one client."""

    def __init__(self, client: redis.Redis) -> None:
        self.r: Any = client
        self._record = client.register_script(_RECORD)
        self._finish = client.register_script(_FINISH)
        self._claim_run = client.register_script(_CLAIM_RUN)
        self._mark_end = client.register_script(_MARK_END)
        self._points = client.register_script(_POINTS)
        self._leaderboard = client.register_script(_LEADERBOARD)

    # ------------------------------------------------------------------ keys
    @staticmethod
    def _h(tid: str) -> str:
        return key("tournament", tid)

    @staticmethod
    def status_set(status: str) -> str:
        """The set of the ids of the tournaments in ``status`` (one of :data:`STATUSES`)."""
        return key("tournaments", "status", status)

    ALL = property(lambda self: key("tournaments", "all"))
    DUE = property(lambda self: key("schedules", "due"))
    ENTERED = property(lambda self: key("tournaments", "entered"))
    """The set of the ids of the tournaments whose entrants are in :meth:`entries_key` (those
    stored before that index existed are added by :meth:`index_entries`)."""

    @staticmethod
    def entries_key(bot: str) -> str:
        """The set of the ids of the tournaments ``bot`` is an entrant of (its first tournament
        entry is written with the tournament, in one step: ``cardarena bot delete`` reads it)."""
        return key("tournaments", "bot", bot)

    @staticmethod
    def schedule_key(sid: str) -> str:
        """The hash of schedule ``sid`` (``json``: its :class:`Schedule`)."""
        return key("schedule", sid)

    @staticmethod
    def ratings_key(game: str) -> str:
        """The hash of the current ratings in ``game`` (bot -> rating)."""
        return key("ratings", game)

    # ------------------------------------------------------------------ tournaments
    def create(self, t: Tournament, *, notify: Sequence[str] = (), require_registered: bool = False) -> bool:
        """Store a new tournament (status ``upcoming``), in one step with its entries
        (:meth:`entries_key`); ``False`` if the id exists.  ``notify``: webhook URLs told when it
        ends, stored with it but apart from its record (:mod:`.notifications`: they are secrets,
        and the record is public).  ``require_registered``: :class:`UnregisteredEntrants`
        (nothing stored) unless every entrant is a registered bot, checked in the same step (a
        bot deleted meanwhile cannot end up an entrant)."""
        problem = tournament_id_problem(t.id)
        if problem:
            raise TournamentError(f"bad tournament id {t.id!r}: {problem}")
        data = t.to_json()
        data["status"] = "upcoming"
        data["created_at"] = t.created_at or time.time()
        h = self._h(t.id)
        mapping = {k: _stored(k, v) for k, v in data.items()}
        entrants = list(dict.fromkeys(t.entrants))

        def tx(pipe: Any) -> bool:
            if pipe.hexists(h, "id"):
                return False
            if require_registered:
                _require_registered(pipe, entrants)
            pipe.multi()
            pipe.hset(h, mapping=mapping)
            pipe.zadd(self.ALL, {t.id: data["created_at"]})
            pipe.sadd(self.status_set("upcoming"), t.id)
            for bot in entrants:
                pipe.sadd(self.entries_key(bot), t.id)
            pipe.sadd(self.ENTERED, t.id)
            NotificationStore(self.r).add_targets(pipe, t.id, notify)
            return True

        watched = [h, *(_bot_records(entrants) if require_registered else [])]
        created: bool = self.r.transaction(tx, *watched, value_from_callable=True)
        return created

    def index_entries(self, tids: Sequence[str], chunk: int = 1000) -> None:
        """Add the entrants of the tournaments ``tids`` (stored before :meth:`entries_key`
        existed) to it; idempotent, safe beside new tournaments."""
        for start in range(0, len(tids), chunk):
            part = list(tids[start : start + chunk])
            read = self.r.pipeline(transaction=False)
            for tid in part:
                read.hget(self._h(tid), "entrants")
            write = self.r.pipeline()
            for tid, raw in zip(part, read.execute(), strict=True):
                for bot in json.loads(raw) if raw else []:
                    write.sadd(self.entries_key(str(bot)), tid)
                write.sadd(self.ENTERED, tid)
            write.execute()

    def get(self, tid: str) -> Tournament | None:
        """The tournament, or ``None`` if unknown (also an id with ``:``, which no tournament
        has: ``tournament:<id>:<part>`` is a key of another type)."""
        if not tid or ":" in tid:
            return None
        return self._parse(self.r.hgetall(self._h(tid)))

    @staticmethod
    def _parse(raw: dict[bytes, bytes]) -> Tournament | None:
        if not raw or b"status" not in raw:
            return None
        d = {_s(k): _s(v) for k, v in raw.items()}
        out: dict[str, Any] = {}
        for k, v in d.items():
            if k in _JSON_FIELDS:
                out[k] = json.loads(v)
            elif k in _INT_FIELDS:
                out[k] = int(v or 0)
            elif k in _FLOAT_FIELDS:
                out[k] = float(v) if v else (0.0 if k == "created_at" else None)
            elif k in _BOOL_FIELDS:
                out[k] = v != "0"
            elif k == "schedule_id":
                out[k] = v or None
            else:
                out[k] = v
        return Tournament.from_json(out)

    def require(self, tid: str) -> Tournament:
        """The tournament; raises :class:`TournamentError` if unknown."""
        t = self.get(tid)
        if t is None:
            raise TournamentError(f"unknown tournament {tid!r}")
        return t

    def list(self, status: str | Sequence[str] | None = None, *, limit: int = 100, offset: int = 0) -> list[Tournament]:
        """Tournaments, newest first (from the ``offset``-th, at most ``limit``); only those with
        ``status`` (one, or any of several) if given.  Reads those records only, in one round
        trip."""
        wanted = [status] if isinstance(status, str) else list(status) if status is not None else None
        for one in wanted or []:
            if one not in STATUSES:
                raise TournamentError(f"unknown status {one!r}; known: {', '.join(STATUSES)}")
        if wanted is None:
            ids = [_s(x) for x in self.r.zrevrange(self.ALL, offset, offset + limit - 1)] if limit > 0 else []
        else:
            ids = [_s(x) for x in self.r.zrevrange(self.ALL, 0, -1)]
            members = {_s(x) for x in self.r.sunion([self.status_set(one) for one in wanted])} if wanted else set()
            ids = [i for i in ids if i in members][offset : offset + limit]
        if not ids:
            return []
        pipe = self.r.pipeline(transaction=False)
        for i in ids:
            pipe.hgetall(self._h(i))
        return [t for t in map(self._parse, pipe.execute()) if t is not None]

    def _move(self, tid: str, new: str, allowed: Sequence[str], stamp: str | None) -> bool:
        h = self._h(tid)

        def tx(pipe: Any) -> bool:
            cur = pipe.hget(h, "status")
            if cur is None:
                raise TournamentError(f"unknown tournament {tid!r}")
            cur = _s(cur)
            if cur not in allowed:
                pipe.multi()
                return False
            pipe.multi()
            pipe.hset(h, "status", new)
            if stamp:
                pipe.hset(h, stamp, time.time())
            pipe.srem(self.status_set(cur), tid)
            pipe.sadd(self.status_set(new), tid)
            return True

        result: bool = self.r.transaction(tx, h, value_from_callable=True)
        return result

    def start(self, tid: str, matches: Sequence[dict[str, Any]]) -> bool:
        """Store the schedule (once) and move ``upcoming`` → ``running``; ``False`` if it was not upcoming.

        ``matches`` are JSON dicts in play order with at least ``match_id`` and ``seats``.
        """
        sched = key("tournament", tid, "schedule")
        if not self.r.exists(sched):
            pipe = self.r.pipeline()
            pipe.delete(sched)
            if matches:
                pipe.rpush(sched, *[json.dumps(m, sort_keys=True) for m in matches])
            units = {m["match_id"]: m["deal_set"] for m in matches if m.get("deal_set")}
            if units:  # read while it runs (deal_set_of), dropped when it ends
                pipe.hset(self._deal_sets(tid), mapping=units)
            pipe.hset(self._h(tid), "total_matches", len(matches))
            pipe.execute()
        return self._move(tid, "running", ("upcoming",), "started_at")

    @staticmethod
    def _deal_sets(tid: str) -> str:
        return key("tournament", tid, "deal_sets")

    def deal_set_of(self, tid: str, match_id: str) -> str | None:
        """The deal set of a match of a running tournament (its schedule's ``deal_set``), or
        ``None`` (unknown match, or the tournament has ended: the index is dropped then)."""
        raw = self.r.hget(self._deal_sets(tid), match_id)
        return None if raw is None else _s(raw)

    def cancel(self, tid: str) -> bool:
        """Cancel an upcoming or running tournament; ``False`` if it was neither.  Its matches
        not yet played are withdrawn (:meth:`MatchStore.withdraw
        <cardarena.store.matches.MatchStore.withdraw>`); one being played finishes and is not
        counted."""
        if not self._move(tid, "cancelled", ("upcoming", "running"), "finished_at"):
            return False
        t = self.get(tid)
        if t is not None:  # no more of its matches are rated (only live tournaments' are)
            bots = list(t.entrants)
            self._mark_end(keys=[self._rating_end(tid), *self._histories(t.game, bots)], args=bots)
        from .matches import MatchStore

        MatchStore(self.r).withdraw([m["match_id"] for m in self.schedule_of(tid)], "tournament cancelled")
        self.r.delete(self._deal_sets(tid))
        return True

    def schedule_of(self, tid: str) -> builtins.list[dict[str, Any]]:
        """The stored schedule (match JSON dicts in play order)."""
        return [json.loads(x) for x in self.r.lrange(key("tournament", tid, "schedule"), 0, -1)]

    def match_ids(self, tid: str, start: int = 0, count: int = 50, *, bot: str | None = None) -> builtins.list[str]:
        """A page of the tournament's match ids: those counted, most recently counted first,
        then the others (queued, being played, withdrawn) in play order.  Reads the
        tournament's own lists only (the counted ones: the page alone), never the matches of
        other tournaments.  ``bot``: only the matches that seat it, in the same order (read from
        the schedule's seats: the whole schedule and counted order, never a match record)."""
        if count <= 0:
            return []
        if bot is not None:
            return self._match_ids_of(tid, bot)[start : start + count]
        done = key("tournament", tid, "counted_order")
        counted = int(self.r.llen(done))
        out: builtins.list[str] = []
        if start < counted:
            hi = counted - 1 - start
            out = [_s(x) for x in reversed(self.r.lrange(done, max(0, hi - count + 1), hi))]
        skip = max(0, start - counted)
        sched = key("tournament", tid, "schedule")
        pos = 0
        while len(out) < count and (chunk := self.r.lrange(sched, pos, pos + 999)):
            pos += len(chunk)
            ids = [str(json.loads(x)["match_id"]) for x in chunk]
            for mid, is_counted in zip(ids, self.counted_among(tid, ids), strict=True):
                if is_counted:
                    continue
                if skip:
                    skip -= 1
                elif len(out) < count:
                    out.append(mid)
        return out

    def _match_ids_of(self, tid: str, bot: str) -> builtins.list[str]:
        """Every match id of the tournament that seats ``bot``, in :meth:`match_ids`'s order."""
        sched = key("tournament", tid, "schedule")
        mine: builtins.list[str] = []
        pos = 0
        while chunk := self.r.lrange(sched, pos, pos + 999):
            pos += len(chunk)
            for raw in chunk:
                entry = json.loads(raw)
                if bot in (entry.get("seats") or ()):
                    mine.append(str(entry["match_id"]))
        if not mine:
            return []
        flags = self.counted_among(tid, mine)
        counted = {mid for mid, is_counted in zip(mine, flags, strict=True) if is_counted}
        recent: builtins.list[str] = []
        if counted:
            order = [_s(x) for x in self.r.lrange(key("tournament", tid, "counted_order"), 0, -1)]
            recent = [mid for mid in reversed(order) if mid in counted]
        return recent + [mid for mid, is_counted in zip(mine, flags, strict=True) if not is_counted]

    def record(self, tid: str, match_id: str, result: dict[str, Any]) -> bool:
        """Count one match result exactly once; ``False`` if it was already counted."""
        return bool(
            self._record(
                keys=[
                    key("tournament", tid, "counted"),
                    key("tournament", tid, "results"),
                    self._h(tid),
                    key("tournament", tid, "counted_order"),
                ],
                args=[match_id, json.dumps(result, sort_keys=True)],
            )
        )

    def record_many(self, tid: str, items: Sequence[tuple[str, dict[str, Any]]]) -> builtins.list[bool]:
        """:meth:`record` each ``(match_id, result)`` in order, in one round trip; each entry is
        ``False`` if that match was already counted (the same script, so still exactly once)."""
        if not items:
            return []
        keys = [
            key("tournament", tid, "counted"),
            key("tournament", tid, "results"),
            self._h(tid),
            key("tournament", tid, "counted_order"),
        ]
        pipe = self.r.pipeline(transaction=False)
        for match_id, result in items:
            self._record(keys=keys, args=[match_id, json.dumps(result, sort_keys=True)], client=pipe)
        return [bool(x) for x in pipe.execute()]

    def is_counted(self, tid: str, match_id: str) -> bool:
        """Whether the match's result is counted."""
        return bool(self.r.sismember(key("tournament", tid, "counted"), match_id))

    def counted_among(self, tid: str, match_ids: Sequence[str]) -> builtins.list[bool]:
        """:meth:`is_counted` for each id, in one round trip."""
        if not match_ids:
            return []
        return [bool(x) for x in self.r.smismember(key("tournament", tid, "counted"), list(match_ids))]

    def results(self, tid: str) -> dict[str, dict[str, Any]]:
        """Counted results by match id."""
        raw = self.r.hgetall(key("tournament", tid, "results"))
        return {_s(k): json.loads(v) for k, v in raw.items()}

    def finish(self, tid: str) -> bool:
        """``running`` → ``finished`` if every match is counted; ``True`` if it changed now.

        In the same step it notes where each entrant's rating history ends (:meth:`rating_end`):
        every counted match was rated before it was counted, so the histories then hold all of
        the tournament's points and nothing later."""
        t = self.get(tid)
        bots = list(t.entrants) if t is not None else []
        done = bool(
            self._finish(
                keys=[
                    self._h(tid),
                    self.status_set("running"),
                    self.status_set("finished"),
                    self._rating_end(tid),
                    *self._histories(t.game if t is not None else "", bots),
                ],
                args=[time.time(), tid, *bots],
            )
        )
        if done:
            self.r.delete(self._deal_sets(tid))
        return done

    def save_standings(self, tid: str, snapshot: dict[str, Any], crosstable: dict[str, Any] | None = None) -> bool:
        """Store the latest standings snapshot and, given, the crosstable computed with it (from
        the same results), both at once: a reader never sees one newer than the other.  The
        crosstable has a key of its own (:meth:`crosstable`), so what polls the standings
        snapshot does not read it.

        A snapshot of a tournament that was not finished yet never replaces a finished one: a
        worker that read the results before the last match was counted may save after the
        worker that finished the tournament, and the final standings (which the end's
        notification posts) must not go back to that older read.  ``False`` if not saved."""
        standings = key("tournament", tid, "standings")
        final = snapshot.get("status") == "finished"

        def tx(pipe: Any) -> bool:
            if not final:
                raw = pipe.get(standings)
                if raw and json.loads(raw).get("status") == "finished":
                    return False
            pipe.multi()
            pipe.set(standings, json.dumps(snapshot, sort_keys=True))
            if crosstable is not None:
                pipe.set(key("tournament", tid, "crosstable"), json.dumps(crosstable, separators=(",", ":")))
            return True

        return bool(self.r.transaction(tx, standings, value_from_callable=True))

    def crosstable(self, tid: str) -> dict[str, Any] | None:
        """The crosstable stored with the latest standings snapshot (``cardarena_tournament.
        standings.Crosstable.to_json``), or ``None``: none computed yet (a solitaire never has one)."""
        if not tid or ":" in tid:
            return None
        raw = self.r.get(key("tournament", tid, "crosstable"))
        return json.loads(raw) if raw else None

    def fill_crosstable(self, tid: str, crosstable: dict[str, Any]) -> bool:
        """Store ``crosstable`` unless one is stored already (a tournament whose snapshot an
        earlier version saved without one); ``True`` if it was stored."""
        return bool(
            self.r.set(key("tournament", tid, "crosstable"), json.dumps(crosstable, separators=(",", ":")), nx=True)
        )

    def fill_standings_field(self, tid: str, name: str, value: Callable[[], Any]) -> bool:
        """Set one field of the stored standings snapshot to ``value()`` if the snapshot exists
        and lacks it, leaving every other field as it is; ``True`` if it was set.  A snapshot
        saved meanwhile makes it read again (``WATCH``), so a newer snapshot is never replaced."""
        standings = key("tournament", tid, "standings")

        def tx(pipe: Any) -> bool:
            raw = pipe.get(standings)
            snapshot = json.loads(raw) if raw else None
            if not isinstance(snapshot, dict) or name in snapshot:
                return False
            snapshot[name] = value()
            pipe.multi()
            pipe.set(standings, json.dumps(snapshot, sort_keys=True))
            return True

        done: bool = self.r.transaction(tx, standings, value_from_callable=True)
        return done

    def ids_in(self, status: str) -> builtins.list[str]:
        """The ids of every tournament in ``status`` (one of :data:`STATUSES`), in name order."""
        return sorted(_s(x) for x in self.r.smembers(self.status_set(status)))

    def claim_standings(self, tid: str, *, lease_s: float = 120.0) -> bool:
        """Take the turn to recompute the live standings: ``True`` unless another process
        holds it (computing, or :meth:`hold_standings` since).  The turn lapses after
        ``lease_s`` if its holder dies."""
        return bool(self.r.set(key("tournament", tid, "standings_turn"), "1", nx=True, px=int(lease_s * 1000)))

    def hold_standings(self, tid: str, seconds: float) -> None:
        """Nobody recomputes the live standings for ``seconds`` from now (see :meth:`claim_standings`)."""
        self.r.set(key("tournament", tid, "standings_turn"), "1", px=max(1, int(seconds * 1000)))

    def standings(self, tid: str) -> dict[str, Any] | None:
        """The latest standings snapshot, or ``None`` before the first counted result."""
        raw = self.r.get(key("tournament", tid, "standings"))
        return json.loads(raw) if raw else None

    def matches(self, tid: str) -> builtins.list[dict[str, Any]]:
        """The schedule in play order; each entry carries ``counted`` and ``result`` (or ``None``)."""
        results = self.results(tid)
        out = []
        for m in self.schedule_of(tid):
            res = results.get(m["match_id"])
            out.append({**m, "counted": res is not None, "result": res})
        return out

    # ------------------------------------------------------------------ ratings
    def ratings(self, game: str) -> dict[str, dict[str, float]]:
        """Current rating per bot in ``game``: ``{"mu":..., "sigma":..., "ordinal":..., "matches":...}``."""
        raw = self.r.hgetall(key("ratings", game))
        return {_s(k): json.loads(v) for k, v in raw.items()}

    def apply_rating(
        self,
        game: str,
        match_id: str,
        bots: Sequence[str],
        update: Callable[[dict[str, dict[str, float]]], dict[str, dict[str, float]]],
    ) -> bool:
        """Apply one match to the ratings of ``bots`` once per match id.

        ``update`` maps the bots' current ratings (missing bots absent) to their new ratings;
        it may be called more than once if another writer interferes (optimistic locking).
        Appends one history point per bot.  ``False`` if this match was already applied.
        """
        applied = key("ratings", game, "applied")
        table = key("ratings", game)

        def tx(pipe: Any) -> bool:
            if pipe.sismember(applied, match_id):
                pipe.multi()
                return False
            current = {}
            for bot in bots:
                raw = pipe.hget(table, bot)
                if raw:
                    current[bot] = json.loads(raw)
            new = update(current)
            now = time.time()
            pipe.multi()
            pipe.sadd(applied, match_id)
            self._index_board(pipe, game, new)
            for bot, rating in new.items():
                pipe.hset(table, bot, json.dumps(rating, sort_keys=True))
                point = {**rating, "match_id": match_id, "t": now}
                pipe.rpush(key("ratings", game, "history", bot), json.dumps(point, sort_keys=True))
            return True

        result: bool = self.r.transaction(tx, applied, table, value_from_callable=True)
        return result

    def apply_ratings(
        self,
        game: str,
        items: Sequence[
            tuple[str, Sequence[str], Callable[[dict[str, dict[str, float]]], dict[str, dict[str, float]]]]
        ],
    ) -> builtins.list[bool]:
        """:meth:`apply_rating` for a batch of ``(match_id, bots, update)`` in order, in one
        ``WATCH`` transaction (a constant number of round trips for the batch).

        Each ``update`` sees the ratings left by the matches before it in the batch.  Each
        entry is ``False`` if that match was already applied (before, or earlier in the batch).
        """
        if not items:
            return []
        applied = key("ratings", game, "applied")
        table = key("ratings", game)
        ids = [mid for mid, _, _ in items]
        bots = sorted({b for _, seats, _ in items for b in seats})

        def tx(pipe: Any) -> builtins.list[bool]:
            done = pipe.smismember(applied, ids)
            state = {b: json.loads(raw) for b, raw in zip(bots, pipe.hmget(table, bots), strict=True) if raw}
            changed: dict[str, dict[str, float]] = {}
            history: dict[str, builtins.list[str]] = {}
            seen: set[str] = set()
            out: builtins.list[bool] = []
            for (mid, seats, update), flag in zip(items, done, strict=True):
                if flag or mid in seen:
                    out.append(False)
                    continue
                seen.add(mid)
                new = update({b: state[b] for b in seats if b in state})
                now = time.time()
                for bot, rating in new.items():
                    state[bot] = changed[bot] = rating
                    point = {**rating, "match_id": mid, "t": now}
                    history.setdefault(bot, []).append(json.dumps(point, sort_keys=True))
                out.append(True)
            pipe.multi()
            if seen:
                pipe.sadd(applied, *sorted(seen))
            if changed:
                pipe.hset(table, mapping={b: json.dumps(r, sort_keys=True) for b, r in changed.items()})
            self._index_board(pipe, game, changed)
            for bot, points in history.items():
                pipe.rpush(key("ratings", game, "history", bot), *points)
            return out

        result: builtins.list[bool] = self.r.transaction(tx, applied, table, value_from_callable=True)
        return result

    @staticmethod
    def _board(game: str) -> str:
        """The leaderboard index of ``game``: a sorted set of its rated bots scored by their
        negated ordinal, each member the bot's :func:`~cardarena.names.name_order_bytes`, so
        ``ZRANGE`` lists them best first and equal ordinals in the order people look for names
        (Redis orders members of equal score by their bytes); written in the same transaction
        as the ratings, with :meth:`_board_members`."""
        return key("ratings", game, "leaderboard")

    @staticmethod
    def _board_members(game: str) -> str:
        """The hash of each rated bot's member in :meth:`_board` (bot name -> member)."""
        return key("ratings", game, "leaderboard", "members")

    _EARLIER_BOARD = "ranked"
    """The last part of the key of the index an earlier version kept (bare names as members, so
    equal ordinals in byte order); :meth:`index_ratings` deletes it."""

    def _index_board(self, pipe: Any, game: str, ratings: dict[str, dict[str, Any]]) -> None:
        """Queue on ``pipe`` (inside ``MULTI``) the leaderboard index entries of ``ratings``."""
        if not ratings:
            return
        members = {bot: name_order_bytes(bot) for bot in ratings}
        pipe.zadd(self._board(game), {members[b]: score for b, score in _rank_scores(ratings).items()})
        pipe.hset(self._board_members(game), mapping=members)

    def index_ratings(self, game: str) -> int:
        """Build the leaderboard index of ``game`` again from its ratings (those an earlier
        version stored without it, or with the index it kept); returns how many bots it holds.
        Safe beside writers: a rating applied meanwhile makes it start again (``WATCH``)."""
        table = key("ratings", game)

        def tx(pipe: Any) -> int:
            current = {_s(b): json.loads(raw) for b, raw in pipe.hgetall(table).items()}
            pipe.multi()
            pipe.delete(self._board(game), self._board_members(game), key("ratings", game, self._EARLIER_BOARD))
            self._index_board(pipe, game, current)
            return len(current)

        count: int = self.r.transaction(tx, table, value_from_callable=True)
        return count

    LEADERBOARD_BATCH = 200
    """Bots read per round trip by a leaderboard filtered by ``min_matches``."""
    LEADERBOARD_SCAN = 5000
    """At most this many bots of the index are read for one filtered leaderboard page."""

    def leaderboard(
        self,
        game: str,
        offset: int = 0,
        limit: int = 50,
        *,
        leave_out: str | None = None,
        min_matches: int = 0,
    ) -> tuple[builtins.list[dict[str, Any]], int | None]:
        """A page of the bots rated in ``game``, best first by ordinal (equal ordinals share a
        rank, the next rank skips: 1, 1, 3; within a rank in the order people look for names,
        :func:`~cardarena.names.name_order`, as every list of bots), and how many bots the
        whole board has.  Each row: ``bot``, ``rank`` and the stored rating (``mu``, ``sigma``,
        ``ordinal``, ``matches``).  ``leave_out``: the key of a set of bot names not on the board
        (nor counted in the ranks), e.g. ``BotStore.RETIRED``.  One round trip from the index
        (:meth:`_board`), whatever the number of bots; built first if an earlier version's
        ratings are not in it (:meth:`index_ratings`).

        ``min_matches``: only bots with at least that many rated matches, ranked among
        themselves (:meth:`_leaderboard_filtered`; the total is ``None`` when its bound stopped
        the reading before the end of the board)."""
        if min_matches > 0:
            return self._leaderboard_filtered(game, offset, limit, leave_out, min_matches)
        keys = [self._board(game), self._board_members(game), key("ratings", game)]
        keys.append(leave_out or key("ratings", game, "none"))
        raw = self._leaderboard(keys=keys, args=[offset, limit])
        if int(raw[0]) < 0:
            self.index_ratings(game)
            raw = self._leaderboard(keys=keys, args=[offset, limit])
        rows = [{"bot": _s(raw[i]), "rank": int(raw[i + 1]), **json.loads(raw[i + 2])} for i in range(1, len(raw), 3)]
        return rows, max(0, int(raw[0]))

    def _leaderboard_filtered(
        self, game: str, offset: int, limit: int, leave_out: str | None, min_matches: int
    ) -> tuple[builtins.list[dict[str, Any]], int | None]:
        """The index cannot filter by matches: read it from the top in batches of
        :attr:`LEADERBOARD_BATCH` (names and scores, then their ratings), ranking the bots that
        qualify, until the page is full and one more qualifies (or the board ends), reading at
        most :attr:`LEADERBOARD_SCAN` bots.  The total is exact when the board was read to its
        end, else ``None``."""
        ranked, table = self._board(game), key("ratings", game)
        pipe = self.r.pipeline(transaction=False)
        pipe.zcard(ranked)
        pipe.hlen(self._board_members(game))
        pipe.hlen(table)
        pipe.smembers(leave_out or key("ratings", game, "none"))
        size, members, rated, gone_raw = pipe.execute()
        if not int(size) == int(members) == int(rated):
            self.index_ratings(game)
        gone = {_s(b) for b in gone_raw}
        rows: builtins.list[dict[str, Any]] = []
        shown, rank, last_score = 0, 0, None
        start = 0
        while start < self.LEADERBOARD_SCAN:
            count = min(self.LEADERBOARD_BATCH, self.LEADERBOARD_SCAN - start)
            found_raw = self.r.zrange(ranked, start, start + count - 1, withscores=True)
            batch = [(name_of_order_bytes(m), float(sc)) for m, sc in found_raw]
            if not batch:
                return rows, shown
            found = self.r.hmget(table, [b for b, _ in batch])
            for (bot, score), raw in zip(batch, found, strict=True):
                rating = json.loads(raw) if raw else None
                if bot in gone or rating is None or float(rating.get("matches", 0)) < min_matches:
                    continue
                if score != last_score:
                    rank, last_score = shown + 1, score
                if offset <= shown < offset + limit:
                    rows.append({"bot": bot, "rank": rank, **rating})
                shown += 1
                if shown > offset + limit:
                    return rows, None
            if len(batch) < count:
                return rows, shown
            start += count
        return rows, None

    def is_rated(self, game: str, match_id: str) -> bool:
        """Whether the match has been applied to the ratings of ``game``."""
        return bool(self.r.sismember(key("ratings", game, "applied"), match_id))

    def rated_among(self, game: str, match_ids: Sequence[str]) -> builtins.list[bool]:
        """:meth:`is_rated` for each id, in one round trip."""
        if not match_ids:
            return []
        return [bool(x) for x in self.r.smismember(key("ratings", game, "applied"), list(match_ids))]

    def rating_history(self, bot: str, game: str) -> builtins.list[dict[str, Any]]:
        """One point per counted match: ``mu``, ``sigma``, ``ordinal``, ``match_id``, ``t``.

        The whole history, which grows with every rated match of the bot (a term of nightly
        tournaments: thousands of points); readers that need a part use
        :meth:`rating_lengths` and :meth:`rating_points`."""
        return [json.loads(x) for x in self.r.lrange(key("ratings", game, "history", bot), 0, -1)]

    @staticmethod
    def _histories(game: str, bots: Sequence[str]) -> builtins.list[str]:
        return [key("ratings", game, "history", b) for b in bots]

    @staticmethod
    def _rating_end(tid: str) -> str:
        return key("tournament", tid, "rating_end")

    def rating_lengths(self, game: str, bots: Sequence[str]) -> dict[str, int]:
        """How many points each bot's rating history in ``game`` has (0 if none); one round trip."""
        pipe = self.r.pipeline(transaction=False)
        for h in self._histories(game, bots):
            pipe.llen(h)
        return {b: int(n) for b, n in zip(bots, pipe.execute(), strict=True)}

    def rating_points(
        self, game: str, wanted: dict[str, Sequence[int]]
    ) -> dict[str, builtins.list[dict[str, Any] | None]]:
        """The points of each bot's rating history at the given indices (``None`` past its
        end), in one round trip, without reading the rest of the history."""
        pipe = self.r.pipeline(transaction=False)
        bots = [b for b in wanted if wanted[b]]
        for b in bots:
            self._points(keys=self._histories(game, [b]), args=[int(i) for i in wanted[b]], client=pipe)
        out: dict[str, builtins.list[dict[str, Any] | None]] = {b: [] for b in wanted}
        for b, raw in zip(bots, pipe.execute() if bots else [], strict=True):
            out[b] = [json.loads(x) if x else None for x in raw]
        return out

    def rating_end(self, tid: str) -> dict[str, int] | None:
        """Per entrant, the length its rating history had when the tournament finished or was
        cancelled (its points ``0 .. n-1`` are those up to the end); ``None`` before the end, or
        for a tournament that ended before this was recorded."""
        raw = self.r.hgetall(self._rating_end(tid))
        return {_s(k): int(v) for k, v in raw.items()} if raw else None

    # ------------------------------------------------------------------ schedules
    def create_schedule(
        self, s: Schedule, first_run: float, *, notify: Sequence[str] = (), require_registered: bool = False
    ) -> bool:
        """Store a recurring tournament, first due at ``first_run``, in one step; ``False`` if
        the id exists.  ``notify``: webhook URLs each run is given (:meth:`schedule_targets`),
        kept out of the schedule's JSON, which the dashboard shows.  ``require_registered``:
        :class:`UnregisteredEntrants` (nothing stored) unless every entrant the template names
        (not ``"all"``) is a registered bot, checked in the same step."""
        if not s.id or ":" in s.id:
            raise TournamentError(f"bad schedule id {s.id!r}")
        if (s.cron is None) == (s.every is None):
            raise TournamentError("a schedule needs exactly one of cron or every")
        h = self.schedule_key(s.id)
        data = s.to_json()
        data["created_at"] = s.created_at or time.time()
        named = s.template.get("entrants")
        entrants = list(dict.fromkeys(str(e) for e in named)) if require_registered and isinstance(named, list) else []

        def tx(pipe: Any) -> bool:
            if pipe.hexists(h, "id"):
                return False
            _require_registered(pipe, entrants)
            pipe.multi()
            pipe.hset(h, mapping={"id": s.id, "json": json.dumps(data, sort_keys=True)})
            if notify:
                pipe.hset(h, SCHEDULE_FIELD, json.dumps(list(notify)))
            pipe.zadd(self.DUE, {s.id: first_run})
            return True

        created: bool = self.r.transaction(tx, h, *_bot_records(entrants), value_from_callable=True)
        return created

    def get_schedule(self, sid: str) -> Schedule | None:
        """The schedule, or ``None``."""
        raw = self.r.hget(key("schedule", sid), "json")
        return Schedule(**json.loads(raw)) if raw else None

    def schedule_targets(self, sid: str) -> builtins.list[str]:
        """The webhook URLs the schedule gives each of its runs (empty: none)."""
        raw = self.r.hget(key("schedule", sid), SCHEDULE_FIELD)
        return list(json.loads(raw)) if raw else []

    def schedules(self) -> builtins.list[Schedule]:
        """Every schedule."""
        ids = [_s(x) for x in self.r.zrange(self.DUE, 0, -1)]
        out = [self.get_schedule(i) for i in ids]
        return [s for s in out if s is not None]

    def next_run(self, schedule_id: str) -> float | None:
        """When the schedule is next due (unix time), or ``None`` if unknown or disabled."""
        raw = self.r.zscore(self.DUE, schedule_id)
        return float(raw) if raw is not None else None

    def due(self, now: float) -> builtins.list[str]:
        """Schedule ids due at ``now``."""
        return [_s(x) for x in self.r.zrangebyscore(self.DUE, "-inf", now)]

    def claim_run(self, schedule_id: str, now: float, next_at: float, *, started: bool = True) -> float | None:
        """Atomically take a due run: returns the due time and moves the schedule to ``next_at``;
        ``None`` if it was not due (another process took it).  ``started=False``: the run was
        skipped (``last_run`` keeps naming the latest run that was started)."""
        got = self._claim_run(
            keys=[self.DUE, key("schedule", schedule_id)], args=[schedule_id, now, next_at, "1" if started else "0"]
        )
        return float(got) if got is not None else None

    def last_run(self, schedule_id: str) -> float | None:
        """The due time of the schedule's latest run started (its tournament is
        ``<schedule>-<int(due)>``), or ``None``."""
        raw = self.r.hget(key("schedule", schedule_id), "last_run")
        return float(raw) if raw is not None else None

    def schedule_failed(self, schedule_id: str, message: str, at: float) -> None:
        """Note that the run due now could not be created (shown by :meth:`schedule_info`)."""
        self.r.hset(key("schedule", schedule_id), mapping={"last_error": message, "last_error_at": repr(at)})

    def schedule_info(self, schedule_id: str) -> dict[str, Any] | None:
        """The schedule as JSON plus ``next_run``, ``last_run`` (due time of the latest run
        started), ``last_tournament`` (its id) and ``last_error`` / ``last_error_at`` (the
        latest run that could not be created, if any); ``None`` if unknown."""
        pipe = self.r.pipeline(transaction=False)
        pipe.hgetall(key("schedule", schedule_id))
        pipe.zscore(self.DUE, schedule_id)
        raw, due = pipe.execute()
        fields = {_s(k): _s(v) for k, v in raw.items()}
        if "json" not in fields:
            return None
        info: dict[str, Any] = json.loads(fields["json"])
        last = float(fields["last_run"]) if "last_run" in fields else None
        info["next_run"] = float(due) if due is not None else None
        info["last_run"] = last
        info["last_tournament"] = f"{schedule_id}-{int(last)}" if last is not None else None
        info["last_error"] = fields.get("last_error") or None
        info["last_error_at"] = float(fields["last_error_at"]) if fields.get("last_error_at") else None
        return info

    def delete_schedule(self, schedule_id: str) -> bool:
        """Stop a recurring tournament (runs already created are unaffected)."""
        pipe = self.r.pipeline()
        pipe.zrem(self.DUE, schedule_id)
        pipe.delete(key("schedule", schedule_id))
        return bool(pipe.execute()[0])

    # ------------------------------------------------------------------ result stream cursor
    def ensure_group(self, stream: str, group: str) -> None:
        """Create the consumer group on a stream (from its start) if it does not exist."""
        try:
            self.r.xgroup_create(stream, group, id="0", mkstream=True)
        except redis.ResponseError as exc:
            if "BUSYGROUP" not in str(exc):
                raise

    def read_group(
        self,
        stream: str,
        group: str,
        consumer: str,
        *,
        count: int = 500,
        pending: bool = False,
        min_idle_ms: int = 30000,
    ) -> builtins.list[tuple[str, dict[str, str]]]:
        """Read entries for ``consumer``: new ones, or (``pending=True``) those delivered but not
        acknowledged for ``min_idle_ms`` (by any consumer, e.g. a killed worker; they are claimed
        for ``consumer``)."""
        if pending:
            got = self.r.xautoclaim(stream, group, consumer, min_idle_time=min_idle_ms, start_id="0-0", count=count)
            entries = got[1]
        else:
            reply = self.r.xreadgroup(group, consumer, {stream: ">"}, count=count)
            entries = reply[0][1] if reply else []
        return [(_s(eid), {_s(k): _s(v) for k, v in fields.items()}) for eid, fields in entries if fields]

    def ack(self, stream: str, group: str, ids: Sequence[str]) -> None:
        """Acknowledge processed stream entries."""
        if ids:
            self.r.xack(stream, group, *ids)

    # ------------------------------------------------------------------ liveness
    HEARTBEATS = property(lambda self: key("heartbeats"))
    """Sorted set ``name -> last heartbeat`` (unix time) of every heartbeat, so that the live
    ones are counted in one command (:mod:`cardarena.store.health`); names silent for
    :data:`HEARTBEAT_FORGET_S` are dropped from it."""

    def beat(self, name: str) -> None:
        """Record a heartbeat timestamp (the worker watchdog reads it), in one round trip."""
        now = time.time()
        pipe = self.r.pipeline(transaction=False)
        pipe.set(key("heartbeat", name), now)
        pipe.zadd(self.HEARTBEATS, {name: now})
        pipe.zremrangebyscore(self.HEARTBEATS, "-inf", now - HEARTBEAT_FORGET_S)
        pipe.execute()

    def celery_backlog(self, queue: str = "celery") -> int:
        """Messages waiting in a Celery queue (the broker's keys live under ``key("celery", "")``)."""
        return int(self.r.llen(key("celery", queue)))

    def last_beat(self, name: str) -> float | None:
        """The last heartbeat timestamp, or ``None``."""
        raw = self.r.get(key("heartbeat", name))
        return float(raw) if raw else None
