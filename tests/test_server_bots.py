"""The bot repository: registration, hashed tokens, names, statistics (real Redis)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from cardarena.store.bots import (
    BotError,
    BotExists,
    BotHasHistory,
    BotStore,
    InvalidBotName,
    LookAlikeName,
    RosterRefused,
    UnknownBot,
)
from cardarena.store.connection import client_for
from cardarena.store.keys import key
from cardarena.store.matches import MatchSpec, MatchStore
from cardarena.store.tournaments import Tournament, TournamentStore, UnregisteredEntrants


@pytest.fixture
def bots(redis_url: str, key_prefix: str) -> BotStore:
    return BotStore(client_for(redis_url))


def test_register_and_authenticate(bots: BotStore) -> None:
    token = bots.register("alpha")
    assert bots.authenticate(token) == "alpha"
    assert bots.authenticate(token + "x") is None
    assert bots.authenticate("nope") is None
    assert bots.authenticate("0123456789abcdef.secret") is None
    with pytest.raises(BotExists):
        bots.register("alpha")


def test_token_is_stored_hashed(bots: BotStore) -> None:
    token = bots.register("beta")
    secret = token.partition(".")[2]
    for k in bots.r.keys(bots.ALL.rsplit(":", 1)[0] + ":*"):
        kind = bots.r.type(k)
        values = bots.r.hvals(k) if kind == b"hash" else []
        assert all(secret.encode() not in v for v in values)


def test_rotate_replaces_the_token(bots: BotStore) -> None:
    old = bots.register("gamma")
    new = bots.rotate("gamma")
    assert bots.authenticate(old) is None
    assert bots.authenticate(new) == "gamma"
    with pytest.raises(UnknownBot):
        bots.rotate("nobody")


@pytest.mark.parametrize("name", ["", " padded", "tab\there", "x" * 65, "new\nline", "a:b", "x,y"])
def test_invalid_names_are_refused(bots: BotStore, name: str) -> None:
    with pytest.raises(InvalidBotName):
        bots.register(name)


@pytest.mark.parametrize("name", ["..", ".", "team/..", "../x", "a/./b"])
def test_a_name_with_a_dot_segment_is_refused(bots: BotStore, name: str) -> None:
    """A bot's page is ``/bots/<name>``: a browser resolves ``.`` and ``..`` segments away (even
    escaped), so the link of a bot named ``..`` led to the home page and its page could not be
    reached.  Names with ``/`` and other dots stay valid."""
    with pytest.raises(InvalidBotName, match=r"'\.' or '\.\.'"):
        bots.register(name)
    for fine in ("team/bot", "...", "v1.2", ".hidden"):
        bots.register(fine)
    assert bots.names() == sorted(["team/bot", "...", "v1.2", ".hidden"])


def test_a_comma_is_refused_with_the_reason(bots: BotStore) -> None:
    """``--bots A,B,C`` splits on commas: a bot named ``x,y`` could never be entered."""
    with pytest.raises(InvalidBotName, match="must not contain ','"):
        bots.register("x,y")
    assert bots.names() == []


def test_html_is_a_valid_name_and_stats_count(bots: BotStore) -> None:
    bots.register("<b>bold</b> & co")
    bots.count("<b>bold</b> & co", "timeouts")
    bots.count("<b>bold</b> & co", "matches", 2)
    record = bots.get("<b>bold</b> & co")
    assert record is not None
    assert record.stats["timeouts"] == 1 and record.stats["matches"] == 2 and record.stats["forfeits"] == 0
    assert [b.name for b in bots.list()] == ["<b>bold</b> & co"]


def test_bots_of_local_runs_are_not_entrants_and_keep_out_of_registered_names(bots: BotStore) -> None:
    from cardarena.server.commands import issue_token

    bots.register("alice")
    first = issue_token(bots, "random-1")  # a local run (match, tournament run, demo)
    assert bots.is_local("random-1") and not bots.is_local("alice")
    assert bots.names() == ["alice", "random-1"] and bots.entrants() == ["alice"]
    again = issue_token(bots, "random-1")  # the next run re-keys its own bot
    assert bots.authenticate(again) == "random-1" and bots.authenticate(first) is None
    alice_token = bots.rotate("alice")
    with pytest.raises(BotExists, match="not by a local run"):
        issue_token(bots, "alice")
    assert bots.authenticate(alice_token) == "alice"  # untouched


def test_a_local_bot_connected_now_keeps_its_token(bots: BotStore) -> None:
    """A second ``cardarena match`` using the same seat names while the first plays: a new token
    would end the first run's bot, so the second is refused, saying why."""
    from cardarena.server.commands import issue_token
    from cardarena.store.presence import SessionLeases

    token = issue_token(bots, "heuristic-2")
    leases = SessionLeases(bots.r)
    assert leases.acquire("heuristic-2", "lease-1", limit=4, ttl_ms=60_000)
    with pytest.raises(BotExists, match=r"'heuristic-2' is connected now: another run .* its own Redis \(REDIS_URL"):
        issue_token(bots, "heuristic-2", wait_s=0.5)
    assert bots.authenticate(token) == "heuristic-2"  # the playing run's token still works
    leases.release("heuristic-2", "lease-1")
    assert bots.authenticate(issue_token(bots, "heuristic-2")) == "heuristic-2"  # free again: re-keyed
    assert bots.authenticate(token) is None


