"""The Node.js example bot plays a whole match against the real service."""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path
from typing import IO, Any

import pytest
from cardarena.engine import rerun
from cardarena.store.bots import BotStore
from cardarena.store.connection import client_for
from cardarena.store.matches import FaultPolicy, MatchSpec, MatchStore, TimeControl

from .conftest import FIXTURE_GAME
from .server_harness import ScriptedBot, ServiceProcess

NODE_DIR = Path(__file__).resolve().parents[1] / "clients" / "node"
CLOCK = TimeControl(5000, 0)
"""The clock of the example's matches (a strike fails them)."""


@pytest.fixture
def node() -> str:
    """The ``node`` binary, with the example's packages installed (required under CI)."""
    found = shutil.which("node")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("node is required under CI")
        pytest.skip("node is not installed")
    if not (NODE_DIR / "node_modules").exists():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=NODE_DIR, check=True, timeout=300)
    return found


def _play_to_the_end(matches: MatchStore, spec: MatchSpec) -> dict[str, Any]:
    """Queue ``spec`` and wait (up to 2 minutes) until it is recorded; its result."""
    matches.enqueue(spec)
    deadline = time.monotonic() + 120
    while matches.status(spec.match_id) != "done":
        assert time.monotonic() < deadline, matches.info(spec.match_id)
        time.sleep(0.1)
    result = matches.result(spec.match_id)
    assert result is not None
    return result


