"""Service benchmark: moves/s and per-move round trip through the match service, against a bare
grpc.aio bidirectional echo with messages of the same sizes.

Run: ``cardarena bench service [--concurrency 1,10,100] [--seconds 3] [--repeats 3] [--json]``
(or ``python bench/service_bench.py ...``).

Service: an embedded Redis, ``cardarena service`` in its own process, and instant bots in their
own processes (a raw grpc.aio stream answering each ``ActionRequest`` with its first legal
action, no view decoding).  Each match seats one bot in both seats of German Whist, so the next
request of a match goes back to the same stream: the round trip is the time from sending an
``Action`` to receiving the match's next ``ActionRequest`` (the server's turnaround plus the
transport).  ``C`` matches run at once (the bots' ``max_matches`` add up to ``C``).

Echo: a grpc.aio server in its own process with one bidirectional method on raw bytes; the same
number of client processes and streams, ``C`` ping-pong loops in all, each sending a message of
the measured ``Action`` size and getting one of the measured ``ActionRequest`` size back.

Each figure is the median over ``--repeats`` runs of ``--seconds`` after one second of warm-up.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
WARMUP_S = 1.0
ECHO_METHOD = "/bench.Echo/Pingpong"


# ------------------------------------------------------------------ client processes
async def _bot(
    address: str, token: str, max_matches: int, warmup: float, seconds: float, batching: bool = True
) -> dict[str, Any]:
    import grpc
    from cardarena.wire import codec

    pb = codec.arena_pb2
    lat: list[float] = []
    sizes = {"request": 0, "action": 0}
    sent: dict[str, float] = {}
    reads = 0
    gaps: list[float] = []
    last = [0.0]
    start = time.perf_counter()
    t0, t1 = start + warmup, start + warmup + seconds
    async with grpc.aio.insecure_channel(address) as channel:
        stub = codec.arena_pb2_grpc.ArenaStub(channel)
        out: asyncio.Queue[Any] = asyncio.Queue()
        out.put_nowait(pb.BotMessage(hello=pb.Hello(max_matches=max_matches, client="bench", batching=batching)))

        async def requests() -> Any:
            # As the SDK does: answers queued together leave as one BotBatch.
            while True:
                m = await out.get()
                if m is None:
                    return
                ended = False
                if batching:
                    m, ended = codec.coalesce(m, out)
                yield m
                if ended:
                    return

        def handle(message: Any, now: float) -> None:
            kind = message.WhichOneof("kind")
            if kind == "batch":
                for item in message.batch.messages:
                    handle(item, now)
                return
            if kind != "action_request":
                if kind == "ping":
                    out.put_nowait(pb.BotMessage(pong=pb.Pong(nonce=message.ping.nonce)))
                return
            req = message.action_request
            before = sent.pop(req.match_id, None)
            if before is not None and now >= t0:
                lat.append(now - before)
            elif before is None and now >= t0 and max_matches <= 2 and last[0]:
                gaps.append(now - last[0])  # one match at a time: the previous one's last answer
            if not sizes["request"]:
                sizes["request"] = req.ByteSize()
            action = pb.BotMessage(action=pb.Action(match_id=req.match_id, seq=req.seq, action_id=req.legal[0].id))
            if not sizes["action"]:
                sizes["action"] = action.ByteSize()
            sent[req.match_id] = last[0] = time.perf_counter()
            out.put_nowait(action)

        call = stub.Play(requests(), metadata=(("authorization", f"Bearer {token}"),))
        async for message in call:
            now = time.perf_counter()
            if now >= t1:
                break
            if now >= t0:
                reads += 1
            handle(message, now)
        call.cancel()
        out.put_nowait(None)
    return {"latencies": lat, "sizes": sizes, "reads": reads, "gaps": gaps}


async def _echo_client(address: str, loops: int, size_in: int, warmup: float, seconds: float) -> dict[str, Any]:
    import grpc

    lat: list[float] = []
    start = time.perf_counter()
    t0, t1 = start + warmup, start + warmup + seconds
    payload = b"a" * max(1, size_in)
    async with grpc.aio.insecure_channel(address) as channel:
        out: asyncio.Queue[bytes | None] = asyncio.Queue()
        sent: dict[int, float] = {}

        async def requests() -> Any:
            while True:
                m = await out.get()
                if m is None:
                    return
                yield m

        call = channel.stream_stream(ECHO_METHOD)(requests())
        for i in range(loops):
            sent[i] = time.perf_counter()
            out.put_nowait(i.to_bytes(4, "big") + payload)
        async for reply in call:
            now = time.perf_counter()
            if now >= t1:
                break
            i = int.from_bytes(reply[:4], "big")
            if now >= t0:
                lat.append(now - sent[i])
            sent[i] = time.perf_counter()
            out.put_nowait(i.to_bytes(4, "big") + payload)
        call.cancel()
        out.put_nowait(None)
    return {"latencies": lat}


async def _echo_server(size_out: int) -> None:
    import grpc

    reply_body = b"r" * max(1, size_out - 4)

    async def pingpong(requests: Any, context: Any) -> Any:
        async for message in requests:
            yield message[:4] + reply_body

    server = grpc.aio.server()
    handler = grpc.method_handlers_generic_handler(
        "bench.Echo", {"Pingpong": grpc.stream_stream_rpc_method_handler(pingpong)}
    )
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    print(json.dumps({"event": "listening", "port": port}), flush=True)
    await server.wait_for_termination()


def _child(argv: list[str]) -> None:
    kind, rest = argv[0], argv[1:]
    if kind == "bot":
        address, token, max_matches, warmup, seconds = rest
        out = asyncio.run(_bot(address, token, int(max_matches), float(warmup), float(seconds)))
    elif kind == "echo-client":
        address, loops, size_in, warmup, seconds = rest
        out = asyncio.run(_echo_client(address, int(loops), int(size_in), float(warmup), float(seconds)))
    else:
        asyncio.run(_echo_server(int(rest[0])))
        return
    print(json.dumps(out), flush=True)


# ------------------------------------------------------------------ orchestration
def _spawn(args: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    from cardarena.server.commands import spawn

    return spawn([sys.executable, str(Path(__file__).resolve()), "--child", *args], env, stdout=subprocess.PIPE)


def _collect(procs: list[subprocess.Popen[bytes]], timeout: float) -> list[dict[str, Any]]:
    out = []
    for proc in procs:
        stdout, _ = proc.communicate(timeout=timeout)
        out.append(json.loads(stdout.decode().strip().splitlines()[-1]))
    return out


def _split(total: int, parts: int) -> list[int]:
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]


def _figures(latencies: list[float], seconds: float) -> dict[str, float]:
    lat = sorted(latencies)
    if not lat:
        return {"moves_per_s": 0.0, "p50_ms": 0.0, "p99_ms": 0.0, "samples": 0}
    return {
        "moves_per_s": len(lat) / seconds,
        "p50_ms": 1000 * lat[len(lat) // 2],
        "p99_ms": 1000 * lat[min(len(lat) - 1, int(len(lat) * 0.99))],
        "samples": len(lat),
    }


def service_run(url: str, concurrency: int, seconds: float, clients: int) -> tuple[dict[str, float], dict[str, int]]:
    """One measurement of the service at ``concurrency`` matches; returns (figures, message sizes)."""
    from cardarena.server.commands import start_service, stop_process
    from cardarena.store.bots import BotStore
    from cardarena.store.connection import client_for
    from cardarena.store.matches import FaultPolicy, MatchSpec, MatchStore, TimeControl

    prefix = f"bench-{uuid.uuid4().hex[:8]}:"
    env = {**os.environ, "REDIS_URL": url, "CARDARENA_PREFIX": prefix}
    old = os.environ.get("CARDARENA_PREFIX")
    os.environ["CARDARENA_PREFIX"] = prefix
    procs: list[subprocess.Popen[bytes]] = []
    try:
        client = client_for(url)
        matches, bots = MatchStore(client), BotStore(client)
        parts = [c for c in _split(concurrency, min(clients, concurrency)) if c]
        names = [f"bench-{i}" for i in range(len(parts))]
        tokens = [bots.register(n) for n in names]
        # Enough matches to keep every slot busy for the whole run (a German Whist match is
        # 52 moves; generous for 20k moves/s).
        per_bot = [max(4 * c, int(c + 20000 * (seconds + WARMUP_S) / 52 * c / concurrency)) for c in parts]
        # Interleaved over the bots (as a tournament's pairings are): the queue is FIFO, so a
        # queue of one bot's matches followed by the other's would leave the second bot idle.
        pipe_specs = []
        for m in range(max(per_bot)):
            for b, (name, count) in enumerate(zip(names, per_bot, strict=True)):
                if m >= count:
                    continue
                pipe_specs.append(
                    MatchSpec(
                        match_id=f"{name}-{m}",
                        game="german_whist",
                        players=2,
                        seats=(name, name),
                        seed=b * 100000 + m,
                        time_control=TimeControl(move_ms=60000, bank_ms=0),
                        fault_policy=FaultPolicy(max_strikes=0),
                    )
                )
        for spec in pipe_specs:
            matches.enqueue(spec)
        service, port = start_service(env, extra=["--grace", "0"])
        procs.append(service)
        address = f"127.0.0.1:{port}"
        bot_procs = [
            _spawn(["bot", address, tok, str(2 * c), str(WARMUP_S), str(seconds)], env)
            for tok, c in zip(tokens, parts, strict=True)
        ]
        procs += bot_procs
        outs = _collect(bot_procs, timeout=seconds + 60)
        lat = [x for o in outs for x in o["latencies"]]
        sizes = outs[0]["sizes"]
        figures = _figures(lat, seconds)
        # Stream messages the bots read per move: 2 without batching (the move's Event, then
        # the next ActionRequest), 1 when they arrive together, below 1 when several matches'
        # requests share a ServerBatch.
        figures["reads_per_move"] = sum(o["reads"] for o in outs) / len(lat) if lat else 0.0
        gaps = sorted(x for o in outs for x in o["gaps"])
        if gaps:  # one match at a time: from a match's last answer to the next match's first request
            figures["between_matches_ms"] = 1000 * gaps[len(gaps) // 2]
        return figures, sizes
    finally:
        for proc in reversed(procs):
            stop_process(proc)
        if old is None:
            os.environ.pop("CARDARENA_PREFIX", None)
        else:
            os.environ["CARDARENA_PREFIX"] = old


def echo_run(address: str, concurrency: int, seconds: float, clients: int, size_in: int) -> dict[str, float]:
    """One measurement of the bare echo at ``concurrency`` ping-pong loops."""
    parts = [c for c in _split(concurrency, min(clients, concurrency)) if c]
    procs = [
        _spawn(["echo-client", address, str(c), str(size_in), str(WARMUP_S), str(seconds)], dict(os.environ))
        for c in parts
    ]
    outs = _collect(procs, timeout=seconds + 60)
    return _figures([x for o in outs for x in o["latencies"]], seconds)


def _median(runs: list[dict[str, float]]) -> dict[str, float]:
    """Per figure, the median over the runs that have it."""
    keys = dict.fromkeys(k for r in runs for k in r)
    return {k: statistics.median(r[k] for r in runs if k in r) for k in keys}


def run(levels: list[int], *, seconds: float = 3.0, repeats: int = 3, clients: int = 2) -> dict[str, Any]:
    """Measure every level (service and echo); returns the figures as a dict.

    Service and echo runs alternate (service then echo at each level, repeat after repeat), so
    both see the same background load; the echo server starts once the first service run has
    measured the message sizes.  ``levels[*].runs`` keeps every repeat's figures and their
    per-repeat ratio (the spread behind the medians).
    """
    from cardarena.server.commands import stop_process
    from cardarena.store.connection import throwaway_redis

    report: dict[str, Any] = {"seconds": seconds, "repeats": repeats, "clients": clients, "levels": []}
    service: dict[int, list[dict[str, float]]] = {c: [] for c in levels}
    echo: dict[int, list[dict[str, float]]] = {c: [] for c in levels}
    echo_server: subprocess.Popen[bytes] | None = None
    with throwaway_redis() as url:
        sizes: dict[str, int] = {}
        try:
            for _ in range(repeats):
                for c in levels:
                    figures, measured = service_run(url, c, seconds, clients)
                    service[c].append(figures)
                    sizes = sizes or measured
                    if echo_server is None:
                        echo_server = _spawn(["echo-server", str(sizes.get("request", 100))], dict(os.environ))
                        assert echo_server.stdout is not None
                        port = json.loads(echo_server.stdout.readline())["port"]
                    echo[c].append(echo_run(f"127.0.0.1:{port}", c, seconds, clients, sizes.get("action", 30)))
        finally:
            if echo_server is not None:
                stop_process(echo_server)
        report["sizes"] = sizes
    for c in levels:
        s, e = _median(service[c]), _median(echo[c])
        report["levels"].append(
            {
                "concurrency": c,
                "service": s,
                "echo": e,
                "rate_vs_echo": s["moves_per_s"] / e["moves_per_s"] if e["moves_per_s"] else 0.0,
                "added_p50_ms": s["p50_ms"] - e["p50_ms"],
                "added_p99_ms": s["p99_ms"] - e["p99_ms"],
                "runs": [
                    {
                        "service": sr,
                        "echo": er,
                        "rate_vs_echo": sr["moves_per_s"] / er["moves_per_s"] if er["moves_per_s"] else 0.0,
                    }
                    for sr, er in zip(service[c], echo[c], strict=True)
                ],
            }
        )
    return report


def main(args: argparse.Namespace | None = None) -> int:
    """``cardarena bench service``: run and print a table (or JSON)."""
    if args is None:
        p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
        p.add_argument("--concurrency", default="1,10,100")
        p.add_argument("--json", action="store_true")
        args = p.parse_args()
    given = args.concurrency  # `cardarena bench service` parses it; this script's own parser does not
    levels = given if isinstance(given, list) else [int(x) for x in str(given).split(",") if x.strip()]
    report = run(
        levels,
        seconds=float(getattr(args, "seconds", 3.0) or 3.0),
        repeats=int(getattr(args, "repeats", 3) or 3),
        clients=int(getattr(args, "clients", 2) or 2),
    )
    if getattr(args, "json", False):
        print(json.dumps(report, indent=2))
        return 0
    print(
        f"sizes: ActionRequest {report['sizes'].get('request')} B, Action {report['sizes'].get('action')} B; "
        f"median of {report['repeats']} x {report['seconds']} s, {report['clients']} client processes"
    )
    print(
        f"{'matches':>8} | {'service moves/s':>15} {'p50 ms':>7} {'p99 ms':>7} | {'echo rt/s':>9} {'p50 ms':>7} "
        f"{'p99 ms':>7} | {'rate/echo':>9} {'+p99 ms':>7}"
    )
    for lv in report["levels"]:
        s, e = lv["service"], lv["echo"]
        per_repeat = ", ".join(f"{r['rate_vs_echo']:.2f}" for r in lv["runs"])
        print(
            f"{lv['concurrency']:>8} | {s['moves_per_s']:>15.0f} {s['p50_ms']:>7.3f} {s['p99_ms']:>7.3f} | "
            f"{e['moves_per_s']:>9.0f} {e['p50_ms']:>7.3f} {e['p99_ms']:>7.3f} | {lv['rate_vs_echo']:>9.2f} "
            f"{lv['added_p99_ms']:>7.3f}  (rate/echo per repeat: {per_repeat})"
        )
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        sys.path.insert(0, str(ROOT))
        _child(sys.argv[2:])
    else:
        sys.exit(main())
