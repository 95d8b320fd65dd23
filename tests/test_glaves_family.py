"""Glaves, Knaves and German Whist: the seed's numbers and the rulings' edge cases."""

from __future__ import annotations

import pytest
from cardarena.engine import IllegalAction, MatchRng, State, get_game, play_match, random_policy
from cardarena.games.trick_taking import jack_penalty

JACK_PENALTIES = {"JH": 4, "JD": 3, "JC": 2, "JS": 1}


def random_match(game: str, players: int, seed: int, **options: int) -> State:
    bots = [random_policy(MatchRng(f"{seed}/{s}")) for s in range(players)]
    return play_match(game, players, bots, seed=seed, options=options or None)


def new_deal(game: str, players: int, seed: int) -> State:
    state = get_game(game).new_state(players)
    state.apply_chance(state.sample_chance(MatchRng(seed)))
    return state


# ------------------------------------------------------------------ Glaves
@pytest.mark.parametrize(("players", "tricks", "hand", "target"), [(2, 26, 13, 46), (3, 17, 9, 20), (4, 13, 9, 9)])
def test_glaves_table(players: int, tricks: int, hand: int, target: int) -> None:
    state = new_deal("glaves", players, 7)
    view = state.view(0)
    assert len(view.hand) == hand
    assert view.target == target
    assert view.stock_size == {2: 26, 3: 24, 4: 16}[players]
    state = random_match("glaves", players, 7, deals=1)
    assert sum(state.view(None).tricks_taken) == tricks


@pytest.mark.parametrize("players", [2, 3, 4])
def test_glaves_hand_totals_and_moon(players: int) -> None:
    total = {2: 16, 3: 7, 4: 3}[players]
    moons = set_aside_jacks = 0
    for seed in range(150):
        state = random_match("glaves", players, seed, deals=1)
        record = state.deal_records()[0]
        scores = record.scores
        assert scores is not None
        trump_card = record.chance["trump_card"]
        if players == 3 and trump_card in JACK_PENALTIES:
            set_aside_jacks += 1
            assert sum(scores) == total + JACK_PENALTIES[trump_card]
            assert state.view(None).tricks_taken.count(0) < 3
        else:
            assert sum(scores) == total
        jacks = state.view(None).jacks_taken
        mooner = [s for s in range(players) if len(jacks[s]) == 4]
        if mooner:
            moons += 1
            assert scores == [total if s == mooner[0] else 0 for s in range(players)]
        else:
            tricks = state.view(None).tricks_taken
            for s in range(players):
                assert scores[s] == tricks[s] - sum(JACK_PENALTIES[j] for j in jacks[s])
    assert moons > 0, "no moon in 150 random hands: the test lost its power"
    if players == 3:
        assert set_aside_jacks > 0


def test_glaves_three_players_trump_set_aside() -> None:
    for seed in range(20):
        state = new_deal("glaves", 3, seed)
        record = state.deal_records()[0].chance
        trump = record["trump_card"]
        assert trump not in record["stock"]
        assert all(trump not in hand for hand in record["hands"])
        view = state.view(1)
        assert view.trump_suit == trump[1]
        assert view.stock_face_up == record["stock"][0]
        assert len(record["stock"]) == 24


@pytest.mark.parametrize("players", [2, 4])
def test_glaves_trump_card_is_taken_by_first_trick_winner(players: int) -> None:
    state = new_deal("glaves", players, 3)
    trump_card = state.view(0).trump_card
    assert state.view(0).stock_face_up == trump_card
    for _ in range(players):
        seat = state.to_act()[0]
        state.apply(seat, state.legal_actions(seat)[0])
    winner = state.view(None).last_winner
    assert winner is not None
    for seat in range(players):
        view = state.view(seat)
        assert view.known_cards[winner] == (trump_card,)
        assert all(not view.known_cards[s] for s in range(players) if s != winner)
        assert view.hand_sizes == (13 if players == 2 else 9,) * players
    assert trump_card in state.view(winner).hand


def test_glaves_match_ends_at_target() -> None:
    for players, target in [(2, 46), (3, 20), (4, 9)]:
        for seed in range(10):
            state = random_match("glaves", players, seed)
            totals = [0.0] * players
            records = state.deal_records()
            for i, record in enumerate(records):
                assert record.scores is not None
                totals = [t + s for t, s in zip(totals, record.scores, strict=True)]
                assert (max(totals) >= target) == (i == len(records) - 1)
            assert list(state.result().scores) == totals


