"""Registered bots: names, hashed bearer tokens and per-bot statistics.

* A token is ``<token id>.<secret>``; only ``sha256(salt + secret)`` and the per-bot random
  salt are stored, under the token id.  :meth:`BotStore.authenticate` compares digests with
  :func:`hmac.compare_digest`.  The token is returned once by :meth:`BotStore.register` (and
  :meth:`BotStore.rotate`) and cannot be recovered.
* Names: 1 to 64 printable characters without leading or trailing space, ``:`` or ``,``, and
  no ``.`` or ``..`` part between ``/`` (a bot's page is ``/bots/<name>``, and browsers resolve
  such parts away).  Any other printable text is allowed, including ``<``, ``&`` and ``/``:
  consumers (the dashboard) must escape it.  A name that looks like a registered bot's
  (:func:`look`: the same but for case, width or Cyrillic and Greek letters that look like
  Latin ones, ``Alice`` or ``аlice`` beside ``alice``) is refused (:class:`LookAlikeName`):
  on a leaderboard it would pass for the other bot.  The check and the registration are one
  step in Redis (a script reading the look index ``bots:look:<look, hex>``, the set of the
  names of each look), so two look-alikes registered at the same moment (two admin requests,
  two ``bot register`` processes) cannot both get through; a roster is registered whole or
  not at all.  Bots stored before the index existed are indexed at the next registration.
* Lists for people (:meth:`BotStore.list`, ``cardarena bot list``, ``Admin.ListBots``, the
  dashboard) are in :func:`name_order`: by the words and numbers a name reads as, case,
  accents and punctuation aside; :meth:`BotStore.names` stays in code point order.
* Retired bots (:meth:`BotStore.retire`) stay registered but are no longer entrants of
  ``--all`` tournaments.
* Statistics per bot (``matches``, ``timeouts``, ``illegal_actions``, ``errors``,
  ``disconnects``, ``forfeits``) are counters the service increments and the dashboard reads.
"""

from __future__ import annotations

import difflib
import hashlib
import hmac
import json
import secrets
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import redis

from ..names import look, name_order, plain
from .keys import key

MAX_NAME = 64
"""Longest bot name."""
STATS = ("matches", "timeouts", "illegal_actions", "errors", "disconnects", "forfeits")
"""The statistics counters of a bot."""


class BotError(ValueError):
    """Base class of bot registration errors."""


class InvalidBotName(BotError):
    """A name that is empty, too long, not printable or padded with spaces."""


class BotExists(BotError):
    """A bot of that name is already registered."""


class UnknownBot(BotError):
    """No bot of that name."""


def check_name(name: str) -> str:
    """Return ``name`` if it is a valid bot name; raise :class:`InvalidBotName` otherwise."""
    if not isinstance(name, str) or not name:
        raise InvalidBotName("a bot name must not be empty")
    if len(name) > MAX_NAME:
        raise InvalidBotName(f"a bot name has at most {MAX_NAME} characters, not {len(name)}")
    if not name.isprintable():
        raise InvalidBotName("a bot name must consist of printable characters")
    if name != name.strip():
        raise InvalidBotName("a bot name must not start or end with a space")
    if ":" in name:  # tournaments' match ids and keys are ':'-separated
        raise InvalidBotName("a bot name must not contain ':'")
    if "," in name:  # `--bots A,B,C` lists entrants separated by commas
        raise InvalidBotName("a bot name must not contain ',' (--bots lists names separated by commas)")
    if any(part in (".", "..") for part in name.split("/")):  # the page /bots/<name> must stay there
        raise InvalidBotName("a bot name must not be '.' or '..' nor have such a part between '/'")
    return name


class LookAlikeName(InvalidBotName):
    """A name that looks like a registered bot's (:func:`look`)."""


def close_name(name: str, known: Iterable[str]) -> str | None:
    """The name in ``known`` (registered bots) closest to ``name`` as they read (:func:`plain`:
    a typo, a missing accent, another case), or ``None`` when none is close."""
    by_plain = {plain(n): n for n in known}
    found = difflib.get_close_matches(plain(name), list(by_plain), n=1, cutoff=0.8)
    return by_plain[found[0]] if found else None


