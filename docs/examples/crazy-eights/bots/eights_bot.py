"""A Crazy Eights bot: shed the costly cards first, keep the eights for when nothing else goes.

* With a card other than an 8 to play: one of the suit held most (the next players must
  follow it, and we can), the one worth most points among them.
* Otherwise an 8, naming the suit held most (then the one whose cards are worth most).
* Otherwise draw (never by choice while a card could be played), and pass once the stock is
  empty.
"""

from typing import Any

from cardarena_sdk import Bot, LegalAction

POINTS = {"8": 50, "T": 10, "J": 10, "Q": 10, "K": 10, "A": 1}


def points(card: str) -> int:
    """What the card costs if it is still in hand when someone goes out."""
    return POINTS.get(card[0]) or int(card[0])


def suit_worth(hand: list[str], suit: str) -> tuple[int, int]:
    """How many cards other than eights of ``suit`` the hand holds, then their points."""
    cards = [card for card in hand if card[1] == suit and card[0] != "8"]
    return len(cards), sum(points(card) for card in cards)


class EightsBot(Bot):
    games = ("crazy_eights",)

    def choose(self, view: dict[str, Any], legal: list[LegalAction]) -> str:
        hand: list[str] = view["hand"]
        plays = [action for action in legal if action.kind == "play"]
        plain = [action for action in plays if action.choice is None]
        if plain:
            return max(plain, key=lambda a: (suit_worth(hand, a.cards[0][1]), points(a.cards[0]))).id
        if plays:
            best = max("CDHS", key=lambda suit: suit_worth(hand, suit))
            return next(action for action in plays if action.choice == best).id
        return legal[0].id  # draw, or pass with the stock empty


if __name__ == "__main__":
    from cardarena_sdk.local import play

    results = play(EightsBot(), "crazy_eights", 3, opponents=["random", "heuristic"], matches=50)
    print(sum(r.ranks[0] == 1 for r in results), "first places in", len(results), "matches")
