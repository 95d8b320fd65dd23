"""A bot written from ``proto/`` and ``docs/protocol.md`` alone, as the author of a bot in a
language without an SDK would write it: stubs generated with grpcio-tools, no
``cardarena_sdk`` and no ``cardarena`` import.  It runs as a process of its own, with the
generated package ``cardarena.v1`` first on its path (an installed ``cardarena`` would
shadow it in the test's own process), and writes one JSON line per thing it saw to
``--trace`` for ``tests/test_protocol_only_bot.py`` to check::

    python tests/protocol_only_bot.py --stubs DIR --server ADDR register --admin-token T NAME
    python tests/protocol_only_bot.py --stubs DIR --server ADDR play --token T --trace FILE ...

``play`` says hello with its games and capacity, asks for batching, answers every request
with a legal id (Glaves: its lowest card; otherwise a random action, Coup's challenges
avoided), answers pings, follows events, keeps each match's results, and reconnects with
back-off whenever its stream ends (but on the codes a retry cannot change).  On purpose it
answers its first request with an id that is not legal (``--illegal-once``: it answers again
after the rejection) and kills its connection once with a Glaves request unanswered
(``--drop-at-seq N``: the first request of seq N or later), to resume it after reconnecting.
"""

from __future__ import annotations

import argparse
import importlib
import json
import queue
import random
import sys
import time
from typing import IO, Any

RANKS = "23456789TJQKA"
FINAL = {"UNAUTHENTICATED", "PERMISSION_DENIED", "INVALID_ARGUMENT"}
"""Stream ends a retry cannot change (docs/protocol.md, "Reconnect on any end")."""


class ProtocolBot:
    """One bot process: sessions one after the other until enough matches completed."""

    def __init__(self, grpc: Any, pb: Any, rpc: Any, args: argparse.Namespace, trace: IO[str]) -> None:
        self.grpc, self.pb, self.rpc, self.args, self.trace_to = grpc, pb, rpc, args, trace
        self.rng = random.Random(args.seed)
        self.games: dict[str, str] = {}  # match id -> game, from its MatchStart
        self.seats: dict[str, set[int]] = {}  # match id -> the seats of this bot
        self.requests: dict[tuple[str, int], Any] = {}  # (match id, seq) -> ActionRequest
        self.completed = 0
        self.illegal_left = 1 if args.illegal_once else 0
        self.rejection_due = False  # an illegal answer sent, its ActionRejected not seen yet
        self.drop_at = args.drop_at_seq

    def trace(self, kind: str, **fields: Any) -> None:
        self.trace_to.write(json.dumps({"t": kind, **fields}) + "\n")
        self.trace_to.flush()

    def done(self) -> bool:
        return bool(self.args.matches) and self.completed >= self.args.matches

    # ---------------------------------------------------------------- decisions

    def choose(self, match_id: str, request: Any) -> str:
        legal = list(request.legal)
        game = self.games.get(match_id, "")
        if game == "glaves":
            plays = [a for a in legal if a.kind == "play" and a.cards]
            if plays:
                return str(min(plays, key=lambda a: RANKS.find(a.cards[0][0])).id)
        if game == "coup":
            legal = [a for a in legal if a.id != "challenge"] or legal
        return str(self.rng.choice(legal).id)

    def action(self, match_id: str, seq: int, action_id: str) -> Any:
        return self.pb.BotMessage(action=self.pb.Action(match_id=match_id, seq=seq, action_id=action_id))

    # ---------------------------------------------------------------- sessions

    def run(self) -> int:
        """Sessions with back-off until ``--matches`` completed; 1 on a final refusal."""
        backoff = 0.05
        while not self.done():
            code = self.session()
            if code in FINAL:
                return 1
            if not self.done():
                time.sleep(backoff)
                backoff = min(2 * backoff, 2.0)
        return 0

    def session(self) -> str:
        """One ``Arena.Play`` stream; the status it ended with (``DROPPED``: killed on purpose)."""
        pb, args = self.pb, self.args
        channel = self.grpc.insecure_channel(args.server, options=[("grpc.keepalive_time_ms", 30_000)])
        outbox: queue.Queue[Any] = queue.Queue()
        hello = pb.Hello(
            bot=args.name,
            games=args.games.split(","),
            max_matches=args.max_matches,
            client="protocol-only-bot python",
            batching=True,
            version="proto-only",
        )
        outbox.put(pb.BotMessage(hello=hello))
        metadata = (("authorization", f"Bearer {args.token}"),)
        call = self.rpc.ArenaStub(channel).Play(iter(outbox.get, None), metadata=metadata)
        code = "OK"
        try:
            for message in call:
                batch = message.WhichOneof("kind") == "batch"
                items = list(message.batch.messages) if batch else [message]
                answers: list[Any] = []
                for item in items:
                    reply = self.handle(item)
                    if reply == "drop":
                        code = "DROPPED"
                        break
                    answers.extend(reply)
                if code == "DROPPED":
                    break
                if len(answers) > 1:  # the answers to one batch in one message
                    outbox.put(pb.BotMessage(batch=pb.BotBatch(messages=answers)))
                elif answers:
                    outbox.put(answers[0])
                if self.done():
                    break
        except self.grpc.RpcError as exc:
            code = exc.code().name
            self.trace("stream_end", code=code, details=exc.details())
        finally:
            outbox.put(None)
            call.cancel()
            channel.close()
        return code

    def handle(self, message: Any) -> list[Any] | str:
        """The answers to one server message (``"drop"``: kill the connection now)."""
        kind = message.WhichOneof("kind")
        if kind == "welcome":
            w = message.welcome
            self.trace("welcome", max_matches=w.max_matches, resumed=list(w.resumed), batching=w.batching)
        elif kind == "match_start":
            m = message.match_start
            self.games[m.match_id] = m.game
            self.seats.setdefault(m.match_id, set()).add(m.seat)
            self.trace("match_start", match_id=m.match_id, game=m.game, seat=m.seat, resumed=m.resumed)
        elif kind == "action_request":
            return self.on_request(message.action_request)
        elif kind == "action_rejected":
            return self.on_rejected(message.action_rejected)
        elif kind == "match_end":
            self.on_end(message.match_end)
        elif kind == "ping":
            return [self.pb.BotMessage(pong=self.pb.Pong(nonce=message.ping.nonce))]
        elif kind == "event" and message.event.is_default:
            e = message.event
            self.trace("default_action", match_id=e.match_id, seat=e.seat, fault=e.fault)
        return []

    def on_request(self, r: Any) -> list[Any] | str:
        known = (r.match_id, r.seq) in self.requests
        self.requests[(r.match_id, r.seq)] = r
        self.trace("request", match_id=r.match_id, seq=r.seq, seat=r.seat, view=r.view.WhichOneof("view"), again=known)
        calm = not (self.illegal_left or self.rejection_due)  # the rejection is not lost in the drop
        if calm and self.drop_at and self.games.get(r.match_id) == "glaves" and r.seq >= self.drop_at:
            self.drop_at = 0
            self.trace("drop", match_id=r.match_id, seq=r.seq)
            return "drop"
        if self.illegal_left:
            self.illegal_left -= 1
            self.rejection_due = True
            wrong = r.legal[0].id + "!"
            self.trace("illegal", match_id=r.match_id, seq=r.seq, answer=wrong)
            return [self.action(r.match_id, r.seq, wrong)]
        return [self.action(r.match_id, r.seq, self.choose(r.match_id, r))]

    def on_rejected(self, rejected: Any) -> list[Any]:
        code = self.pb.RejectCode.Name(rejected.code)
        self.trace("rejected", match_id=rejected.match_id, seq=rejected.seq, code=code, reason=rejected.reason)
        self.rejection_due = False
        request = self.requests.get((rejected.match_id, rejected.seq))
        if code != "REJECT_ILLEGAL_ACTION" or request is None or not (rejected.move_ms_left or rejected.bank_ms_left):
            return []
        answer = self.choose(rejected.match_id, request)  # the same seq: no new request comes
        self.trace("answered_again", match_id=rejected.match_id, seq=rejected.seq, answer=answer)
        return [self.action(rejected.match_id, rejected.seq, answer)]

    def on_end(self, end: Any) -> None:
        seats = sorted(self.seats.pop(end.match_id, set()))
        self.requests = {key: r for key, r in self.requests.items() if key[0] != end.match_id}
        self.trace(
            "match_end",
            match_id=end.match_id,
            game=self.games.pop(end.match_id, ""),
            status=end.status,
            scores=list(end.scores),
            ranks=list(end.ranks),
            seats=seats,
            places=[end.ranks[s] for s in seats] if end.ranks else [],
        )
        if end.status == "completed":
            self.completed += 1