def test_a_lease_left_by_a_killed_run_is_waited_for(bots: BotStore) -> None:
    """A run killed while its bot was connected leaves a session lease that lapses by itself
    (~10 s); the next run waits for it instead of refusing the name."""
    from cardarena.server.commands import issue_token
    from cardarena.store.presence import SessionLeases

    token = issue_token(bots, "random-1")
    assert SessionLeases(bots.r).acquire("random-1", "lease-dead", limit=4, ttl_ms=1500)
    fresh = issue_token(bots, "random-1", wait_s=30)
    assert bots.authenticate(fresh) == "random-1"
    assert bots.authenticate(token) is None
    assert SessionLeases(bots.r).held("random-1") == 0


LOOK_ALIKES = (
    "alice",
    "Alice",
    "ALICE",
    "al\u0456ce",
    "\u0430lice",
    "\uff41\uff4c\uff49\uff43\uff45",
    "aLice",
    "alicE",
)
"""Eight names that read as ``alice``: case, full width, a Cyrillic і or а."""


def _at_once(redis_url: str, register: Callable[[BotStore, str], object], names: Sequence[str]) -> list[str]:
    """Register each of ``names`` from its own thread and connection, all released at the same
    moment (as from several admin requests or ``bot register`` processes); the names that
    got through."""
    start = threading.Barrier(len(names))
    done: list[str] = []

    def attempt(name: str) -> None:
        store = BotStore(client_for(redis_url))
        start.wait()
        try:
            register(store, name)
        except BotError:
            return
        done.append(name)

    threads = [threading.Thread(target=attempt, args=(name,)) for name in names]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return done


def test_look_alikes_registered_at_the_same_moment_let_exactly_one_through(bots: BotStore, redis_url: str) -> None:
    """Found in review: the look-alike check read the registered names, then the registration
    wrote its own, so look-alikes registered at the same moment all passed the check.  Now the
    check and the registration are one step: of eight look-alikes registered at once, one gets
    through (round after round), the others are refused and leave nothing behind."""
    for round_ in range(6):
        names = [f"{name}{round_}" for name in LOOK_ALIKES]
        done = _at_once(redis_url, lambda store, name: store.register(name), names)
        assert len(done) == 1, (round_, done)
        assert [n for n in bots.names() if n.endswith(str(round_))] == done
        assert bots.exist(names).count(True) == 1
        for name in names:
            if name not in done:
                with pytest.raises(LookAlikeName, match=f"looks like the registered bot {done[0]!r}"):
                    bots.register(name)