def meant(name: str, known: Iterable[str]) -> str:
    """``name``, with the registered name it was probably meant to be if one is close
    (:func:`close_name`): ``jose garcia (did you mean 'José García'?)``."""
    close = close_name(name, known)
    return f"{name} (did you mean {close!r}?)" if close else name


def _looks_like(name: str, other: str) -> str:
    return (
        f"{name!r} looks like the registered bot {other!r} (the same but for case, width or look-alike "
        "letters): on the dashboard it would pass for it; pick a name that reads differently"
    )


def _twins(first: str, second: str) -> str:
    return f"{first!r} and {second!r} look alike (the same but for case, width or look-alike letters)"


class RosterRefused(BotError):
    """A roster of which nothing may be registered: ``problems`` says why, one line each;
    ``taken`` lists the names already registered (when that is the reason)."""

    def __init__(self, problems: list[str], taken: list[str] | None = None) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems
        self.taken = taken or []


def _check_roster(store: BotStore, names: Sequence[str], *, skip_registered: bool) -> tuple[list[str], list[str]]:
    """Check a roster before registering any of it (:meth:`BotStore.register_roster`), to
    name every problem at once: ``(names to register, in order; names already registered
    and skipped)``.  Raises :class:`RosterRefused` when a name is listed twice or is
    not a valid bot name, or, without ``skip_registered``, is already registered; or when two
    of its names, or one of them and a registered bot's, look alike (:func:`look`)."""
    listed = Counter(names)
    problems = [f"{name!r} is listed more than once" for name in sorted(n for n, k in listed.items() if k > 1)]
    unique = list(listed)  # in order, once each
    for name in unique:
        try:
            check_name(name)
        except BotError as exc:
            problems.append(f"{name!r}: {exc}")
    if problems:
        raise RosterRefused(problems)
    taken = [n for n, found in zip(unique, store.exist(unique), strict=True) if found]
    if taken and not skip_registered:
        raise RosterRefused([f"already registered: {', '.join(taken)}"], taken)
    todo = [n for n in unique if n not in taken]
    registered = {look(n): n for n in store.names()}
    seen: dict[str, str] = {}
    for name in todo:
        mine = look(name)
        if mine in seen:
            problems.append(_twins(seen[mine], name))
        elif mine in registered and registered[mine] != name:
            problems.append(_looks_like(name, registered[mine]))
        seen.setdefault(mine, name)
    if problems:
        raise RosterRefused(problems)
    return todo, taken


@dataclass(frozen=True)
class BotRecord:
    """A registered bot as the dashboard and the service read it."""

    name: str
    created_at: float
    stats: dict[str, int] = field(default_factory=dict)
    """Counters from :data:`STATS` (missing ones are 0)."""


def _digest(salt: bytes, secret: str) -> bytes:
    return hashlib.sha256(salt + secret.encode()).digest()


_ENROL = """
-- KEYS: bots, bots:local, bots:looked, then per name its record, its token and its look's set
-- ARGV: local ('1'/'0'), skip_registered ('1'/'0'), created_at, then per name: name, token id, salt, hash
local missing = redis.call('ZDIFF', 2, KEYS[1], KEYS[3])
if #missing > 0 then table.insert(missing, 1, 'missing') return missing end
local n, fresh, skipped, seen = (#ARGV - 3) / 4, {}, {'ok'}, {}
for i = 0, n - 1 do
  local name, record, alike = ARGV[4 + 4 * i], KEYS[4 + 3 * i], KEYS[6 + 3 * i]
  if redis.call('EXISTS', record) == 1 then
    if ARGV[2] ~= '1' then return {'exists', name} end
    skipped[#skipped + 1] = name
  else
    if ARGV[1] ~= '1' then
      if seen[alike] then return {'twins', seen[alike], name} end
      for _, other in ipairs(redis.call('SMEMBERS', alike)) do
        if other ~= name and redis.call('ZSCORE', KEYS[1], other) then return {'alike', name, other} end
      end
    end
    seen[alike] = name
    fresh[#fresh + 1] = i
  end
end
for _, i in ipairs(fresh) do
  local name = ARGV[4 + 4 * i]
  redis.call('HSET', KEYS[4 + 3 * i], 'name', name, 'created_at', ARGV[3], 'token_id', ARGV[5 + 4 * i])
  redis.call('HSET', KEYS[5 + 3 * i], 'bot', name, 'salt', ARGV[6 + 4 * i], 'hash', ARGV[7 + 4 * i])
  redis.call('ZADD', KEYS[1], 0, name)
  if ARGV[1] == '1' then redis.call('SADD', KEYS[2], name) end
  redis.call('SADD', KEYS[6 + 3 * i], name)
  redis.call('SADD', KEYS[3], name)
end
return skipped
"""
"""Register bots in one step, all or none, unless a name is registered or (but for local bots)
looks like a registered bot's or another's of the same call; first, when the look index misses
registered bots, return them (``missing``) to be indexed (:data:`_INDEX`) before trying again."""

