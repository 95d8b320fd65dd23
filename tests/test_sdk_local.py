"""Local mode (``cardarena_sdk.local.play``) calls a bot as the network client does: illegal
answers are rejected and asked again (``Bot.on_rejected``) up to the rejection budget, then the
default action is played and the fault recorded; a ``choose`` that raises gets the default
action and the fault ``error``; ``on_event`` and ``on_match_end`` are called;
a solitaire's ``won`` is reported.  (tests/test_sdk_client.py compares a local match with the
same match over the wire.)"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import pytest
from cardarena.engine import play_match
from cardarena.store.matches import FaultPolicy
from cardarena_sdk import Bot, LegalAction, MatchResult
from cardarena_sdk.bot import LOGGED_ILLEGAL
from cardarena_sdk.local import MAX_REJECTIONS, MAX_STRIKES, LocalFault, play


class First(Bot):
    """Answers the first legal action."""

    def choose(self, view: dict[str, Any], legal: list[LegalAction]) -> str:
        return legal[0].id


def test_an_illegal_answer_is_asked_again_with_the_engines_reason() -> None:
    rejected: list[tuple[str, str, int]] = []

    class Learner(Bot):
        def choose(self, view: dict[str, Any], legal: list[LegalAction]) -> str:
            return "play:ZZ" if not rejected else legal[0].id

        def on_rejected(self, view: dict[str, Any], legal: list[LegalAction], answer: str, reason: str) -> str:
            rejected.append((answer, reason, len(legal)))
            return legal[-1].id

    [result] = play(Learner(), "glaves", 3, seed=1)
    assert len(rejected) == 1
    answer, reason, legal = rejected[0]
    assert answer == "play:ZZ" and "play:ZZ" in reason and legal > 0
    assert result.faults == ()
    assert len(result.scores) == 3


def test_an_always_illegal_bot_gets_the_default_action_and_a_fault_at_the_rejection_budget(
    caplog: pytest.LogCaptureFixture,
) -> None:
    calls: list[str] = []

    class Stubborn(Bot):
        def choose(self, view: dict[str, Any], legal: list[LegalAction]) -> str:
            calls.append("choose")
            return "nonsense"

        def on_rejected(self, view: dict[str, Any], legal: list[LegalAction], answer: str, reason: str) -> str:
            calls.append("on_rejected")
            return "nonsense"

    caplog.set_level(logging.WARNING, logger="cardarena_sdk")
    [result] = play(Stubborn(), "german_whist", 2, seed=1, seat=0, max_strikes=0)
    # every request of the bot: choose, then on_rejected until the 10th illegal answer
    requests = calls.count("choose")
    assert requests > 1 and calls == (["choose"] + ["on_rejected"] * (MAX_REJECTIONS - 1)) * requests
    assert [(f.player, f.fault, f.forfeit) for f in result.faults] == [(0, "illegal", False)] * requests
    # The first illegal answers are logged in full, the rest in one line at the match's end.
    said = [r.getMessage() for r in caplog.records]
    checked = [m for m in said if m.split(" ", 1)[1].startswith(f"returned 'nonsense' in {result.match_id} (seat 0), ")]
    said = [m for m in said if m not in checked]  # the SDK's own check of the answer, as over the wire
    assert len(checked) == LOGGED_ILLEGAL
    assert len(said) == LOGGED_ILLEGAL + 1 and all("rejected: unknown action 'nonsense'" in m for m in said[-1:])
    assert all("'nonsense' rejected in" in m and "unknown action 'nonsense'" in m for m in said[:-1])
    total = MAX_REJECTIONS * requests
    assert said[-1].startswith(f"... and {total - LOGGED_ILLEGAL} more illegal answers in {result.match_id}")
    assert f"({total} in all, the first {LOGGED_ILLEGAL} above; {requests} requests ended with the default" in said[-1]
    # the default action is the first legal one: the match is the one First plays in that seat
    mirror = play(First(), "german_whist", 2, seed=1, seat=0)[0]
    assert result.seed == mirror.seed and result.scores == mirror.scores


def test_a_card_code_for_an_answer_gets_the_action_id_to_use(caplog: pytest.LogCaptureFixture) -> None:
    """The commonest first mistake, answering the card (`QH`) instead of the action id
    (`play:QH`): locally, as over the wire, the log names the id to answer with."""

    class CardCode(Bot):
        def choose(self, view: dict[str, Any], legal: list[LegalAction]) -> str:
            return legal[0].cards[0]

    caplog.set_level(logging.WARNING, logger="cardarena_sdk")
    [result] = play(CardCode(), "glaves", 3, seed=1, seat=0)
    first = next(r.getMessage() for r in caplog.records if r.levelno == logging.ERROR)
    card = first.split("'")[1]
    assert first.startswith(f"choose returned '{card}' in {result.match_id} (seat 0), not a legal id; ")
    assert f"answer with an action id, e.g. 'play:{card}'; legal ids: 'play:{card}'" in first


def test_strikes_forfeit_the_seat_as_on_the_service() -> None:
    asked: list[int] = []

    class Stubborn(Bot):
        def choose(self, view: dict[str, Any], legal: list[LegalAction]) -> str:
            asked.append(1)
            return "nonsense"

    policy = FaultPolicy()  # the service's defaults
    assert (policy.max_strikes, policy.max_rejections) == (MAX_STRIKES, MAX_REJECTIONS)
    [result] = play(Stubborn(), "glaves", 3, seed=2, seat=1, max_rejections=2)
    strikes = [(f.player, f.fault, f.forfeit) for f in result.faults]
    assert strikes == [(0, "illegal", False)] * (MAX_STRIKES - 1) + [(0, "illegal", True)]
    assert len(asked) == 2 * MAX_STRIKES  # a forfeited seat is not asked again (choose + 1 retry each)
    assert result.ranks[0] == 3  # forfeiting seats rank last
    assert [f.action_index for f in result.faults] == sorted(f.action_index for f in result.faults)


def test_hooks_are_called_with_the_public_form_of_each_action_and_the_end() -> None:
    events: list[tuple[str, int, str]] = []
    ends: list[tuple[str, str, list[float], list[int]]] = []
    views: list[dict[str, Any]] = []

    class Spy(First):
        def choose(self, view: dict[str, Any], legal: list[LegalAction]) -> str:
            views.append(view)
            return super().choose(view, legal)

        def on_event(self, match_id: str, seat: int, action: str) -> None:
            events.append((match_id, seat, action))

        def on_match_end(self, match_id: str, status: str, scores: list[float], ranks: list[int]) -> None:
            ends.append((match_id, status, scores, ranks))

    [result] = play(Spy(), "skull", 3, opponents=[First(), First()], seed=4, seat=1)
    assert result.seat == 1 and result.match_id
    assert {m for m, _, _ in events} == {result.match_id}
    assert {s for _, s, _ in events} == {0, 1, 2}
    # the bot sees its own actions whole and the others' secret ones redacted, as over the wire
    mine = [a for _, s, a in events if s == 1]
    assert len(mine) == len(views) and all(mine)
    theirs = [a for _, s, a in events if s != 1]
    assert "place" in theirs and not [a for a in theirs if a.startswith(("place:", "lose:"))]
    assert any(a.startswith("place:") for a in mine)
    order = [result.seat] + [s for s in range(3) if s != result.seat]
    table_scores = [0.0] * 3
    table_ranks = [0] * 3
    for i, s in enumerate(order):
        table_scores[s], table_ranks[s] = result.scores[i], result.ranks[i]
    assert ends == [(result.match_id, "completed", table_scores, table_ranks)]
    assert all(isinstance(x, float) for x in ends[0][2])


def test_on_result_names_the_bots_seats_and_place_and_old_style_bots_still_play() -> None:
    class Knows(First):
        def __init__(self) -> None:
            self.results: list[MatchResult] = []
            self.ends: list[tuple[str, str, list[float], list[int]]] = []

        def on_match_end(self, match_id: str, status: str, scores: list[float], ranks: list[int]) -> None:
            self.ends.append((match_id, status, scores, ranks))  # the old hook: still called first

        def on_result(self, result: MatchResult) -> None:
            assert self.ends, "on_match_end comes first"
            self.results.append(result)

    bot = Knows()
    played = play(bot, "glaves", 3, matches=3, seed=2)  # the bot's seat rotates: 0, 1, 2
    assert [r.seats for r in bot.results] == [(0,), (1,), (2,)]
    for local, result, (mid, status, scores, ranks) in zip(played, bot.results, bot.ends, strict=True):
        assert (result.match_id, result.status, list(result.scores), list(result.ranks)) == (mid, status, scores, ranks)
        assert result.place == local.ranks[0] and result.scores[local.seat] == local.scores[0]
        assert result.reason == "" and result.forfeited == ()
    # a bot holding two seats (it is its own opponent) gets one result: both seats, its best place
    twice = Knows()
    [local] = play(twice, "glaves", 3, opponents=[twice, First()], seat=0, seed=3)
    [result] = twice.results
    assert result.seats == (0, 1) and result.place == min(result.ranks[0], result.ranks[1])
    # a voided match has no place
    assert MatchResult("m", "voided", (0,), reason="service restarted").place is None


def test_a_raising_hook_is_logged_and_play_goes_on(caplog: pytest.LogCaptureFixture) -> None:
    class Raises(First):
        def on_event(self, match_id: str, seat: int, action: str) -> None:
            raise RuntimeError("event boom")

        def on_match_end(self, match_id: str, status: str, scores: list[float], ranks: list[int]) -> None:
            raise RuntimeError("end boom")

        def on_result(self, result: MatchResult) -> None:
            raise RuntimeError("result boom")

    [result] = play(Raises(), "german_whist", 2, seed=1)
    failed = [r for r in caplog.records if r.getMessage() == f"on_event failed in {result.match_id}"]
    assert failed and all(r.exc_info is not None for r in failed)
    end = [r for r in caplog.records if r.getMessage() == f"on_match_end failed in {result.match_id}"]
    assert len(end) == 1 and "RuntimeError: end boom" in caplog.text
    said = [r for r in caplog.records if r.getMessage() == f"on_result failed in {result.match_id}"]
    assert len(said) == 1 and "RuntimeError: result boom" in caplog.text


@pytest.mark.parametrize("game_id", ["emissary", "gridcannon", "loot_the_loop"])
def test_a_solitaires_won_is_the_engines(game_id: str) -> None:
    results = play(First(), game_id, 1, matches=3, seed=7)
    for result in results:
        engine = play_match(game_id, 1, [_first], seed=result.seed).result()
        assert engine.won is not None
        assert result.won == engine.won and result.scores == engine.scores


def test_won_is_none_when_the_game_does_not_say() -> None:
    [result] = play(First(), "german_whist", 2, seed=1)
    assert result.won is None


def test_a_bot_in_several_seats_gets_each_distinct_form_once_its_own_first() -> None:
    seen: list[tuple[int, str]] = []

    class Both(First):
        def on_event(self, match_id: str, seat: int, action: str) -> None:
            seen.append((seat, action))

    both = Both()
    play(both, "skull", 3, opponents=[both, First()], seed=4, seat=0)
    # seats 0 and 1 are the bot's: a secret action of either comes whole, then redacted (the
    # other seat's form); seat 2's comes once, redacted, as both of the bot's seats see it
    places = [(s, a) for s, a in seen if a.startswith("place")]
    assert places
    i = 0
    while i < len(places):
        seat, action = places[i]
        if seat in (0, 1):
            assert action.startswith("place:") and places[i + 1] == (seat, "place")
            i += 2
        else:
            assert action == "place"
            i += 1


def _first(view: Any, legal: Sequence[str], seat: int) -> str:
    return legal[0]


def test_max_rejections_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_rejections"):
        play(First(), "german_whist", 2, max_rejections=0)


def test_fault_fields() -> None:
    assert LocalFault(0, "illegal", 3) == LocalFault(player=0, fault="illegal", action_index=3, forfeit=False)


def test_a_raising_choose_plays_the_default_action_and_records_the_fault_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """As over the wire, where the client hands the request back: the traceback is logged, the
    first legal action is played, the fault ``error`` is a strike (``max_strikes`` forfeit)."""
    asked: list[str] = []

    class Broken(Bot):
        def choose(self, view: dict[str, Any], legal: list[LegalAction]) -> str:
            asked.append(legal[0].id)
            raise RuntimeError("boom")

    caplog.set_level(logging.INFO, logger="cardarena_sdk")
    [result] = play(Broken(), "german_whist", 2, seed=4, seat=0, max_strikes=0)
    assert len(result.faults) == len(asked) > 10
    assert {(f.player, f.fault, f.forfeit) for f in result.faults} == {(0, "error", False)}
    failed = [r for r in caplog.records if r.getMessage().startswith("choose raised RuntimeError in local-")]
    assert len(failed) == len(asked) and "handed back; playing the default action" in failed[0].getMessage()
    assert failed[0].exc_info is not None and failed[0].exc_info[2] is not None
    assert failed[0].exc_info[2].tb_frame.f_code.co_name == "choose"  # the traceback starts in the bot's code
    # the same match with a bot that answers the first legal action itself: the same moves, no fault
    [same] = play(First(), "german_whist", 2, seed=4, seat=0)
    assert (same.scores, same.faults) == (result.scores, ())

    [forfeit] = play(Broken(), "german_whist", 2, seed=4, seat=0)
    strikes = [(f.player, f.fault, f.forfeit) for f in forfeit.faults]
    assert strikes == [(0, "error", False)] * (MAX_STRIKES - 1) + [(0, "error", True)]
    assert forfeit.ranks[0] == 2


def test_a_raising_on_rejected_is_handed_back_too() -> None:
    class Retry(Bot):
        def choose(self, view: dict[str, Any], legal: list[LegalAction]) -> str:
            return "nonsense"

        def on_rejected(self, view: dict[str, Any], legal: list[LegalAction], answer: str, reason: str) -> str:
            raise ValueError(reason)

    [result] = play(Retry(), "german_whist", 2, seed=4, seat=0, max_strikes=1)
    assert [(f.player, f.fault, f.forfeit) for f in result.faults] == [(0, "error", True)]


def test_play_match_reports_every_seat_as_the_service_records_a_result() -> None:
    """``play_match``: one match of seated bots on a seed, per seat in table order, with each
    deal's scores (the standings compare deal by deal) and the strikes."""
    from cardarena_sdk import HeuristicBot
    from cardarena_sdk.local import play_match

    seen = Recorder()
    table = play_match("glaves", [HeuristicBot(1), seen], 11, match_id="t1:abc")
    assert table.match_id == "t1:abc" and {m for m, _, _ in seen.events} == {"t1:abc"}
    assert table.deal_scores is not None and len(table.deal_scores) > 1
    assert [sum(deal[s] for deal in table.deal_scores) for s in range(2)] == list(table.scores)
    assert (table.strikes, table.forfeited, table.faults) == ((0, 0), (), ())
    assert seen.results[0].seats == (1,) and seen.results[0].ranks == table.ranks
    # the seed deals: the same seed and bots give the same match
    again = play_match("glaves", [HeuristicBot(1), Recorder()], 11)
    assert again.deal_scores == table.deal_scores and again.scores == table.scores