def test_rosters_with_look_alikes_registered_at_the_same_moment_let_exactly_one_through(
    bots: BotStore, redis_url: str
) -> None:
    """A roster is registered whole or not at all: of eight rosters registered at once, each
    with a name of its own and a look-alike of the others', one is registered, the other seven
    not at all (their own names neither)."""
    done = _at_once(
        redis_url,
        lambda store, name: store.register_roster([f"own-{name.encode().hex()}", name]),
        LOOK_ALIKES,
    )
    assert len(done) == 1, done
    assert bots.names() == sorted([done[0], f"own-{done[0].encode().hex()}"])
    with pytest.raises(RosterRefused, match=f"looks like the registered bot {done[0]!r}") as refused:
        bots.register_roster(["own-late", "ALIC\u0395"], skip_registered=True)
    assert refused.value.taken == [] and not bots.exists("own-late")


def test_bots_stored_without_the_look_index_are_indexed_and_their_look_alikes_refused(bots: BotStore) -> None:
    """A deployment of an earlier version has no look index, and a version running beside this
    one (an upgrade under way) writes bots without indexing them: the next registration indexes
    them first, so a look-alike of each is refused all the same."""
    for name in ("bob", "carol", "dave"):
        bots.register(name)
    index = [bots.LOOKED, *(k.decode() for k in bots.r.scan_iter(match=bots.ALL + ":look:*"))]
    assert len(index) == 4
    bots.r.delete(*index)  # as an earlier version left it
    bots.r.hset(BotStore.record_key("erin"), mapping={"name": "erin", "created_at": 1.0, "token_id": "x"})
    bots.r.zadd(bots.ALL, {"erin": 0})  # as an older version running beside this one writes a bot
    for alike, other in (("B\u043eb", "bob"), ("CAROL", "carol"), ("\uff45rin", "erin")):
        with pytest.raises(LookAlikeName, match=f"looks like the registered bot {other!r}"):
            bots.register(alike)
    assert {m.decode() for m in bots.r.smembers(bots.LOOKED)} == {"bob", "carol", "dave", "erin"}
    with pytest.raises(RosterRefused, match="looks like the registered bot 'dave'"):
        bots.register_roster(["frank", "Dave"])
    assert [name for name, _ in bots.register_roster(["frank", "grace"])[0]] == ["frank", "grace"]
    assert bots.names() == ["bob", "carol", "dave", "erin", "frank", "grace"]


def test_a_retired_bot_or_one_with_a_new_token_keeps_its_look(bots: BotStore) -> None:
    bots.register("heidi")
    bots.rotate("heidi")
    bots.retire("heidi")
    with pytest.raises(LookAlikeName, match="looks like the registered bot 'heidi'"):
        bots.register("Heidi")
    with pytest.raises(BotExists):
        bots.register("heidi")
    assert bots.authenticate(bots.rotate("heidi")) == "heidi"
    assert bots.register_roster(["heidi", "ivan"], skip_registered=True)[1] == ["heidi"]


def _contents(bots: BotStore) -> dict[str, object]:
    """Every key of the test's namespace with its type and contents."""
    r = bots.r
    out: dict[str, object] = {}
    for k in r.keys(key("*")):
        kind = r.type(k).decode()
        read = {"hash": r.hgetall, "set": r.smembers, "zset": lambda k: r.zrange(k, 0, -1, withscores=True)}
        out[k.decode()] = (kind, read.get(kind, r.dump)(k))
    return out


def test_a_bot_that_never_played_is_deleted_with_all_that_registering_it_wrote(bots: BotStore) -> None:
    """A name registered by mistake (a typo, a student who left the course before the first
    match): ``delete`` leaves the store as it was before the registration (its record, token,
    look index entries, retired and local marks all gone), so the name, or one that looks like
    it, can be registered again; the token no longer authenticates."""
    bots.register("keeper")
    bots.register("warm-up", local=True)
    bots.delete("warm-up", games=GAMES)  # indexes the (no) older matches and tournaments once
    before = _contents(bots)
    for local in (False, True):
        token = bots.register("Oops", local=local)
        bots.retire("Oops")
        bots.delete("Oops", games=GAMES)
        assert _contents(bots) == before, local
        assert bots.authenticate(token) is None and not bots.exists("Oops") and bots.listed() == ["keeper"]
    assert bots.authenticate(bots.register("oops")) == "oops"  # its look is free again
    bots.register("Élodie")
    with pytest.raises(UnknownBot, match=r"^no bot named 'elodie' \(did you mean 'Élodie'\?\)$"):
        bots.delete("elodie", games=GAMES)