def test_glaves_must_follow_suit_reason() -> None:
    for seed in range(50):
        state = new_deal("glaves", 2, seed)
        leader = state.to_act()[0]
        lead = state.legal_actions(leader)[0]
        state.apply(leader, lead)
        follower = state.to_act()[0]
        hand = state.view(follower).hand
        legal = state.legal_actions(follower)
        off_suit = [c for c in hand if c[1] != lead[-1]]
        if len(legal) < len(hand) and off_suit:
            suit = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}[lead[-1]]
            with pytest.raises(IllegalAction, match=f"must follow {suit}"):
                state.apply(follower, "play:" + off_suit[0])
            not_mine = next(c for c in ("2C", "3C", "4C", "5C", "6C") if c not in hand and "play:" + c != lead)
            with pytest.raises(IllegalAction, match="not in your hand"):
                state.apply(follower, "play:" + not_mine)
            with pytest.raises(IllegalAction, match="not your turn"):
                state.apply(leader, legal[0])
            return
    pytest.fail("no follow-suit situation found")


def test_glaves_trick_winner_highest_trump_else_highest_of_suit_led() -> None:
    for seed in range(30):
        state = random_match("glaves", 3, seed, deals=1)
        actions = state.deal_records()[0].actions
        trump = state.deal_records()[0].chance["trump_card"][1]
        ranks = "23456789TJQKA"
        for t in range(0, len(actions), 3):
            trick = actions[t : t + 3]
            cards = [(seat, a[-2:]) for seat, a in trick]
            trumps = [c for c in cards if c[1][1] == trump]
            pool = trumps or [c for c in cards if c[1][1] == cards[0][1][1]]
            winner = max(pool, key=lambda c: ranks.index(c[1][0]))[0]
            if t + 3 < len(actions):
                assert actions[t + 3][0] == winner


def test_views_hide_what_differs_only_in_unseen_cards() -> None:
    game = get_game("glaves")
    for seed in range(20):
        state = game.new_state(2)
        outcome = state.sample_chance(MatchRng(seed))
        # Swap seat 1's hand with hidden stock cards (not the face-up card): seat 0 cannot tell.
        other = dict(outcome)
        hands = [list(h) for h in outcome["hands"]]
        stock = list(outcome["stock"])
        hands[1][:5], stock[1:6] = stock[1:6], hands[1][:5]
        hands[1].sort()
        other["hands"], other["stock"] = hands, stock
        a, b = game.new_state(2), game.new_state(2)
        a.apply_chance(outcome)
        b.apply_chance(other)
        assert a.view(0).to_json() == b.view(0).to_json()
        assert a.view(None).to_json() == b.view(None).to_json()
        assert a.view(1).to_json() != b.view(1).to_json()
        seat = a.to_act()[0]
        if seat == 0:
            action = a.legal_actions(0)[0]
            a.apply(0, action)
            b.apply(0, action)
            assert a.view(0).to_json() == b.view(0).to_json()


# ------------------------------------------------------------------ Knaves
def test_knaves_deal_and_scoring() -> None:
    for seed in range(40):
        state = random_match("knaves", 3, seed, deals=1)
        record = state.deal_records()[0]
        chance = record.chance
        assert [len(h) for h in chance["hands"]] == [13, 13, 13]
        assert chance["stock"] == [] and len(chance["unused"]) == 12
        assert state.view(None).trump_suit == chance["trump_card"][1]
        view = state.view(None)
        assert sum(view.tricks_taken) == 13
        # 13 tricks minus 10, plus the penalty of jacks out of play (turned or unused); no moon.
        out = [chance["trump_card"], *chance["unused"]]
        assert record.scores is not None
        assert sum(record.scores) == 3 + sum(JACK_PENALTIES.get(c, 0) for c in out)
        for s in range(3):
            assert record.scores[s] == view.tricks_taken[s] - sum(JACK_PENALTIES[j] for j in view.jacks_taken[s])


def test_knaves_plays_to_twenty() -> None:
    for seed in range(10):
        state = random_match("knaves", 3, seed)
        scores = state.result().scores
        assert max(scores) >= 20
        before_last = [t - s for t, s in zip(scores, state.deal_records()[-1].scores or [], strict=True)]
        assert max(before_last) < 20


def test_knaves_unused_cards_are_secret() -> None:
    state = new_deal("knaves", 3, 5)
    unused = set(state.deal_records()[0].chance["unused"])
    for seat in (None, 0, 1, 2):
        assert unused <= state.secrets(seat)
        assert not unused & set(str(state.view_json(seat)).replace("'", '"').split('"'))


# ------------------------------------------------------------ German Whist
def test_german_whist_two_phases() -> None:
    for seed in range(30):
        state = new_deal("german_whist", 2, seed)
        phase_one = 0
        while not state.is_terminal():
            view = state.view(None)
            seat = state.to_act()[0]
            if view.phase == 1:
                assert view.hand_sizes[seat] == 13 or view.trick
            state.apply(seat, state.legal_actions(seat)[0])
            if state.view(None).stock_size and not state.view(None).trick:
                phase_one += 1
        view = state.view(None)
        assert sum(view.tricks_taken) == 26
        assert sum(view.phase_tricks) == 13
        a, b = view.phase_tricks
        assert state.result().scores == ((1, 0) if a > b else (0, 1))
        assert state.result().ranks == ((1, 2) if a > b else (2, 1))