_INDEX = """
-- KEYS: bots, bots:looked, then per name its look's set; ARGV: the names
for i, name in ipairs(ARGV) do
  if redis.call('ZSCORE', KEYS[1], name) then
    redis.call('SADD', KEYS[2 + i], name)
    redis.call('SADD', KEYS[2], name)
  end
end
return #ARGV
"""
"""Add registered bots to the look index (their look's set, then ``bots:looked``)."""


_DELETE = """
-- KEYS: the bot's record, bots, bots:local, bots:retired, bots:looked, its look's set, its
--   matches' index, its tournaments' index, tournaments:all, tournaments:entered, schedules:due,
--   then the current ratings of each game
-- ARGV: the name, the prefix of the token keys, the prefix of the schedule keys
local name = ARGV[1]
if redis.call('EXISTS', KEYS[1]) == 0 then return {'unknown'} end
local missing = redis.call('ZDIFF', 2, KEYS[9], KEYS[10])
if #missing > 0 then table.insert(missing, 1, 'missing') return missing end
local counted = 0
local record = redis.call('HGETALL', KEYS[1])
for i = 1, #record, 2 do
  if string.sub(record[i], 1, 5) == 'stat:' and tonumber(record[i + 1]) ~= 0 then counted = counted + 1 end
end
local schedules, rated = {}, {}
for _, sid in ipairs(redis.call('ZRANGE', KEYS[11], 0, -1)) do
  local ok, s = pcall(cjson.decode, redis.call('HGET', ARGV[3] .. sid, 'json') or 'null')
  local entrants = ok and type(s) == 'table' and type(s.template) == 'table' and s.template.entrants
  if type(entrants) == 'table' then
    for _, e in ipairs(entrants) do
      if e == name then schedules[#schedules + 1] = sid break end
    end
  end
end
for i = 12, #KEYS do
  if redis.call('HEXISTS', KEYS[i], name) == 1 then rated[#rated + 1] = i - 11 end
end
local matches, tournaments = redis.call('ZCARD', KEYS[7]), redis.call('SCARD', KEYS[8])
if matches + tournaments + counted + #schedules + #rated > 0 then
  return {'history', matches, tournaments, counted, cjson.encode(schedules), table.concat(rated, ' ')}
end
local token = redis.call('HGET', KEYS[1], 'token_id')
if token then redis.call('DEL', ARGV[2] .. token) end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], name)
for i = 3, 6 do redis.call('SREM', KEYS[i], name) end
return {'deleted'}
"""
"""Delete a bot that has no history, in one step with the check (:meth:`BotStore.delete`); first,
when the tournaments' entrant index misses tournaments, return them (``missing``) to be indexed
before trying again.  The schedules naming it come as a JSON list (``{}`` for none: Lua's empty
table), the games it is rated in as the 1-based positions of their ratings' keys."""


