from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class BourreView(_message.Message):
    __slots__ = ("game", "seat", "players", "to_act", "phase", "dealer", "deal_number", "deals", "chip_limit", "max_exchange", "pot", "trump_suit", "turned_card", "turned_card_in_hand", "turned_card_set_aside", "hand", "my_discards", "sure_to_win", "deck_size", "discard_pile_size", "played_cards", "trick", "leader", "last_trick", "last_winner", "pot_winner", "seats")
    class TrickCard(_message.Message):
        __slots__ = ("seat", "card")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        CARD_FIELD_NUMBER: _ClassVar[int]
        seat: int
        card: str
        def __init__(self, seat: _Optional[int] = ..., card: _Optional[str] = ...) -> None: ...
    class Seat(_message.Message):
        __slots__ = ("seat", "balance", "status", "exchanged", "hand_size", "tricks", "bourre", "ante_exempt", "deal_score")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        BALANCE_FIELD_NUMBER: _ClassVar[int]
        STATUS_FIELD_NUMBER: _ClassVar[int]
        EXCHANGED_FIELD_NUMBER: _ClassVar[int]
        HAND_SIZE_FIELD_NUMBER: _ClassVar[int]
        TRICKS_FIELD_NUMBER: _ClassVar[int]
        BOURRE_FIELD_NUMBER: _ClassVar[int]
        ANTE_EXEMPT_FIELD_NUMBER: _ClassVar[int]
        DEAL_SCORE_FIELD_NUMBER: _ClassVar[int]
        seat: int
        balance: int
        status: str
        exchanged: int
        hand_size: int
        tricks: int
        bourre: bool
        ante_exempt: bool
        deal_score: int
        def __init__(self, seat: _Optional[int] = ..., balance: _Optional[int] = ..., status: _Optional[str] = ..., exchanged: _Optional[int] = ..., hand_size: _Optional[int] = ..., tricks: _Optional[int] = ..., bourre: _Optional[bool] = ..., ante_exempt: _Optional[bool] = ..., deal_score: _Optional[int] = ...) -> None: ...
    GAME_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    DEAL_NUMBER_FIELD_NUMBER: _ClassVar[int]
    DEALS_FIELD_NUMBER: _ClassVar[int]
    CHIP_LIMIT_FIELD_NUMBER: _ClassVar[int]
    MAX_EXCHANGE_FIELD_NUMBER: _ClassVar[int]
    POT_FIELD_NUMBER: _ClassVar[int]
    TRUMP_SUIT_FIELD_NUMBER: _ClassVar[int]
    TURNED_CARD_FIELD_NUMBER: _ClassVar[int]
    TURNED_CARD_IN_HAND_FIELD_NUMBER: _ClassVar[int]
    TURNED_CARD_SET_ASIDE_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    MY_DISCARDS_FIELD_NUMBER: _ClassVar[int]
    SURE_TO_WIN_FIELD_NUMBER: _ClassVar[int]
    DECK_SIZE_FIELD_NUMBER: _ClassVar[int]
    DISCARD_PILE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PLAYED_CARDS_FIELD_NUMBER: _ClassVar[int]
    TRICK_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    LAST_TRICK_FIELD_NUMBER: _ClassVar[int]
    LAST_WINNER_FIELD_NUMBER: _ClassVar[int]
    POT_WINNER_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    game: str
    seat: int
    players: int
    to_act: int
    phase: str
    dealer: int
    deal_number: int
    deals: int
    chip_limit: int
    max_exchange: int
    pot: int
    trump_suit: str
    turned_card: str
    turned_card_in_hand: bool
    turned_card_set_aside: bool
    hand: _containers.RepeatedScalarFieldContainer[str]
    my_discards: _containers.RepeatedScalarFieldContainer[str]
    sure_to_win: bool
    deck_size: int
    discard_pile_size: int
    played_cards: _containers.RepeatedScalarFieldContainer[str]
    trick: _containers.RepeatedCompositeFieldContainer[BourreView.TrickCard]
    leader: int
    last_trick: _containers.RepeatedCompositeFieldContainer[BourreView.TrickCard]
    last_winner: int
    pot_winner: int
    seats: _containers.RepeatedCompositeFieldContainer[BourreView.Seat]
    def __init__(self, game: _Optional[str] = ..., seat: _Optional[int] = ..., players: _Optional[int] = ..., to_act: _Optional[int] = ..., phase: _Optional[str] = ..., dealer: _Optional[int] = ..., deal_number: _Optional[int] = ..., deals: _Optional[int] = ..., chip_limit: _Optional[int] = ..., max_exchange: _Optional[int] = ..., pot: _Optional[int] = ..., trump_suit: _Optional[str] = ..., turned_card: _Optional[str] = ..., turned_card_in_hand: _Optional[bool] = ..., turned_card_set_aside: _Optional[bool] = ..., hand: _Optional[_Iterable[str]] = ..., my_discards: _Optional[_Iterable[str]] = ..., sure_to_win: _Optional[bool] = ..., deck_size: _Optional[int] = ..., discard_pile_size: _Optional[int] = ..., played_cards: _Optional[_Iterable[str]] = ..., trick: _Optional[_Iterable[_Union[BourreView.TrickCard, _Mapping]]] = ..., leader: _Optional[int] = ..., last_trick: _Optional[_Iterable[_Union[BourreView.TrickCard, _Mapping]]] = ..., last_winner: _Optional[int] = ..., pot_winner: _Optional[int] = ..., seats: _Optional[_Iterable[_Union[BourreView.Seat, _Mapping]]] = ...) -> None: ...