GAMES = ("glaves", "knaves")
"""The games whose ratings a deletion looks at, in these tests."""


def _first_match(client: Any, bot: str) -> str:
    MatchStore(client).enqueue(MatchSpec("m-1", "glaves", 2, (bot, "keeper"), seed=1))
    return "1 match"


def _tournament_entry(client: Any, bot: str) -> str:
    TournamentStore(client).create(Tournament("cup", "glaves", 2, (bot, "keeper"), 1))
    return "an entrant of 1 tournament"


def _scheduled(client: Any, bot: str) -> str:
    from cardarena_tournament import lifecycle

    template = {"game": "glaves", "players": 2, "entrants": ["keeper", bot], "deal_sets": 1}
    lifecycle.create_schedule(TournamentStore(client), "every 1d", template, sid="weekly", now=1_800_000_000.0)
    return "named by the schedule weekly"


def _rated(client: Any, bot: str) -> str:
    TournamentStore(client).apply_rating("knaves", "k-1", [bot, "keeper"], lambda _: {bot: {"mu": 25.0, "sigma": 8.0}})
    return "rated in knaves"


def _counted(client: Any, bot: str) -> str:
    BotStore(client).count(bot, "disconnects")
    return "statistics counted"


@pytest.mark.parametrize("history", [_first_match, _tournament_entry, _scheduled, _rated, _counted])
def test_a_bot_with_a_history_is_not_deleted_and_retire_is_suggested(
    bots: BotStore, history: Callable[[Any, str], str]
) -> None:
    """A bot that a match seats (even one only queued), that is an entrant of a tournament
    (even one not started), that a schedule names, that has a rating or counted statistics is
    refused, saying what it has and that it can be retired; nothing of it changes."""
    bots.register("keeper")
    token = bots.register("student")
    said = history(bots.r, "student")
    with pytest.raises(BotHasHistory) as refused:
        bots.delete("student", games=GAMES)
    assert f"'student' cannot be deleted: it has a history ({said})" in str(refused.value)
    assert "`cardarena bot retire student` takes it out of the --all tournaments" in str(refused.value)
    assert bots.authenticate(token) == "student" and "student" in bots.names()


def _delete_and_enter_at_once(redis_url: str, name: str, tid: str) -> dict[str, bool]:
    """Delete ``name`` and create tournament ``tid`` entering it (``require_registered``), from
    two threads and connections released at the same moment: whether each happened."""
    start = threading.Barrier(2)
    done: dict[str, bool] = {}

    def delete() -> None:
        store = BotStore(client_for(redis_url))
        start.wait()
        try:
            store.delete(name, games=GAMES)
            done["deleted"] = True
        except BotHasHistory:
            done["deleted"] = False

    def enter() -> None:
        store = TournamentStore(client_for(redis_url))
        start.wait()
        try:
            store.create(Tournament(tid, "glaves", 2, (name, "keeper"), 1), require_registered=True)
            done["entered"] = True
        except UnregisteredEntrants:
            done["entered"] = False

    threads = [threading.Thread(target=delete), threading.Thread(target=enter)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return done


def test_deleting_a_bot_and_entering_it_in_a_tournament_at_the_same_moment_do_not_both_happen(
    bots: BotStore, redis_url: str
) -> None:
    """The check and the deletion are one step, and a tournament stored with
    ``require_registered`` checks its entrants in the step that stores it: of a deletion and a
    first tournament entry at the same moment, exactly one happens (round after round); never
    a deleted bot entered, never a bot with an entry deleted."""
    bots.register("keeper")
    for round_ in range(20):
        name, tid = f"late-{round_}", f"t{round_}"
        bots.register(name)
        done = _delete_and_enter_at_once(redis_url, name, tid)
        assert done["deleted"] != done["entered"], (round_, done)
        assert bots.exists(name) == done["entered"]
        assert (TournamentStore(bots.r).get(tid) is not None) == done["entered"]
