"""Presence of service instances and their bots, and invites between instances.

Several service instances may share one Redis.  Each instance keeps, with a TTL it refreshes:

* ``presence:instances`` — a hash ``instance -> {"address": "host:port", "expires": t, "run":
  ..., "host": ..., "process": ...}`` (entries past ``expires`` are ignored and pruned); ``run``,
  ``host`` and ``process`` say which process the entry is from (:class:`InstanceRun`).  A
  process writes its entry only while the name is not another live process's
  (:meth:`PresenceStore.publish`, atomic): a second process started under the same instance
  name finds the first one's entry and refuses to start, and a process whose entry lapsed
  (Redis out of reach for a whole TTL, or restarted without its data) and whose name another
  process took meanwhile finds that one's entry and stands by instead of overwriting it;
* ``presence:<instance>`` — a hash ``bot -> {"capacity": n, "load": n, "free": n, "games": [...]}``
  of the bots connected to it (the key expires when the instance stops refreshing it).

An instance hosting a match whose seated bot is connected only elsewhere pushes an invite
(``{"bot", "match_id", "game", "address", "instance"}``) onto the other instance's list
``invites:<instance>``; that instance pops it and relays it to the bot's sessions as a
``MatchInvite``.  The list expires when nobody reads it.

Every stream of a bot, on whichever instance, holds a lease in ``sessions:<bot>``, a sorted set
``lease id -> expiry`` (milliseconds, Redis's clock): taken atomically against the limit of
sessions per bot before the stream's Hello, renewed by its instance while the stream lasts,
removed when it ends; the lease of an instance that died lapses at its expiry.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

import redis

from .keys import key


@dataclass(frozen=True)
class BotPresence:
    """One bot as an instance advertises it."""

    capacity: int
    """Matches the bot accepts at once on that instance."""
    load: int
    """Seats it holds in live matches there."""
    games: tuple[str, ...] = ()
    """Games it plays (empty: all)."""

    @property
    def free(self) -> int:
        """Free slots."""
        return max(0, self.capacity - self.load)

    def plays(self, game: str) -> bool:
        """Whether the bot accepts matches of ``game``."""
        return not self.games or game in self.games


@dataclass(frozen=True)
class InstanceRun:
    """Which process an instance's presence is from."""

    run: str
    """Random, one per service process (``MatchStore.run_id``, which its match leases hold)."""
    host: str = ""
    """The machine's host name (for messages)."""
    process: str = ""
    """``cardarena.processes.process_identity()``: tells whether the process has ended."""


@dataclass(frozen=True)
class Invite:
    """A request to relay a ``MatchInvite`` to a bot connected to this instance."""

    bot: str
    match_id: str
    game: str
    address: str
    instance: str


# KEYS[1] presence:instances, KEYS[2] presence:instance:<instance>; ARGV: instance, the new
# entry, its run id ("": write whatever holds the name), now (seconds), the bots' TTL (ms), then
# bot, presence pairs.  Writes the entry and the bots unless the instance's entry is another
# run's and has not expired; then returns that entry and writes nothing.
_PUBLISH = """
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if raw and ARGV[3] ~= '' then
  local ok, held = pcall(cjson.decode, raw)
  if ok and type(held) == 'table' and held['run'] ~= ARGV[3]
      and (tonumber(held['expires']) or 0) >= tonumber(ARGV[4]) then
    return raw
  end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('DEL', KEYS[2])
for i = 6, #ARGV, 2 do
  redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
end
if #ARGV > 5 then redis.call('PEXPIRE', KEYS[2], ARGV[5]) end
return false
"""

# KEYS as _PUBLISH; ARGV: instance, run id ("": whatever holds the name).  Removes the entry
# and the bots unless the entry is another run's; 1 if removed.
_WITHDRAW = """
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if raw and ARGV[2] ~= '' then
  local ok, held = pcall(cjson.decode, raw)
  if ok and type(held) == 'table' and held['run'] ~= ARGV[2] then return 0 end
end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('DEL', KEYS[2])
return 1
"""


