"""Glaves: rules audit against the seed (the designer's rules, seeds 000/001) and the rulings.

Scripted deals (built by hand and fed through ``apply_chance``) check the drawing order and
what each seat sees; seeded matches check the points the seed and rulings leave to us.
The seed's numbers, moon and hand totals are also covered in ``test_glaves_family.py``.
"""

from __future__ import annotations

import pytest
from cardarena.engine import CHANCE, MatchRng, NotYourTurn, State, get_game, play_match, random_policy
from cardarena.engine.cards import CODES

from .conftest import play_first_legal


def scripted(players: int, dealer: int, hands: list[str], stock: str, trump: str) -> State:
    """A Glaves deal from hand-written cards: ``hands`` one string per seat, ``stock`` top first."""
    state = get_game("glaves").new_state(players)
    hand_lists = [h.split() for h in hands]
    state.apply_chance({"dealer": dealer, "hands": hand_lists, "stock": stock.split(), "trump_card": trump})
    return state


def play(state: State, *cards: str) -> None:
    for card in cards:
        state.apply(state.to_act()[0], "play:" + card)


def visible(state: State, seat: int | None) -> str:
    return str(state.view_json(seat))


# Four players: each holds one suit's 2..T, the stock holds the honours.
FOUR_HANDS = [
    "2C 3C 4C 5C 6C 7C 8C 9C TC",
    "2D 3D 4D 5D 6D 7D 8D 9D TD",
    "2H 3H 4H 5H 6H 7H 8H 9H TH",
    "2S 3S 4S 5S 6S 7S 8S 9S TS",
]
FOUR_STOCK = "AH KS QC JD AS JC KC AC QD KD AD JH QH KH JS QS"


def test_four_players_draw_order_and_what_each_seat_sees() -> None:
    """Seed: "The person who takes the trick takes the face-up card on top of the draw pile into
    their hand.  The person to their left takes the next face-down card from the draw pile into
    their hand and so on until the last player has taken a card into their hand.  The last player
    to take from the draw pile then turns the next card face-up."  Rulings: the face-up card is
    public knowledge in the winner's hand until played; the face-down draws are private."""
    state = scripted(4, 3, FOUR_HANDS, FOUR_STOCK, "AH")
    assert state.to_act() == (0,)  # left of the dealer leads
    assert state.view(0).trump_suit == "H"
    play(state, "2C", "2D", "2H", "2S")  # seat 2 trumps in and wins
    view = state.view(None)
    assert view.last_winner == 2 and view.leader == 2 and state.to_act() == (2,)
    # Winner: the face-up AH; then seats 3, 0, 1 take KS, QC, JD; AS is turned.
    drawn = {2: "AH", 3: "KS", 0: "QC", 1: "JD"}
    for seat, card in drawn.items():
        assert card in state.view(seat).hand
    assert view.stock_face_up == "AS" and view.stock_size == 12
    for viewer in (None, 0, 1, 2, 3):
        v = state.view(viewer)
        assert v.known_cards == ((), (), ("AH",), ())
        assert v.hand_sizes == (9, 9, 9, 9)
        for seat, card in drawn.items():
            if seat not in (2, viewer):
                assert card in state.secrets(viewer)
                assert card not in visible(state, viewer)
    # The known card stays known until it is played, then it is an ordinary played card.
    play(state, "AH")
    assert state.view(0).known_cards == ((), (), (), ())


def test_three_players_set_aside_trump_and_draw_order() -> None:
    """Rulings: "3 players: the bottom stock card is set aside face up, fixes trump, and is out of
    play for the hand; the top stock card is still turned face up"; each other player clockwise
    from the winner takes the next face-down card."""
    hands = ["2C 3C 4C 5C 6C 7C 8C 9C TC", "2D 3D 4D 5D 6D 7D 8D 9D TD", "2H 3H 4H 5H 6H 7H 8H 9H TH"]
    rest = [c for c in CODES if not any(c in h.split() for h in hands) and c != "AS"]
    stock = ["QS", "KS", "JS", *[c for c in rest if c not in ("QS", "KS", "JS")]]
    assert len(stock) == 24
    state = scripted(3, 0, hands, " ".join(stock), "AS")  # spades are trump, AS is out of play
    assert state.to_act() == (1,)
    view = state.view(1)
    assert (view.trump_card, view.trump_suit, view.stock_face_up, view.stock_size) == ("AS", "S", "QS", 24)
    play(state, "2D", "2H", "TC")  # nobody can follow or trump: the 2D wins
    assert state.view(None).last_winner == 1
    assert "QS" in state.view(1).hand and "KS" in state.view(2).hand and "JS" in state.view(0).hand
    assert state.view(0).known_cards == ((), ("QS",), ())
    assert state.view(0).stock_face_up == stock[3] and state.view(0).stock_size == 21
    assert "KS" in state.secrets(0) and "KS" not in visible(state, 0)
    assert "JS" in state.secrets(2) and "JS" not in visible(state, 2)


