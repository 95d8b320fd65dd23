"""One leading beat per deployment, any number on standby.

Celery beat has no guard against a second instance: two beats send every periodic sweep twice
(harmless, since every task is idempotent and schedule runs are claimed atomically, but
wasteful), and an operator who starts a second one by mistake is never told.  Here beat sends
only while it holds the deployment's lease in Redis (``key("beat", "leader")``, renewed every
tick, :data:`LEASE_S` long).  Another beat stands by: it says so once in its log, names the
leader, and takes over when the lease lapses (the leader stopped or died), so a second beat is
a hot standby rather than a duplicate.  A leader that stops cleanly gives the lease up at once.

Redis errors count as "not leading" for that tick (the beat retries on its next one); the
lease is checked before every tick's sends, so at most one beat sends at any moment except
across a Redis failover that loses the key.
"""

from __future__ import annotations

import logging
import os
import socket
import uuid
from typing import Any

import redis
from cardarena.store.connection import client_for
from cardarena.store.keys import key
from celery.beat import PersistentScheduler

from .celery_app import seconds_setting

log = logging.getLogger(__name__)

LEASE_S = seconds_setting("CARDARENA_BEAT_LEASE_S", 10.0)
"""How long the leading beat's lease lasts without renewal (a standby takes over after this)."""

_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


class BeatLease:
    """The deployment's beat lease, as held (or not) by one beat process."""

    def __init__(self, client: redis.Redis, lease_s: float = LEASE_S) -> None:
        self.r = client
        self.key = key("beat", "leader")
        self.me = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.ttl_ms = max(1, int(lease_s * 1000))
        self._renew = client.register_script(_RENEW)
        self._release = client.register_script(_RELEASE)

    def hold(self) -> bool:
        """Renew the lease if this beat holds it, else take it if it is free; whether held now."""
        if self._renew(keys=[self.key], args=[self.me, self.ttl_ms]):
            return True
        return bool(self.r.set(self.key, self.me, nx=True, px=self.ttl_ms))

    def holder(self) -> str | None:
        """Who holds the lease now (``host:pid:tag``), if anyone."""
        raw = self.r.get(self.key)
        return raw.decode() if isinstance(raw, bytes) else raw

    def release(self) -> None:
        """Give the lease up if this beat holds it."""
        self._release(keys=[self.key], args=[self.me])


class LeaderScheduler(PersistentScheduler):  # type: ignore[misc]
    """Celery's persistent scheduler, sending only while it holds the :class:`BeatLease`."""

    def __init__(self, app: Any, *args: Any, **kwargs: Any) -> None:
        self.lease = BeatLease(client_for(app.conf.broker_url))
        self.leading = False
        self._told: str | None = None
        super().__init__(app, *args, **kwargs)

    def _lead(self) -> bool:
        try:
            held = self.lease.hold()
            holder = None if held else self.lease.holder()
        except redis.RedisError as exc:
            if self.leading:
                log.warning("beat: cannot reach Redis to renew the beat lease (%s); not sending until it can", exc)
            self.leading = False
            return False
        if held and not self.leading:
            log.info("beat: leading this deployment's beat (%s)", self.lease.me)
        elif not held and holder != self._told:
            log.warning(
                "beat: another beat leads this deployment (%s); this one (%s) stands by and takes over if it stops",
                holder,
                self.lease.me,
            )
            self._told = holder
        if held:
            self._told = None
        self.leading = held
        return held

    def tick(self, *args: Any, **kwargs: Any) -> float:
        # Check at least a few times per lease period, leading or not.
        check = LEASE_S / 3
        if not self._lead():
            return check
        return float(min(super().tick(*args, **kwargs), check))

    def close(self) -> None:
        try:
            if self.leading:
                self.lease.release()
                self.leading = False
        except redis.RedisError:
            pass  # the lease lapses on its own
        super().close()