def _held(raw: Any) -> dict[str, Any]:
    """The entry a script returned (``{}``: not a JSON object)."""
    try:
        held = json.loads(raw)
    except ValueError:
        held = None
    return held if isinstance(held, dict) else {}


class PresenceStore:
    """Repository of instance presence and inter-instance invites on one Redis client."""

    def __init__(self, client: redis.Redis) -> None:
        self.r: Any = client
        self._publish = client.register_script(_PUBLISH)
        self._withdraw = client.register_script(_WITHDRAW)

    INSTANCES = property(lambda self: key("presence", "instances"))

    @staticmethod
    def _bots(instance: str) -> str:
        return key("presence", "instance", instance)

    @staticmethod
    def _invites(instance: str) -> str:
        return key("invites", instance)

    @staticmethod
    def _entry(address: str, ttl_ms: int, by: InstanceRun | None) -> str:
        mine = {"run": by.run, "host": by.host, "process": by.process} if by is not None else {}
        return json.dumps({"address": address, "expires": time.time() + ttl_ms / 1000.0, **mine})

    def publish(
        self,
        instance: str,
        address: str,
        bots: dict[str, BotPresence],
        *,
        ttl_ms: int = 10000,
        by: InstanceRun | None = None,
        take_over: bool = False,
    ) -> dict[str, Any] | None:
        """Advertise ``instance`` at ``address`` with its connected ``bots`` for ``ttl_ms``
        (``by``: the process that runs it), unless another process (another ``by.run``)
        advertises it and its entry has not expired: then that entry (``address``, ``expires``,
        ``run``, ``host``, ``process``; an older version's has only the first two), and nothing
        is written.  Without ``by``, or with ``take_over`` (the other process is known to have
        ended), the entry is written whatever holds the name.  Atomic: of two processes
        publishing under one name, one holds it."""
        presence = [
            part
            for b, p in bots.items()
            for part in (
                b,
                json.dumps({"capacity": p.capacity, "load": p.load, "free": p.free, "games": list(p.games)}),
            )
        ]
        run = by.run if by is not None and not take_over else ""
        entry = self._entry(address, ttl_ms, by)
        raw = self._publish(
            keys=[self.INSTANCES, self._bots(instance)],
            args=[instance, entry, run, repr(time.time()), ttl_ms, *presence],
        )
        return None if raw is None else _held(raw)

    def withdraw(self, instance: str, *, by: InstanceRun | None = None) -> bool:
        """Remove ``instance``'s presence (on shutdown); with ``by``, only if the entry is that
        process's (or missing or unreadable): a process whose name another one took meanwhile
        leaves that one's entry alone.  ``True`` if removed."""
        return bool(self._withdraw(keys=[self.INSTANCES, self._bots(instance)], args=[instance, by.run if by else ""]))

    def instances(self) -> dict[str, str]:
        """Live instances: name -> address (expired entries are pruned)."""
        now = time.time()
        live: dict[str, str] = {}
        for raw_name, raw in self.r.hgetall(self.INSTANCES).items():
            name = raw_name.decode() if isinstance(raw_name, bytes) else str(raw_name)
            try:
                data = json.loads(raw)
                expires, address = float(data["expires"]), str(data["address"])
            except (ValueError, KeyError, TypeError):
                expires, address = 0.0, ""
            if expires < now:
                self.r.hdel(self.INSTANCES, name)
                continue
            live[name] = address
        return live

    def bots_of(self, instance: str) -> dict[str, BotPresence]:
        """The bots ``instance`` advertises."""
        out: dict[str, BotPresence] = {}
        for raw_name, raw in self.r.hgetall(self._bots(instance)).items():
            name = raw_name.decode() if isinstance(raw_name, bytes) else str(raw_name)
            data = json.loads(raw)
            out[name] = BotPresence(int(data["capacity"]), int(data["load"]), tuple(data.get("games") or ()))
        return out

    def snapshot(self) -> dict[str, tuple[str, dict[str, BotPresence]]]:
        """Every live instance: name -> (address, its bots)."""
        return {name: (address, self.bots_of(name)) for name, address in self.instances().items()}

    def invite(self, instance: str, invite: Invite, *, ttl_ms: int = 30000) -> None:
        """Queue ``invite`` for ``instance`` to relay."""
        k = self._invites(instance)
        pipe = self.r.pipeline()
        pipe.rpush(k, json.dumps(invite.__dict__))
        pipe.pexpire(k, ttl_ms)
        pipe.execute()

    def next_invite(self, instance: str, wait_s: float = 1.0) -> Invite | None:
        """Pop the next invite for ``instance`` (waiting up to ``wait_s``); ``None`` if none came."""
        got = self.r.blpop([self._invites(instance)], timeout=max(0.01, wait_s))
        if not got:
            return None
        try:
            data = json.loads(got[1])
            return Invite(**{f: str(data[f]) for f in ("bot", "match_id", "game", "address", "instance")})
        except (ValueError, KeyError, TypeError):
            return None