class Recorder(First):
    """Answers the first legal action and keeps what it is told."""

    def __init__(self) -> None:
        self.events: list[tuple[str, int, str]] = []
        self.results: list[MatchResult] = []

    def on_event(self, match_id: str, seat: int, action: str) -> None:
        self.events.append((match_id, seat, action))

    def on_result(self, result: MatchResult) -> None:
        self.results.append(result)


def test_the_default_action_is_the_first_or_a_random_one_drawn_as_the_service_draws_it() -> None:
    """``default_action="random"`` (the fault policy's): each default action is drawn from
    ``MatchRng(f"{seed}/default")``, as the service's runner draws it, for a seat that faulted
    and for a forfeited one."""
    from cardarena.engine import MatchRng
    from cardarena_sdk.local import play_match

    class Broken(Bot):
        def choose(self, view: dict[str, Any], legal: list[LegalAction]) -> str:
            raise RuntimeError("boom")

    class Replica(Bot):
        """Answers what the random default action would be."""

        def __init__(self, seed: int) -> None:
            self.rng = MatchRng(f"{seed}/default")

        def choose(self, view: dict[str, Any], legal: list[LegalAction]) -> str:
            return legal[self.rng.below(len(legal))].id

    broken = Broken()
    for strikes in (0, 2):  # never forfeit: every default drawn for a fault; else also for the forfeited seats
        faulty = play_match("glaves", [broken, broken], 9, max_strikes=strikes, default_action="random")
        replica = Replica(9)
        same = play_match("glaves", [replica, replica], 9)
        assert (faulty.scores, faulty.deal_scores) == (same.scores, same.deal_scores)
        assert sum(faulty.strikes) == len(faulty.faults) and {f.fault for f in faulty.faults} == {"error"}
        if strikes:
            assert (faulty.strikes, faulty.forfeited) == ((2, 2), (0, 1))
        else:
            assert len(faulty.faults) > 10 and faulty.forfeited == ()
    first = play_match("glaves", [broken, broken], 9, max_strikes=0)
    assert first.scores == play_match("glaves", [First(), First()], 9).scores != faulty.scores
    with pytest.raises(ValueError, match="default_action is 'first' or 'random', not 'last'"):
        play_match("glaves", [broken, broken], 9, default_action="last")