def test_trump_beats_the_suit_led_and_a_discard_never_wins() -> None:
    """Seed: "The highest card of the suit led takes the trick unless trump cards are played, then
    the highest trump card played takes the trick." """
    state = scripted(4, 3, FOUR_HANDS, FOUR_STOCK, "AH")
    play(state, "TC", "TD", "3H", "TS")  # the 3 of trumps beats the higher off-suit cards
    assert state.view(None).last_winner == 2
    play(state, "2H", "9S", "3C", "4D")  # hearts led and nobody else has one: the 2H wins
    assert state.view(None).last_winner == 2


def test_deal_is_one_card_at_a_time_from_the_dealers_left() -> None:
    """Seed silent on how the cards are dealt; decided here (the standard): one at a time,
    clockwise from the dealer's left; the rest form the stock in order (its top card turned);
    with 3 players the bottom card is the set-aside trump.  Rulings: the first dealer is drawn
    from the seed."""
    for players, size in ((2, 13), (3, 9), (4, 9)):
        for seed in range(5):
            rng = MatchRng(seed)
            dealer = rng.below(players)
            deck = list(range(52))
            rng.shuffle(deck)
            outcome = get_game("glaves").new_state(players).sample_chance(MatchRng(seed))
            assert outcome["dealer"] == dealer
            for i in range(players * size):
                assert CODES[deck[i]] in outcome["hands"][(dealer + 1 + i) % players]
            rest = [CODES[c] for c in deck[players * size :]]
            if players == 3:
                assert outcome["stock"] == rest[:-1] and outcome["trump_card"] == rest[-1]
            else:
                assert outcome["stock"] == rest and outcome["trump_card"] == rest[0]


def test_dealer_passes_to_the_left_and_the_dealers_left_leads() -> None:
    """Rulings: "the deal passes to the left (seat + 1) after each hand"; seed: "The person to the
    left of the dealer plays a card"."""
    state = get_game("glaves").new_state(3, {"deals": 4})
    rng = MatchRng(8)
    dealers = []
    while not state.is_terminal():
        state.apply_chance(state.sample_chance(rng))
        dealers.append(state.view(None).dealer)
        assert state.to_act() == ((dealers[-1] + 1) % 3,)
        while state.to_act() and not state.is_chance():
            seat = state.to_act()[0]
            state.apply(seat, state.legal_actions(seat)[0])
    assert dealers == [(dealers[0] + k) % 3 for k in range(4)]


def test_equal_highest_totals_share_the_win() -> None:
    """Seed: "In the case of a tie, which is rare, the youngest tied player wins."  Rulings: tied
    players share the place (ranks equal)."""
    for seed in range(200):
        bots = [random_policy(MatchRng(f"{seed}/{s}")) for s in range(2)]
        state = play_match("glaves", 2, bots, seed=seed, options={"target": 1})
        scores = state.result().scores
        if scores[0] == scores[1]:
            assert state.result().ranks == (1, 1)
            return
    pytest.fail("no tied hand in 200 seeds")


def test_the_match_ends_only_at_the_end_of_a_hand_and_the_highest_total_wins() -> None:
    """Seed: "Play additional hands until one player reaches a total of 46 or more points ...
    The player with the highest total score is the winner."  Rulings: hands are played until at
    least one player has reached the target at the end of a hand."""
    for players in (2, 3, 4):
        state = get_game("glaves").new_state(players)
        play_first_legal(state, 3)
        records = state.deal_records()
        assert all(len(r.actions) == {2: 52, 3: 51, 4: 52}[players] for r in records)
        totals = state.result().scores
        assert max(totals) >= {2: 46, 3: 20, 4: 9}[players]
        assert all((r == 1) == (t == max(totals)) for r, t in zip(state.result().ranks, totals, strict=True))


@pytest.mark.parametrize(("game_id", "players"), [("glaves", 3), ("knaves", 3), ("german_whist", 2)])
def test_the_chance_pseudo_seat_has_no_actions(game_id: str, players: int) -> None:
    """Engine contract (``docs/engine.md``): ``legal_actions(seat)`` is empty for a seat that is
    not asked to act, and ``apply`` refuses anything else with an ``IllegalAction`` and changes
    nothing.  At a chance node (before the first deal, between deals) the pseudo-seat ``CHANCE``
    acts only through ``apply_chance``."""
    state = get_game(game_id).new_state(players, {"deals": 2})
    rng = MatchRng(4)
    for _ in range(2):
        assert state.is_chance()
        assert state.legal_actions(CHANCE) == ()
        with pytest.raises(NotYourTurn, match="waiting for the dealer"):
            state.apply(CHANCE, "play:2C")
        assert state.check(CHANCE, "play:2C") is not None
        state.apply_chance(state.sample_chance(rng))
        while not state.is_chance() and not state.is_terminal():
            seat = state.to_act()[0]
            state.apply(seat, state.legal_actions(seat)[0])
    assert state.is_terminal() and state.legal_actions(CHANCE) == ()