# Redis's own clock: instances' clocks may differ.  KEYS[1] the bot's set; ARGV: lease id,
# ttl ms, limit.  Prunes lapsed leases, then takes one if fewer than the limit are held.  The
# set expires with its last lease (its TTL is only ever extended).
_ACQUIRE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZSCORE', KEYS[1], ARGV[1]) == false and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  return 0
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 1
"""

# KEYS: the bots' sets; ARGV: ttl ms, then one lease id per key.  Extends the leases still
# held; returns the ids of those that had lapsed (an instance that could not renew in time).
_RENEW_LEASES = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[1])
local lost = {}
for i, k in ipairs(KEYS) do
  local score = redis.call('ZSCORE', k, ARGV[i + 1])
  if score == false or tonumber(score) <= now then
    redis.call('ZREM', k, ARGV[i + 1])
    table.insert(lost, ARGV[i + 1])
  else
    redis.call('ZADD', k, 'XX', now + ttl, ARGV[i + 1])
    if redis.call('PTTL', k) < ttl then redis.call('PEXPIRE', k, ttl) end
  end
end
return lost
"""


class SessionLeases:
    """The sessions-per-bot limit across every instance on one Redis: one lease per stream."""

    def __init__(self, client: redis.Redis) -> None:
        self.r: Any = client
        self._acquire = client.register_script(_ACQUIRE)
        self._renew = client.register_script(_RENEW_LEASES)

    @staticmethod
    def _key(bot: str) -> str:
        return key("sessions", bot)

    def acquire(self, bot: str, lease: str, *, limit: int, ttl_ms: int) -> bool:
        """Take ``lease`` for a stream of ``bot`` (or extend it if held); ``False`` when the bot
        holds ``limit`` live leases already."""
        return bool(self._acquire(keys=[self._key(bot)], args=[lease, ttl_ms, limit]))

    def renew(self, leases: dict[str, str], *, ttl_ms: int) -> list[str]:
        """Extend ``leases`` (lease id -> bot) by ``ttl_ms``; the ids of those that had lapsed
        (removed: take them again with :meth:`acquire`)."""
        if not leases:
            return []
        ids = list(leases)
        lost = self._renew(keys=[self._key(leases[i]) for i in ids], args=[ttl_ms, *ids])
        return [x.decode() if isinstance(x, bytes) else str(x) for x in lost or ()]

    def release(self, bot: str, lease: str) -> None:
        """Give ``lease`` back (the stream ended)."""
        self.r.zrem(self._key(bot), lease)

    def held(self, bot: str) -> int:
        """Live leases of ``bot`` (every instance)."""
        now_s, now_us = self.r.time()
        return int(self.r.zcount(self._key(bot), f"({int(now_s) * 1000 + int(now_us) // 1000}", "+inf"))
