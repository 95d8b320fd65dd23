"""The repository layer: the only code that talks to Redis.

* :mod:`.connection` — where Redis is (``REDIS_URL``, or the embedded private server).
* :mod:`.keys` — the key namespace.
* :mod:`.values` — values the records may take (no Redis: argument parsers read them).
* :mod:`.matches` — match specs, the job queue, leases, results, replays, result events.
* further modules per aggregate (bots, tournaments, notifications ...) follow the same pattern.
"""