def test_german_whist_loser_draw_is_hidden() -> None:
    state = new_deal("german_whist", 2, 11)
    face_up = state.view(0).stock_face_up
    for _ in range(2):
        seat = state.to_act()[0]
        state.apply(seat, state.legal_actions(seat)[0])
    winner = state.view(None).last_winner
    assert winner is not None
    loser = 1 - winner
    assert state.view(loser).known_cards == tuple((face_up,) if s == winner else () for s in range(2))
    drawn = state.deal_records()[0].chance["stock"][1]
    assert drawn in state.view(loser).hand
    assert drawn in state.secrets(winner)


def test_german_whist_fixed_number_of_deals() -> None:
    state = random_match("german_whist", 2, 4, deals=5)
    assert len(state.deal_records()) == 5
    assert sum(state.result().scores) == 5


def test_jack_penalty_helper() -> None:
    from cardarena.engine.cards import mask_of

    assert jack_penalty(mask_of(["JH", "JD", "JC", "JS"])) == 10
    assert jack_penalty(mask_of(["JH", "QH"])) == 4


@pytest.mark.parametrize(
    ("game_id", "players"), [("glaves", 2), ("glaves", 3), ("glaves", 4), ("knaves", 3), ("german_whist", 2)]
)
def test_the_view_lists_the_cards_played_in_completed_tricks(game_id: str, players: int) -> None:
    """Every play is seen by the whole table, so ``played_cards`` gives each seat the cards of
    this deal's completed tricks (a bot resumed mid-deal gets no events of the time away); the
    trick in progress stays in ``trick``, and a new deal starts with none."""
    from cardarena.engine.cards import CODES

    state = random_match(game_id, players, 5, deals=2)
    replay = state.deal_records()
    state = get_game(game_id).new_state(players, {"deals": 2})
    for record in replay:
        state.apply_chance(record.chance)
        seen: list[str] = []  # the plays of this deal, as every seat's events tell them
        for seat, action in record.actions:
            in_trick = len(seen) % players
            completed = sorted(seen[: len(seen) - in_trick], key=CODES.index)
            for viewer in (None, *range(players)):
                view = state.view_json(viewer)
                assert view["played_cards"] == completed
                assert [c["card"] for c in view["trick"]] == seen[len(seen) - in_trick :]
            state.apply(seat, action)
            seen.append(action.removeprefix("play:"))
        assert state.view_json(0)["played_cards"] == sorted(seen, key=CODES.index)
    assert state.is_terminal()


def test_german_whist_phase_two_hand_of_the_opponent_is_what_is_not_seen() -> None:
    """Once the stock is gone every German Whist card is in a hand or played: own hand, the
    played cards and the trick in progress leave exactly the opponent's hand."""
    from cardarena.engine.cards import CODES

    state = new_deal("german_whist", 2, 8)
    checked = 0
    while not state.is_terminal():
        seat = state.to_act()[0]
        view = state.view_json(seat)
        if view["phase"] == 2:
            seen = set(view["hand"]) | set(view["played_cards"]) | {c["card"] for c in view["trick"]}
            assert set(CODES) - seen == set(state.view_json(1 - seat)["hand"])
            checked += 1
        state.apply(seat, state.legal_actions(seat)[0])
    assert checked == 26


@pytest.mark.parametrize(("game_id", "players"), [("glaves", 2), ("glaves", 4), ("knaves", 3), ("german_whist", 2)])
def test_view_json_agrees_with_the_view_properties(game_id: str, players: int) -> None:
    """``TrickView.to_json`` reads the snapshot directly; every value is the property's."""
    import random

    from cardarena.engine import MatchRng

    state = get_game(game_id).new_state(players, {})
    rng, pick = MatchRng(3), random.Random(3)
    while not state.is_terminal():
        if state.is_chance():
            state.apply_chance(state.sample_chance(rng))
            continue
        for seat in [None, *range(players)]:
            v = state.view(seat)
            expected = {
                **{k: getattr(v, k) for k in ("game", "seat", "players", "dealer", "deal_number", "to_act", "leader")},
                **{k: getattr(v, k) for k in ("last_winner", "trump_suit", "trump_card", "stock_size")},
                **{k: getattr(v, k) for k in ("stock_face_up", "phase", "target", "deals")},
                "hand": list(v.hand),
                "trick": [{"seat": s, "card": c} for s, c in v.trick],
                "last_trick": [{"seat": s, "card": c} for s, c in v.last_trick],
                "played_cards": list(v.played_cards),
                "seats": [
                    {
                        "seat": s,
                        "hand_size": v.hand_sizes[s],
                        "tricks_taken": v.tricks_taken[s],
                        "jacks_taken": list(v.jacks_taken[s]),
                        "known_cards": list(v.known_cards[s]),
                        "phase_tricks": v.phase_tricks[s],
                        "score": v.scores[s],
                        "deal_score": v.deal_scores[s],
                    }
                    for s in range(players)
                ],
            }
            assert v.to_json() == expected
        seat = state.to_act()[0]
        state.apply(seat, pick.choice(state.legal_actions(seat)))
