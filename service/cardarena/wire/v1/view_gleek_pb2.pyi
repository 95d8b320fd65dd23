from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class GleekView(_message.Message):
    __slots__ = ("game", "seat", "players", "to_act", "phase", "dealer", "deal_number", "deals", "trump_suit", "turned_card", "pot", "stock_size", "hand", "my_discards", "my_ruff", "my_four_aces", "bid", "high_bidder", "auction_winner", "ruff_doubled", "next_ruff_doubled", "ruff_bet", "ruff_pool", "ruff_opener", "ruff_winners", "trick", "leader", "last_trick", "last_winner", "played_cards", "seats", "ruff_raises", "ruff_raises_left")
    class TrickCard(_message.Message):
        __slots__ = ("seat", "card")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        CARD_FIELD_NUMBER: _ClassVar[int]
        seat: int
        card: str
        def __init__(self, seat: _Optional[int] = ..., card: _Optional[str] = ...) -> None: ...
    class Seat(_message.Message):
        __slots__ = ("seat", "balance", "hand_size", "known_cards", "passed", "ruff_status", "ruff_stake", "ruff_value", "gleeks", "mournivals", "tricks", "honours", "points", "deal_points", "deal_stakes")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        BALANCE_FIELD_NUMBER: _ClassVar[int]
        HAND_SIZE_FIELD_NUMBER: _ClassVar[int]
        KNOWN_CARDS_FIELD_NUMBER: _ClassVar[int]
        PASSED_FIELD_NUMBER: _ClassVar[int]
        RUFF_STATUS_FIELD_NUMBER: _ClassVar[int]
        RUFF_STAKE_FIELD_NUMBER: _ClassVar[int]
        RUFF_VALUE_FIELD_NUMBER: _ClassVar[int]
        GLEEKS_FIELD_NUMBER: _ClassVar[int]
        MOURNIVALS_FIELD_NUMBER: _ClassVar[int]
        TRICKS_FIELD_NUMBER: _ClassVar[int]
        HONOURS_FIELD_NUMBER: _ClassVar[int]
        POINTS_FIELD_NUMBER: _ClassVar[int]
        DEAL_POINTS_FIELD_NUMBER: _ClassVar[int]
        DEAL_STAKES_FIELD_NUMBER: _ClassVar[int]
        seat: int
        balance: int
        hand_size: int
        known_cards: _containers.RepeatedScalarFieldContainer[str]
        passed: bool
        ruff_status: str
        ruff_stake: int
        ruff_value: int
        gleeks: _containers.RepeatedScalarFieldContainer[str]
        mournivals: _containers.RepeatedScalarFieldContainer[str]
        tricks: int
        honours: int
        points: int
        deal_points: int
        deal_stakes: int
        def __init__(self, seat: _Optional[int] = ..., balance: _Optional[int] = ..., hand_size: _Optional[int] = ..., known_cards: _Optional[_Iterable[str]] = ..., passed: _Optional[bool] = ..., ruff_status: _Optional[str] = ..., ruff_stake: _Optional[int] = ..., ruff_value: _Optional[int] = ..., gleeks: _Optional[_Iterable[str]] = ..., mournivals: _Optional[_Iterable[str]] = ..., tricks: _Optional[int] = ..., honours: _Optional[int] = ..., points: _Optional[int] = ..., deal_points: _Optional[int] = ..., deal_stakes: _Optional[int] = ...) -> None: ...
    GAME_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    DEAL_NUMBER_FIELD_NUMBER: _ClassVar[int]
    DEALS_FIELD_NUMBER: _ClassVar[int]
    TRUMP_SUIT_FIELD_NUMBER: _ClassVar[int]
    TURNED_CARD_FIELD_NUMBER: _ClassVar[int]
    POT_FIELD_NUMBER: _ClassVar[int]
    STOCK_SIZE_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    MY_DISCARDS_FIELD_NUMBER: _ClassVar[int]
    MY_RUFF_FIELD_NUMBER: _ClassVar[int]
    MY_FOUR_ACES_FIELD_NUMBER: _ClassVar[int]
    BID_FIELD_NUMBER: _ClassVar[int]
    HIGH_BIDDER_FIELD_NUMBER: _ClassVar[int]
    AUCTION_WINNER_FIELD_NUMBER: _ClassVar[int]
    RUFF_DOUBLED_FIELD_NUMBER: _ClassVar[int]
    NEXT_RUFF_DOUBLED_FIELD_NUMBER: _ClassVar[int]
    RUFF_BET_FIELD_NUMBER: _ClassVar[int]
    RUFF_POOL_FIELD_NUMBER: _ClassVar[int]
    RUFF_OPENER_FIELD_NUMBER: _ClassVar[int]
    RUFF_WINNERS_FIELD_NUMBER: _ClassVar[int]
    TRICK_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    LAST_TRICK_FIELD_NUMBER: _ClassVar[int]
    LAST_WINNER_FIELD_NUMBER: _ClassVar[int]
    PLAYED_CARDS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    RUFF_RAISES_FIELD_NUMBER: _ClassVar[int]
    RUFF_RAISES_LEFT_FIELD_NUMBER: _ClassVar[int]
    game: str
    seat: int
    players: int
    to_act: int
    phase: str
    dealer: int
    deal_number: int
    deals: int
    trump_suit: str
    turned_card: str
    pot: int
    stock_size: int
    hand: _containers.RepeatedScalarFieldContainer[str]
    my_discards: _containers.RepeatedScalarFieldContainer[str]
    my_ruff: int
    my_four_aces: bool
    bid: int
    high_bidder: int
    auction_winner: int
    ruff_doubled: bool
    next_ruff_doubled: bool
    ruff_bet: int
    ruff_pool: int
    ruff_opener: int
    ruff_winners: _containers.RepeatedScalarFieldContainer[int]
    trick: _containers.RepeatedCompositeFieldContainer[GleekView.TrickCard]
    leader: int
    last_trick: _containers.RepeatedCompositeFieldContainer[GleekView.TrickCard]
    last_winner: int
    played_cards: _containers.RepeatedScalarFieldContainer[str]
    seats: _containers.RepeatedCompositeFieldContainer[GleekView.Seat]
    ruff_raises: int
    ruff_raises_left: int
    def __init__(self, game: _Optional[str] = ..., seat: _Optional[int] = ..., players: _Optional[int] = ..., to_act: _Optional[int] = ..., phase: _Optional[str] = ..., dealer: _Optional[int] = ..., deal_number: _Optional[int] = ..., deals: _Optional[int] = ..., trump_suit: _Optional[str] = ..., turned_card: _Optional[str] = ..., pot: _Optional[int] = ..., stock_size: _Optional[int] = ..., hand: _Optional[_Iterable[str]] = ..., my_discards: _Optional[_Iterable[str]] = ..., my_ruff: _Optional[int] = ..., my_four_aces: _Optional[bool] = ..., bid: _Optional[int] = ..., high_bidder: _Optional[int] = ..., auction_winner: _Optional[int] = ..., ruff_doubled: _Optional[bool] = ..., next_ruff_doubled: _Optional[bool] = ..., ruff_bet: _Optional[int] = ..., ruff_pool: _Optional[int] = ..., ruff_opener: _Optional[int] = ..., ruff_winners: _Optional[_Iterable[int]] = ..., trick: _Optional[_Iterable[_Union[GleekView.TrickCard, _Mapping]]] = ..., leader: _Optional[int] = ..., last_trick: _Optional[_Iterable[_Union[GleekView.TrickCard, _Mapping]]] = ..., last_winner: _Optional[int] = ..., played_cards: _Optional[_Iterable[str]] = ..., seats: _Optional[_Iterable[_Union[GleekView.Seat, _Mapping]]] = ..., ruff_raises: _Optional[int] = ..., ruff_raises_left: _Optional[int] = ...) -> None: ...
