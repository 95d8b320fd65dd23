"""The authoritative match service (grpc.aio): bot sessions, the match runner, the instance loop.

* :mod:`.hub` — live bot sessions and the matches they sit in; routes answers to the runner.
* :mod:`.runner` — plays one match in one asyncio task: clocks, fault policy, replay, result.
* :mod:`.service` — the gRPC servicers (thin), the claim loop, start-up and graceful shutdown.
* :mod:`.observability` — JSON-lines logs and Prometheus metrics.
* :mod:`.tls` — the port's TLS files: checked at start, watched for renewal; mutual TLS.
* :mod:`.commands` — ``cardarena service``, ``cardarena bot ...``, ``cardarena match ...``.
"""