@dataclass(frozen=True)
class History:
    """What keeps a bot from being deleted (:meth:`BotStore.delete`): anything at all."""

    matches: int = 0
    """Matches that seat it, queued, played or withdrawn."""
    tournaments: int = 0
    """Tournaments it is an entrant of, whatever their status."""
    statistics: bool = False
    """Its statistics counters are not all 0."""
    schedules: tuple[str, ...] = ()
    """Schedules whose template names it."""
    rated: tuple[str, ...] = ()
    """Games it has a rating in."""

    def __str__(self) -> str:
        said = []
        if self.matches:
            said.append(f"{self.matches} match{'es' if self.matches != 1 else ''}")
        if self.tournaments:
            said.append(f"an entrant of {self.tournaments} tournament{'s' if self.tournaments != 1 else ''}")
        if self.schedules:
            said.append(f"named by the schedule{'s' if len(self.schedules) != 1 else ''} {', '.join(self.schedules)}")
        if self.rated:
            said.append(f"rated in {', '.join(self.rated)}")
        if self.statistics:
            said.append("statistics counted")
        return "; ".join(said)


class BotHasHistory(BotError):
    """A bot that has played, or is due to (:class:`History`): it can be retired, not deleted."""

    def __init__(self, name: str, history: History) -> None:
        super().__init__(
            f"{name!r} cannot be deleted: it has a history ({history}); only a bot that never played and is "
            f"in no tournament or schedule can be. `cardarena bot retire {name}` takes it out of the --all "
            "tournaments that start from now on, and its results stay"
        )
        self.history = history


