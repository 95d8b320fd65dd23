"""A first bot: play the lowest legal card (any other decision: the first legal action)."""

from cardarena_sdk import Bot, LegalAction

RANKS = "23456789TJQKA"


class LowCard(Bot):
    def choose(self, view: dict, legal: list[LegalAction]) -> str:
        plays = [a for a in legal if a.kind == "play" and a.cards]
        if plays:
            return min(plays, key=lambda a: RANKS.find(a.cards[0][0])).id
        return legal[0].id
