"""Test harness for the service: a service subprocess and a scripted bot (a fake at the IO
boundary: a raw gRPC client the test drives message by message)."""

from __future__ import annotations

import os
import queue
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from cardarena.server.commands import start_service, stop_process
from cardarena.store.bots import BotStore
from cardarena.store.connection import client_for
from cardarena.store.matches import MatchStore, TimeControl
from cardarena.wire import codec

pb = codec.arena_pb2


@pytest.fixture
def stores(redis_url: str, key_prefix: str) -> tuple[MatchStore, BotStore]:
    """The match and bot repositories in the test's own key namespace."""
    client = client_for(redis_url)
    return MatchStore(client), BotStore(client)


SLOW_CLOCK = TimeControl(move_ms=120_000, bank_ms=0)
"""A clock no test waits out: a match that ends in time had no time-out."""


class ServiceProcess:
    """``python -m cardarena.server service`` on a free port (killed in teardown)."""

    def __init__(self, redis_url: str, *args: str, log: Path | None = None) -> None:
        """``log``: a file for the service's log (its stderr), else only its last lines are kept."""
        self.env = {**os.environ, "REDIS_URL": redis_url}
        if log is None:
            self.proc, self.port = start_service(self.env, extra=list(args))
        else:
            with log.open("ab") as sink:
                self.proc, self.port = start_service(self.env, extra=list(args), log=sink)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def bot_process(self, kind: str, name: str, token: str, *extra: str) -> subprocess.Popen[bytes]:
        import sys

        from cardarena.server.commands import spawn

        argv = [sys.executable, "-m", "cardarena.server", "bot", "run", kind, "--server", self.address, "--name", name]
        return spawn([*argv, *extra], {**self.env, "CARDARENA_TOKEN": token})

    def stop(self) -> None:
        stop_process(self.proc)


class ScriptedBot:
    """A bot the test scripts: ``expect`` the next message of a kind, ``act``, ``close``."""

    def __init__(
        self,
        address: str,
        token: str,
        name: str = "",
        *,
        max_matches: int = 4,
        hello: Any = None,
        send_hello: bool = True,
        credentials: Any = None,
    ) -> None:
        # credentials: grpc.ssl_channel_credentials(...) for a service that serves TLS
        self.channel = grpc.secure_channel(address, credentials) if credentials else grpc.insecure_channel(address)
        stub = codec.arena_pb2_grpc.ArenaStub(self.channel)
        self.out: queue.Queue[Any] = queue.Queue()
        self.inbox: queue.Queue[Any] = queue.Queue()
        self.error: grpc.RpcError | None = None
        first = hello if hello is not None else pb.BotMessage(hello=pb.Hello(bot=name, max_matches=max_matches))
        self.hello = first
        """The first message; sent at once, or by the test (``send(bot.hello)``) if ``send_hello`` is off."""
        if send_hello:
            self.out.put(first)
        self.call = stub.Play(iter(self.out.get, None), metadata=(("authorization", f"Bearer {token}"),))
        self.auto = False
        self.delays: dict[int, float] = {}
        """Autoplay: seconds to wait before answering its n-th request (1-based)."""
        self.silent: set[int] = set()
        """Autoplay: the requests (n-th, 1-based) left unanswered: their clock runs out."""
        self.asked = 0
        """Requests autoplay has seen."""
        self.choose: Callable[[Any], str] = lambda request: str(request.legal[0].id)
        """Autoplay's answer to a request (default: its first legal action)."""
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            for message in self.call:
                kind = message.WhichOneof("kind")
                if self.auto and kind == "action_request":
                    self._autoanswer(message.action_request)
                    continue
                self.inbox.put(message)
        except grpc.RpcError as exc:
            self.error = exc
        self.inbox.put(None)

    def messages(self, timeout: float = 15.0) -> Iterator[Any]:
        while True:
            message = self.inbox.get(timeout=timeout)
            if message is None:
                return
            yield message

    def expect(self, kind: str, timeout: float = 15.0) -> Any:
        """The next message of ``kind`` (others are skipped); fails on stream end."""
        for message in self.messages(timeout):
            if message.WhichOneof("kind") == kind:
                return getattr(message, kind)
        raise AssertionError(f"stream ended before {kind}: {self.error!r}")

    def status(self, timeout: float = 15.0) -> grpc.StatusCode:
        """The status the stream ended with."""
        for _ in self.messages(timeout):
            pass
        assert self.error is not None
        code: grpc.StatusCode = self.error.code()
        return code

    def act(self, match_id: str, seq: int, action_id: str) -> None:
        self.out.put(pb.BotMessage(action=pb.Action(match_id=match_id, seq=seq, action_id=action_id)))

    def send(self, message: Any) -> None:
        self.out.put(message)

    def autoplay(
        self,
        delays: dict[int, float] | None = None,
        silent: set[int] | None = None,
        choose: Callable[[Any], str] | None = None,
    ) -> None:
        """From now on answer every request with its first legal action (or ``choose(request)``),
        including requests already waiting in the inbox (otherwise a request that arrived just
        before this call would go unanswered until its clock ran out).  A slow bot: ``delays``
        maps the n-th request from now (1-based) to the seconds it waits before answering; the
        requests in ``silent`` are never answered (a time-out)."""
        self.delays, self.silent, self.asked = dict(delays or {}), set(silent or ()), 0
        if choose is not None:
            self.choose = choose
        self.auto = True
        kept = []
        for message in self.received():
            if message is not None and message.WhichOneof("kind") == "action_request":
                self._autoanswer(message.action_request)
            else:
                kept.append(message)
        for message in kept:
            self.inbox.put(message)

    def _autoanswer(self, req: Any) -> None:
        """Autoplay's answer to ``req`` (its first legal action), after its delay if any."""
        self.asked += 1
        if self.asked in self.silent:
            return
        time.sleep(self.delays.get(self.asked, 0.0))
        self.act(req.match_id, req.seq, self.choose(req))

    def received(self) -> list[Any]:
        """The messages received and not yet read, without waiting (``None``: the stream ended)."""
        out = []
        while True:
            try:
                out.append(self.inbox.get_nowait())
            except queue.Empty:
                return out

    def close(self) -> None:
        self.out.put(None)
        self.call.cancel()
        self.channel.close()