class BotStore:
    """Repository of bots on one Redis client."""

    def __init__(self, client: redis.Redis) -> None:
        self.r: Any = client
        self._register = client.register_script(_ENROL)
        self._index = client.register_script(_INDEX)
        self._delete = client.register_script(_DELETE)

    @staticmethod
    def _bot(name: str) -> str:
        return key("bot", name.encode().hex())

    record_key = _bot
    """The hash of a bot's record and its ``stat:<statistic>`` counters."""

    @staticmethod
    def _token(token_id: str) -> str:
        return key("bottoken", token_id)

    ALL = property(lambda self: key("bots"))

    def _issue(self, name: str) -> tuple[str, dict[str, Any]]:
        token_id = secrets.token_hex(8)
        secret = secrets.token_urlsafe(32)
        salt = secrets.token_bytes(16)
        return f"{token_id}.{secret}", {"token_id": token_id, "salt": salt, "hash": _digest(salt, secret)}

    LOCAL = property(lambda self: key("bots", "local"))

    def register(self, name: str, *, local: bool = False) -> str:
        """Register ``name``; returns its token (shown once).  Raises :class:`BotError`
        (:class:`BotExists` for a registered name, :class:`LookAlikeName` for a name that looks
        like a registered bot's, unless ``local``); the check and the registration are one step.

        ``local``: a bot of a local run (``cardarena match``, ``tournament run``, ``demo``),
        which names its bots after their kind (``random-1``); such bots are not entrants of
        ``--all`` tournaments (see :meth:`entrants`)."""
        check_name(name)
        verdict, issued, _ = self._enrol([name], local=local, skip_registered=False)
        if verdict == "exists":
            raise BotExists(f"a bot named {name!r} is already registered")
        if verdict == "alike":
            raise LookAlikeName(_looks_like(*issued[0]))
        return issued[0][1]

    def register_roster(
        self, names: Sequence[str], *, skip_registered: bool = False
    ) -> tuple[list[tuple[str, str]], list[str]]:
        """Register a roster (``cardarena bot register A B C``, the admin API's ``{"names":
        [...]}``) whole or not at all: ``([(name, token), ...] in order, the names already
        registered and skipped)``.  Raises :class:`RosterRefused` (nothing registered) when a
        name is listed twice or is not a valid bot name, or, without ``skip_registered``, is
        already registered; or when two of its names, or one of them and a registered bot's,
        look alike (:func:`look`): checked first to name every problem, and again in the same
        step as the registration (a look-alike registered meanwhile refuses the roster)."""
        todo, taken = _check_roster(self, names, skip_registered=skip_registered)
        if not todo:
            return [], taken
        verdict, issued, skipped = self._enrol(todo, local=False, skip_registered=skip_registered)
        if verdict == "exists":
            raise RosterRefused([f"already registered: {issued[0][0]}"], [issued[0][0]])
        if verdict == "alike":
            raise RosterRefused([_looks_like(*issued[0])])
        if verdict == "twins":
            raise RosterRefused([_twins(*issued[0])])
        return issued, [*taken, *skipped]

    LOOKED = property(lambda self: key("bots", "looked"))
    """The set of the names in the look index (:meth:`_look`)."""

    @staticmethod
    def _look(name: str) -> str:
        """The set of the registered names that look like ``name`` (:func:`look`)."""
        return key("bots", "look", look(name).encode().hex())

    def _enrol(
        self, names: Sequence[str], *, local: bool, skip_registered: bool
    ) -> tuple[str, list[tuple[str, str]], list[str]]:
        """Register ``names`` (valid, distinct) in one step (:data:`_ENROL`), all or none:
        ``("ok", [(name, token), ...], names skipped as registered)``, or for nothing
        registered ``(verdict, [(name, why)], [])``: ``"exists"`` (``why`` is ``""``),
        ``"alike"`` (``why``: the registered bot it looks like) or ``"twins"`` (``why``: the
        other of ``names`` it looks like).  Bots the look index misses (stored by an earlier
        version, or by one running beside this one) are indexed first (:meth:`_index_looks`)."""
        tokens: dict[str, str] = {}
        keys = [self.ALL, self.LOCAL, self.LOOKED]
        args: list[Any] = ["1" if local else "0", "1" if skip_registered else "0", repr(time.time())]
        for name in names:
            tokens[name], cred = self._issue(name)
            keys += [self._bot(name), self._token(cred["token_id"]), self._look(name)]
            args += [name, cred["token_id"], cred["salt"], cred["hash"]]
        for _ in range(5):
            verdict, *rest = (item.decode() for item in self._register(keys=keys, args=args))
            if verdict == "missing":  # bots not in the index yet: index them, then try again
                self._index_looks(rest)
                continue
            if verdict == "ok":
                skipped = set(rest)
                return verdict, [(n, tokens[n]) for n in names if n not in skipped], rest
            return verdict, [(rest[0], rest[1] if len(rest) > 1 else "")], []
        raise BotError("bots are being registered without the look index meanwhile (an older version?); try again")

    def _index_looks(self, names: Sequence[str], chunk: int = 1000) -> None:
        """Add ``names`` (registered bots) to the look index; idempotent, safe beside registrations."""
        for start in range(0, len(names), chunk):
            part = names[start : start + chunk]
            self._index(keys=[self.ALL, self.LOOKED, *(self._look(n) for n in part)], args=part)

    def is_local(self, name: str) -> bool:
        """Whether ``name`` was registered by a local run (``register(local=True)``)."""
        return bool(self.r.sismember(self.LOCAL, name))

    def entrants(self) -> list[str]:
        """The bots an ``--all`` tournament takes: every registered bot but those of local runs
        and those retired (:meth:`retire`)."""
        pipe = self.r.pipeline(transaction=False)
        pipe.smembers(self.LOCAL)
        pipe.smembers(self.RETIRED)
        local, retired = ({n.decode() for n in raw} for raw in pipe.execute())
        return [n for n in self.names() if n not in local and n not in retired]

    RETIRED = property(lambda self: key("bots", "retired"))

    def retire(self, name: str, *, undo: bool = False) -> bool:
        """Take ``name`` out of the ``--all`` tournaments that start from now on (``undo``: put
        it back); ``False`` if it already was (was not).  Its record, token, results and
        ratings stay, and tournaments that name it (``--bots``, runs already started) still
        include it.  Raises :class:`UnknownBot`."""
        if not self.exists(name):
            raise self.unknown(name)
        return bool(self.r.srem(self.RETIRED, name) if undo else self.r.sadd(self.RETIRED, name))

    def delete(self, name: str, *, games: Sequence[str]) -> None:
        """Delete ``name``, a bot registered by mistake, if it has no history: no match seats it
        (queued, played or withdrawn), it is no entrant of a tournament (whatever its status) and
        no schedule names it, its statistics are 0 and it has no rating in ``games`` (the game
        ids to look in: every registered game, which this layer does not know; required, so
        that no caller skips the ratings).  Its record, token, look index entries and local and retired marks go,
        so the name can be registered again.  The check and the deletion are one step in Redis:
        a first match or tournament entry stored meanwhile refuses the deletion, and a
        tournament or schedule stored with ``require_registered`` after it refuses the bot.

        Raises :class:`UnknownBot`, or :class:`BotHasHistory` saying what it has (retire such a
        bot: :meth:`retire`).  Indexes first the matches and tournaments an earlier version
        stored without indexing them (:meth:`MatchStore.index_older
        <cardarena.store.matches.MatchStore.index_older>`, :meth:`TournamentStore.index_entries
        <cardarena.store.tournaments.TournamentStore.index_entries>`)."""
        from .matches import MatchStore  # they import this module
        from .tournaments import TournamentStore

        MatchStore(self.r).index_older()
        ts = TournamentStore(self.r)
        match_index = MatchStore.index_key(bot=name)
        assert match_index is not None
        keys = [self._bot(name), self.ALL, self.LOCAL, self.RETIRED, self.LOOKED, self._look(name), match_index]
        keys += [ts.entries_key(name), ts.ALL, ts.ENTERED, ts.DUE, *(ts.ratings_key(g) for g in games)]
        args = [name, self._token(""), ts.schedule_key("")]
        for _ in range(5):
            verdict, *rest = self._delete(keys=keys, args=args)
            verdict = verdict.decode()
            if verdict == "missing":  # tournaments not in the entrant index yet: index them, then try again
                ts.index_entries([t.decode() for t in rest])
                continue
            if verdict == "unknown":
                raise self.unknown(name)
            if verdict == "history":
                matches, tournaments, counted, schedules, rated = rest
                history = History(
                    matches=int(matches),
                    tournaments=int(tournaments),
                    statistics=bool(int(counted)),
                    schedules=tuple(sids) if isinstance(sids := json.loads(schedules), list) else (),
                    rated=tuple(games[int(i) - 1] for i in rated.decode().split()),
                )
                raise BotHasHistory(name, history)
            return
        raise BotError("tournaments are being stored without their entrant index meanwhile (an older version?); retry")

    def retired(self) -> list[str]:
        """The retired bots (:meth:`retire`), in the order people look for them (:func:`name_order`)."""
        return sorted((n.decode() for n in self.r.smembers(self.RETIRED)), key=name_order)

    def rotate(self, name: str) -> str:
        """Issue a new token for ``name`` (the old one stops working); returns it once."""
        h = self._bot(name)
        old = self.r.hget(h, "token_id")
        if old is None:
            raise self.unknown(name)
        token, cred = self._issue(name)
        pipe = self.r.pipeline()
        pipe.delete(self._token(old.decode()))
        pipe.hset(h, "token_id", cred["token_id"])
        pipe.hset(self._token(cred["token_id"]), mapping={"bot": name, "salt": cred["salt"], "hash": cred["hash"]})
        pipe.execute()
        return token

    def token_ids(self, names: Iterable[str]) -> dict[str, str | None]:
        """The id of each bot's current token (``None``: not registered), in one round trip;
        a token whose id is no longer its bot's was replaced (:meth:`rotate`)."""
        names = list(names)
        pipe = self.r.pipeline(transaction=False)
        for name in names:
            pipe.hget(self._bot(name), "token_id")
        return {n: (raw.decode() if raw is not None else None) for n, raw in zip(names, pipe.execute(), strict=True)}

    def authenticate(self, token: str) -> str | None:
        """The bot name a token belongs to, or ``None`` for an unknown or wrong token."""
        token_id, dot, secret = token.partition(".")
        if not dot or not token_id or not secret or len(token) > 512:
            return None
        raw = self.r.hgetall(self._token(token_id))
        if not raw:
            # Spend the same work as a real check so timing says nothing about the id.
            hmac.compare_digest(_digest(b"\0" * 16, secret), b"\0" * 32)
            return None
        if not hmac.compare_digest(_digest(raw[b"salt"], secret), raw[b"hash"]):
            return None
        return str(raw[b"bot"].decode())

    def exists(self, name: str) -> bool:
        """Whether ``name`` is registered."""
        return bool(self.r.exists(self._bot(name)))

    def unknown(self, name: str) -> UnknownBot:
        """The error for ``name``, which is not registered: ``no bot named 'jose' (did you mean
        'José'?)`` when a registered name is close (:func:`close_name`)."""
        close = close_name(name, self.names())
        return UnknownBot(f"no bot named {name!r}" + (f" (did you mean {close!r}?)" if close else ""))

    def unregistered(self, names: Sequence[str]) -> list[str]:
        """The ``names`` that are not registered bots, each with the registered name it was
        probably meant to be when one is close (:func:`meant`), for a "not registered" error:
        ``tournament create --bots``, the admin API's tournaments, ``bot delete``."""
        missing = [n for n, found in zip(names, self.exist(names), strict=True) if not found]
        if not missing:
            return []
        known = self.names()
        return [meant(n, known) for n in missing]

    def exist(self, names: Sequence[str]) -> list[bool]:
        """Whether each of ``names`` is registered, in one round trip."""
        pipe = self.r.pipeline(transaction=False)
        for name in names:
            pipe.exists(self._bot(name))
        return [bool(found) for found in pipe.execute()]

    def get(self, name: str) -> BotRecord | None:
        """One bot with its statistics."""
        raw = self.r.hgetall(self._bot(name))
        if not raw:
            return None
        data = {k.decode(): v.decode() for k, v in raw.items()}
        stats = {s: int(data.get(f"stat:{s}", 0)) for s in STATS}
        return BotRecord(name=data["name"], created_at=float(data.get("created_at", 0)), stats=stats)

    def names(self) -> list[str]:
        """Every registered bot name, in code point order (the order ``--all`` tournaments take
        their entrants in; people read names in :func:`name_order`: :meth:`listed`)."""
        return [n.decode() for n in self.r.zrange(self.ALL, 0, -1)]

    def listed(self) -> list[str]:
        """Every registered bot name, in the order people look for them (:func:`name_order`)."""
        return sorted(self.names(), key=name_order)

    def list(self) -> list[BotRecord]:
        """Every registered bot with its statistics, in the order people look for them
        (:func:`name_order`)."""
        return [b for b in (self.get(n) for n in self.listed()) if b is not None]

    def count(self, name: str, stat: str, amount: int = 1) -> None:
        """Add ``amount`` to one statistics counter of ``name``."""
        self.count_each((name,), stat, amount)

    def count_each(self, names: Iterable[str], stat: str, amount: int = 1) -> None:
        """Add ``amount`` to one statistics counter of each of ``names`` (one round trip).

        Not idempotent: a command whose reply is lost is sent again by the client's retry and
        counted twice.  The service counts a match's statistics with its result instead
        (:meth:`~cardarena.store.matches.MatchStore.complete`, ``stats``), exactly once."""
        pipe = self.r.pipeline(transaction=False)
        for counter, field_name, n in stat_increments({name: {stat: amount} for name in names}):
            pipe.hincrby(counter, field_name, n)
        pipe.execute()


def stat_increments(stats: Mapping[str, Mapping[str, int]]) -> list[tuple[str, str, int]]:
    """The writes that add ``stats`` (bot name -> statistic -> amount, statistics from
    :data:`STATS`) to the bots' counters: ``(key, field, amount)`` each, zero amounts left out.
    ``ValueError`` for an unknown statistic."""
    writes = []
    for name, counts in stats.items():
        for stat, amount in counts.items():
            if stat not in STATS:
                raise ValueError(f"unknown statistic {stat!r}")
            if amount:
                writes.append((BotStore._bot(name), f"stat:{stat}", amount))
    return writes