def _node_refused(node: str, service: ServiceProcess, env: dict[str, str], *flags: str) -> str:
    """The example started with ``flags`` exits 1 by itself; returns what it wrote to stderr."""
    argv = [node, "random_bot.js", *flags, service.address]
    done = subprocess.run(argv, cwd=NODE_DIR, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, done.stderr
    return done.stderr


def _node_plays_one_match(
    node: str,
    service: ServiceProcess,
    env: dict[str, str],
    flags: list[str],
    name: str,
    credentials: object = None,
    script: str = "random_bot.js",
    *,
    policy: FaultPolicy | None = None,
    clock: TimeControl = CLOCK,
    stderr: IO[bytes] | None = None,
    game: str = "glaves",
    stdout: IO[bytes] | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The example (or ``script`` beside it), started with ``flags`` as ``name`` (``env`` makes
    it exit after one match, its stdout and stderr to ``stdout`` and ``stderr``), plays a whole
    match of ``game`` against a scripted bot that connects with ``credentials``, with no strike
    unless a fault ``policy`` is given (the strikes are then the caller's to check); the replay
    reproduces it.  The result and the replay."""
    client = client_for(service.env["REDIS_URL"])
    matches, bots = MatchStore(client), BotStore(client)
    argv = [node, script, *flags, service.address, name]
    proc = subprocess.Popen(argv, cwd=NODE_DIR, env=env, stdout=stdout, stderr=stderr)
    other = ScriptedBot(service.address, bots.register(f"python-{name}"), f"python-{name}", credentials=credentials)
    other.autoplay()
    try:
        seats = (name, f"python-{name}")
        spec = MatchSpec(name, game, 2, seats, seed=4, time_control=clock, fault_policy=policy or FaultPolicy())
        result = _play_to_the_end(matches, spec)
        assert policy is not None or result["strikes"] == [0, 0]
        replay = matches.replay(name)
        assert replay is not None
        rerun(replay)
        assert proc.wait(timeout=30) == 0
        return result, replay
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        other.close()
        client.close()


def _adapted(replacement: str, prefix: str, function: str = "choose") -> Path:
    """The example with its ``function`` (``choose``, ``onResult``) replaced by ``replacement``
    (JavaScript source), written beside it (its packages and ``proto/``) under a name starting
    with ``prefix``."""
    source = (NODE_DIR / "random_bot.js").read_text()
    mine = re.sub(rf"^function {function}\(.*?\) \{{\n.*?\n\}}", lambda _: replacement, source, flags=re.S | re.M)
    assert mine != source
    script = NODE_DIR / f"{prefix}-{os.getpid()}.js"
    script.write_text(mine)
    return script


def _adapted_plays_one_match(node: str, redis_url: str, choose: str, name: str, game: str = "glaves") -> dict[str, Any]:
    """The example with its ``choose`` replaced by ``choose`` plays one match of ``game`` as
    ``name`` against a service of its own (no strike allowed); the replay."""
    script = _adapted(choose, name)
    client = client_for(redis_url)
    service = ServiceProcess(redis_url)
    env = {**service.env, "CARDARENA_TOKEN": BotStore(client).register(name), "CARDARENA_EXIT_AFTER_MATCHES": "1"}
    try:
        return _node_plays_one_match(node, service, env, [], name, script=script.name, game=game)[1]
    finally:
        script.unlink()
        service.stop()
        client.close()


def test_node_bot_plays_a_whole_match(node: str, redis_url: str, key_prefix: str) -> None:
    client = client_for(redis_url)
    bots = BotStore(client)
    service = ServiceProcess(redis_url)
    token = bots.register("node-1")
    env = {**service.env, "CARDARENA_TOKEN": token, "CARDARENA_EXIT_AFTER_MATCHES": "1", "CARDARENA_VERSION": "node-v7"}
    try:
        result, replay = _node_plays_one_match(node, service, env, [], "node-1")
        # Its Hello carried the version; the scripted Python bot declared none.
        assert replay["seat_versions"] == ["node-v7", None]
        assert result["seat_versions"] == ["node-v7", None]
    finally:
        service.stop()
        client.close()


def test_a_bot_adapted_from_the_node_example_is_asked_again_after_an_illegal_answer(
    node: str, redis_url: str, key_prefix: str
) -> None:
    """A first bot made from the example by changing its `choose`: it answers the card instead
    of the action id; the rejection asks it again with the reason (before, the example only
    printed the rejection and the move timed out, a strike), and the view it gets is the game's."""
    student = """function choose(view, legal, rejected) {
  if (!Array.isArray(view.hand) || view.hand.length === 0) throw new Error(`not a Glaves view: ${view}`);
  if (!rejected) return legal[0].cards[0];
  if (!rejected.reason.includes(rejected.answer)) throw new Error(`no reason: ${rejected.reason}`);
  return legal[0].id;
}"""
    _adapted_plays_one_match(node, redis_url, student, "node-2")


def test_a_node_bot_gets_a_generic_view_as_plain_json(node: str, redis_url: str, key_prefix: str) -> None:
    """A game without a typed view message (the test-only entry point game) sends its views as a
    ``google.protobuf.Struct``; the example hands ``choose`` the same plain ``view_json`` keys as
    for a typed view (before, it passed the Struct itself: ``{fields: {hand: {listValue: ...}}}``)."""
    student = """function choose(view, legal, rejected) {
  if (view.game !== 'test_trumps' || !Array.isArray(view.hand) || typeof view.players !== 'number'
      || !Array.isArray(view.seats) || typeof view.seats[0].tricks !== 'number') {
    throw new Error(`not a plain view: ${JSON.stringify(view)}`);
  }
  const mine = legal.filter((a) => view.hand.includes(a.cards[0]));
  if (mine.length !== legal.length) throw new Error('a legal card is not in the hand');
  return legal[0].id;
}"""
    replay = _adapted_plays_one_match(node, redis_url, student, "node-g", game=FIXTURE_GAME)
    assert replay["game"] == FIXTURE_GAME and not replay.get("faults")


def test_a_node_bot_whose_choose_throws_hands_each_request_back(
    node: str, redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    """The example with a `choose` that always throws: each request is handed back, so the
    server plays every move of it by default at once (fault `error`), not after the clock
    (two minutes a move here) ran out."""
    script = _adapted('function choose(view, legal, rejected) {\n  throw new Error("a bug in choose");\n}', "throws")
    client = client_for(redis_url)
    service = ServiceProcess(redis_url)
    env = {**service.env, "CARDARENA_TOKEN": BotStore(client).register("node-3"), "CARDARENA_EXIT_AFTER_MATCHES": "1"}
    log = tmp_path / "node.log"
    try:
        with log.open("wb") as sink:
            result, replay = _node_plays_one_match(
                node,
                service,
                env,
                [],
                "node-3",
                script=script.name,
                policy=FaultPolicy(max_strikes=0),
                clock=TimeControl(300_000, 0),  # the match ends in time only if no move waits for it
                stderr=sink,
            )
    finally:
        script.unlink()
        service.stop()
        client.close()
    mine = [a for deal in replay["deals"] for a in deal["actions"] if a.get("seat") == 0]
    assert mine and all(a["fault"] == "error" and a["default"] is True for a in mine)
    assert {f["fault"] for f in replay["faults"]} == {"error"} and result["strikes"] == [len(mine), 0]
    said = log.read_text()
    assert said.count(": handed back; the server plays a default action now") == len(mine)
    assert "Error: a bug in choose" in said


def test_the_node_example_says_how_each_match_ended_for_it(
    node: str, redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    """The default ``onResult`` prints one line per match: the id, status, the bot's seats and
    place, and the scores and ranks of every seat as the service recorded them."""
    client = client_for(redis_url)
    service = ServiceProcess(redis_url)
    env = {**service.env, "CARDARENA_TOKEN": BotStore(client).register("node-5"), "CARDARENA_EXIT_AFTER_MATCHES": "1"}
    out = tmp_path / "node.out"
    try:
        with out.open("wb") as sink:
            result, _ = _node_plays_one_match(node, service, env, [], "node-5", stdout=sink)
    finally:
        service.stop()
        client.close()
    lines = [json.loads(line) for line in out.read_text().splitlines() if '"match_end"' in line]
    assert lines == [
        {
            "match_end": "node-5",
            "status": "completed",
            "reason": "",
            "seats": [0],
            "place": result["ranks"][0],
            "scores": result["scores"],
            "ranks": result["ranks"],
        }
    ]


def test_an_on_result_that_throws_is_printed_and_the_node_bot_plays_on(
    node: str, redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    """A bot author's ``onResult`` gets the result with the bot's seats; an exception in it is
    printed with its stack and the bot goes on (here: to the end of its run, exit status 0)."""
    hook = """function onResult(result) {
  console.log(`mine: ${result.match_id} ${result.status} seats=${result.seats} ranks=${result.ranks}`);
  throw new Error(`no statistics kept for ${result.match_id}`);
}"""
    script = _adapted(hook, "on-result", "onResult")
    client = client_for(redis_url)
    service = ServiceProcess(redis_url)
    env = {**service.env, "CARDARENA_TOKEN": BotStore(client).register("node-6"), "CARDARENA_EXIT_AFTER_MATCHES": "1"}
    out, err = tmp_path / "node.out", tmp_path / "node.err"
    try:
        with out.open("wb") as stdout, err.open("wb") as stderr:
            result, _ = _node_plays_one_match(
                node, service, env, [], "node-6", script=script.name, stdout=stdout, stderr=stderr
            )
    finally:
        script.unlink()
        service.stop()
        client.close()
    ranks = ",".join(str(r) for r in result["ranks"])
    assert f"mine: node-6 completed seats=0 ranks={ranks}" in out.read_text().splitlines()
    said = err.read_text()
    assert "onResult threw in node-6: the bot plays on\nError: no statistics kept for node-6\n    at onResult" in said


def test_node_bot_says_what_to_check_when_its_token_is_refused(node: str, redis_url: str, key_prefix: str) -> None:
    service = ServiceProcess(redis_url)
    try:
        env = {**service.env, "CARDARENA_TOKEN": "0123456789abcdef.wrong"}
        done = subprocess.run(
            [node, "random_bot.js", service.address], cwd=NODE_DIR, env=env, capture_output=True, text=True, timeout=60
        )
    finally:
        service.stop()
    assert done.returncode == 1
    assert done.stderr.strip() == (
        f"{service.address}: missing or invalid bearer token (status 16): not retrying; check CARDARENA_TOKEN: "
        "the token `cardarena bot register NAME` printed for this service (`cardarena bot token NAME` issues a new one)"
    )


def test_node_bot_reconnects_when_the_server_restarts(node: str, redis_url: str, key_prefix: str) -> None:
    """A server shutting down ends the stream with status OK; the example reconnects (as every
    bot must, docs/protocol.md) and plays on the server that comes back on the same address."""
    client = client_for(redis_url)
    matches, bots = MatchStore(client), BotStore(client)
    first = ServiceProcess(redis_url, "--grace", "0")
    port = first.port
    token = bots.register("node-2")
    env = {**first.env, "CARDARENA_TOKEN": token, "CARDARENA_EXIT_AFTER_MATCHES": "1"}
    argv = [node, "random_bot.js", first.address, "node-2"]
    proc = subprocess.Popen(argv, cwd=NODE_DIR, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    second: ServiceProcess | None = None
    other: ScriptedBot | None = None
    try:
        assert proc.stdout is not None
        assert '"connected"' in proc.stdout.readline()  # the Welcome of the first server
        first.stop()
        second = ServiceProcess(redis_url, "--port", str(port), "--grace", "0")
        other = ScriptedBot(second.address, bots.register("python-3"), "python-3")
        other.autoplay()
        matches.enqueue(
            MatchSpec("again", "glaves", 2, ("node-2", "python-3"), seed=5, time_control=TimeControl(5000, 0))
        )
        deadline = time.monotonic() + 120
        while matches.status("again") != "done":
            assert time.monotonic() < deadline, matches.info("again")
            time.sleep(0.1)
        assert proc.wait(timeout=30) == 0
        assert proc.stderr is not None and "reconnecting" in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
        if other is not None:
            other.close()
        if second is not None:
            second.stop()
        client.close()


def test_node_bot_plays_over_tls_and_stops_on_an_untrusted_certificate(
    node: str, redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    """``--ca-cert FILE``: TLS trusting that CA (a throwaway one from trustme); a CA that did not
    sign the service's certificate, or no ``--tls`` at all, is a clear error and exit status 1,
    not endless retries."""
    import grpc
    import trustme

    ca, other_ca = trustme.CA(), trustme.CA()
    issued = ca.issue_cert("localhost", "127.0.0.1")
    cert, key, trusted, untrusted = (tmp_path / n for n in ("cert.pem", "key.pem", "ca.pem", "other.pem"))
    issued.cert_chain_pems[0].write_to_path(str(cert))
    issued.private_key_pem.write_to_path(str(key))
    ca.cert_pem.write_to_path(str(trusted))
    other_ca.cert_pem.write_to_path(str(untrusted))
    client = client_for(redis_url)
    bots = BotStore(client)
    service = ServiceProcess(redis_url, "--tls-cert", str(cert), "--tls-key", str(key))
    token = bots.register("node-tls")
    env = {**service.env, "CARDARENA_TOKEN": token, "CARDARENA_EXIT_AFTER_MATCHES": "1"}
    assert f"{service.address}: TLS handshake failed: " in _node_refused(
        node, service, env, "--ca-cert", str(untrusted)
    )
    plain = _node_refused(node, service, env)
    assert f"{service.address}: the service serves TLS on this port: connect with --tls" in plain
    try:
        credentials = grpc.ssl_channel_credentials(trusted.read_bytes())
        _node_plays_one_match(node, service, env, ["--ca-cert", str(trusted)], "node-tls", credentials)
    finally:
        service.stop()
        client.close()


def test_node_bot_plays_with_a_client_certificate_and_stops_without_one(
    node: str, redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    """Mutual TLS (``cardarena service --tls-client-ca``): ``--client-cert/--client-key`` plays a
    match; without a client certificate the handshake is refused, said in one line, exit 1."""
    import grpc
    import trustme

    ca, client_ca = trustme.CA(), trustme.CA()
    served, bot_cert = ca.issue_cert("localhost", "127.0.0.1"), client_ca.issue_cert("node-bot@cardarena.test")
    files = {n: tmp_path / f"{n}.pem" for n in ("cert", "key", "ca", "client-ca", "client-cert", "client-key")}
    served.cert_chain_pems[0].write_to_path(str(files["cert"]))
    served.private_key_pem.write_to_path(str(files["key"]))
    ca.cert_pem.write_to_path(str(files["ca"]))
    client_ca.cert_pem.write_to_path(str(files["client-ca"]))
    bot_cert.cert_chain_pems[0].write_to_path(str(files["client-cert"]))
    bot_cert.private_key_pem.write_to_path(str(files["client-key"]))
    client = client_for(redis_url)
    bots = BotStore(client)
    tls = ["--tls-cert", str(files["cert"]), "--tls-key", str(files["key"]), "--tls-client-ca", str(files["client-ca"])]
    service = ServiceProcess(redis_url, *tls)
    token = bots.register("node-mtls")
    env = {**service.env, "CARDARENA_TOKEN": token, "CARDARENA_EXIT_AFTER_MATCHES": "1"}
    assert (
        f"{service.address}: TLS handshake failed: the server requires a client certificate "
        "(mutual TLS: pass --client-cert FILE --client-key FILE): not retrying"
    ) in _node_refused(node, service, env, "--ca-cert", str(files["ca"]))
    pair = ["--client-cert", str(files["client-cert"]), "--client-key", str(files["client-key"])]
    try:
        credentials = grpc.ssl_channel_credentials(
            files["ca"].read_bytes(), files["client-key"].read_bytes(), files["client-cert"].read_bytes()
        )
        _node_plays_one_match(node, service, env, ["--ca-cert", str(files["ca"]), *pair], "node-mtls", credentials)
    finally:
        service.stop()
        client.close()


def test_a_node_bots_client_certificate_rotated_on_disk_is_presented_at_the_next_reconnect(
    node: str, redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    """The example reads its TLS files for each connection attempt.  Welcomed with client
    certificate A, its files are replaced by B (of another CA), the certificate first: while the
    key does not match, each attempt is skipped with one line and a doubled wait, and the bot
    goes on; once the key is in place too, the service that came back trusting only B's CA
    welcomes it (before, it kept presenting A until restarted)."""
    import threading

    import trustme

    ca, ca_a, ca_b = trustme.CA(), trustme.CA(), trustme.CA()
    served = ca.issue_cert("localhost", "127.0.0.1")
    files = {n: tmp_path / f"{n}.pem" for n in ("cert", "key", "ca", "ca-a", "ca-b", "bot-cert", "bot-key")}
    served.cert_chain_pems[0].write_to_path(str(files["cert"]))
    served.private_key_pem.write_to_path(str(files["key"]))
    ca.cert_pem.write_to_path(str(files["ca"]))
    ca_a.cert_pem.write_to_path(str(files["ca-a"]))
    ca_b.cert_pem.write_to_path(str(files["ca-b"]))
    bot_a, bot_b = ca_a.issue_cert("node-bot@cardarena.test"), ca_b.issue_cert("node-bot@cardarena.test")
    bot_a.cert_chain_pems[0].write_to_path(str(files["bot-cert"]))
    bot_a.private_key_pem.write_to_path(str(files["bot-key"]))

    def rotate(name: str, data: bytes) -> None:  # as a rotation should: beside it, then renamed
        fresh = files[name].with_name(files[name].name + ".new")
        fresh.write_bytes(data)
        os.replace(fresh, files[name])

    client = client_for(redis_url)
    tls = ["--grace", "0", "--tls-cert", str(files["cert"]), "--tls-key", str(files["key"])]
    first = ServiceProcess(redis_url, *tls, "--tls-client-ca", str(files["ca-a"]))
    second: ServiceProcess | None = None
    env = {**first.env, "CARDARENA_TOKEN": BotStore(client).register("node-rot")}
    pair = ["--client-cert", str(files["bot-cert"]), "--client-key", str(files["bot-key"])]
    argv = [node, "random_bot.js", "--ca-cert", str(files["ca"]), *pair, first.address, "node-rot"]
    proc = subprocess.Popen(argv, cwd=NODE_DIR, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    said: dict[str, list[str]] = {"out": [], "err": []}
    readers = [
        threading.Thread(target=lambda n=name, f=pipe: said[n].extend(f), daemon=True)  # type: ignore[misc]
        for name, pipe in (("out", proc.stdout), ("err", proc.stderr))
    ]
    for reader in readers:
        reader.start()
    deadline = time.monotonic() + 60

    def until(count: int, text: str, where: str) -> None:
        while sum(text in line for line in list(said[where])) < count:
            assert time.monotonic() < deadline and proc.poll() is None, said
            time.sleep(0.05)

    try:
        until(1, '"connected"', "out")
        rotate("bot-cert", bot_b.cert_chain_pems[0].bytes())  # the rotation, half done
        first.stop()
        second = ServiceProcess(redis_url, "--port", str(first.port), *tls, "--tls-client-ca", str(files["ca-b"]))
        until(3, "not connecting: a TLS file cannot be used", "err")
        rotate("bot-key", bot_b.private_key_pem.bytes())  # ... and done
        until(2, '"connected"', "out")
    finally:
        proc.kill()
        proc.wait()
        for reader in readers:
            reader.join(10)
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
        if second is not None:
            second.stop()
        first.stop()
        client.close()
    broken = [line for line in said["err"] if "not connecting: a TLS file cannot be used" in line]
    assert all("the key does not match the certificate" in line for line in broken), broken
    waits = [int(re.search(r"reconnecting in (\d+) ms", line).group(1)) for line in broken]  # type: ignore[union-attr]
    assert all(later == min(5000, 2 * wait) for wait, later in itertools.pairwise(waits)), waits  # backed off
    assert not any("did not accept the client certificate" in line for line in said["err"]), said


def test_node_bot_backs_off_from_a_server_that_ends_each_session_after_its_welcome(node: str) -> None:
    """A server that welcomes each session and ends it at once (broken, or hostile): the example
    reconnects with a growing back-off, not every 100 ms for ever (a welcome reset the delay,
    and every one of those sessions was welcomed)."""
    import re
    from concurrent import futures

    import grpc
    from cardarena.wire import codec

    pb = codec.arena_pb2

    class WelcomeThenEnd(codec.arena_pb2_grpc.ArenaServicer):  # type: ignore[misc]
        def Play(self, request_iterator: object, context: object) -> object:
            yield pb.ServerMessage(welcome=pb.Welcome(bot="node-x", session_id="s", instance="x"))

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    codec.arena_pb2_grpc.add_ArenaServicer_to_server(WelcomeThenEnd(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    env = {**os.environ, "CARDARENA_TOKEN": "t.s"}
    proc = subprocess.Popen(
        [node, "random_bot.js", f"127.0.0.1:{port}", "node-x"],
        cwd=NODE_DIR,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    waits: list[int] = []
    try:
        assert proc.stderr is not None
        for line in proc.stderr:
            found = re.search(r"reconnecting in (\d+) ms", line)
            if found:
                waits.append(int(found.group(1)))
            if len(waits) >= 6:
                break
    finally:
        proc.kill()
        proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()
        server.stop(None)
    # 100 ms doubled per session that did not last: 100, 200, 400, 800, 1600, 3200.
    assert waits == [100, 200, 400, 800, 1600, 3200], waits