def register(grpc: Any, pb: Any, rpc: Any, args: argparse.Namespace) -> int:
    """``Admin.RegisterBot`` with the admin token; prints the bot's token."""
    with grpc.insecure_channel(args.server) as channel:
        metadata = (("authorization", f"Bearer {args.admin_token}"),)
        reply = rpc.AdminStub(channel).RegisterBot(pb.RegisterBotRequest(name=args.name), metadata=metadata)
    print(reply.token)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stubs", required=True, help="where grpc_tools.protoc wrote the cardarena/v1 modules")
    parser.add_argument("--server", default="127.0.0.1:50051")
    commands = parser.add_subparsers(dest="command", required=True)
    reg = commands.add_parser("register")
    reg.add_argument("--admin-token", required=True)
    reg.add_argument("name")
    play = commands.add_parser("play")
    play.add_argument("--token", required=True)
    play.add_argument("--name", default="")
    play.add_argument("--games", default="glaves,coup")
    play.add_argument("--max-matches", type=int, default=4)
    play.add_argument("--matches", type=int, default=0, help="exit after this many completed (0: never)")
    play.add_argument("--seed", type=int, default=1)
    play.add_argument("--illegal-once", action="store_true")
    play.add_argument("--drop-at-seq", type=int, default=0)
    play.add_argument("--trace", default="-")
    args = parser.parse_args(argv)
    sys.path.insert(0, args.stubs)
    grpc = importlib.import_module("grpc")
    pb = importlib.import_module("cardarena.v1.arena_pb2")
    rpc = importlib.import_module("cardarena.v1.arena_pb2_grpc")
    if args.command == "register":
        return register(grpc, pb, rpc, args)
    with open(args.trace, "a") if args.trace != "-" else sys.stdout as trace:
        return ProtocolBot(grpc, pb, rpc, args, trace).run()


if __name__ == "__main__":
    sys.exit(main())
