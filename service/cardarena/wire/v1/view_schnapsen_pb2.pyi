from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SchnapsenView(_message.Message):
    __slots__ = ("game", "seat", "players", "to_act", "dealer", "deal_number", "leader", "hand", "trick", "last_trick", "last_winner", "played", "trump_suit", "trump_card", "stock_size", "stock_bottom", "closed", "closed_by", "closed_opponent_points", "strict", "marriage_pending", "target", "deals", "seats")
    class TrickCard(_message.Message):
        __slots__ = ("seat", "card")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        CARD_FIELD_NUMBER: _ClassVar[int]
        seat: int
        card: str
        def __init__(self, seat: _Optional[int] = ..., card: _Optional[str] = ...) -> None: ...
    class Seat(_message.Message):
        __slots__ = ("seat", "hand_size", "known_cards", "tricks_won", "card_points", "marriage_points", "marriages", "round_points", "score", "deal_score")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        HAND_SIZE_FIELD_NUMBER: _ClassVar[int]
        KNOWN_CARDS_FIELD_NUMBER: _ClassVar[int]
        TRICKS_WON_FIELD_NUMBER: _ClassVar[int]
        CARD_POINTS_FIELD_NUMBER: _ClassVar[int]
        MARRIAGE_POINTS_FIELD_NUMBER: _ClassVar[int]
        MARRIAGES_FIELD_NUMBER: _ClassVar[int]
        ROUND_POINTS_FIELD_NUMBER: _ClassVar[int]
        SCORE_FIELD_NUMBER: _ClassVar[int]
        DEAL_SCORE_FIELD_NUMBER: _ClassVar[int]
        seat: int
        hand_size: int
        known_cards: _containers.RepeatedScalarFieldContainer[str]
        tricks_won: int
        card_points: int
        marriage_points: int
        marriages: _containers.RepeatedScalarFieldContainer[str]
        round_points: int
        score: int
        deal_score: int
        def __init__(self, seat: _Optional[int] = ..., hand_size: _Optional[int] = ..., known_cards: _Optional[_Iterable[str]] = ..., tricks_won: _Optional[int] = ..., card_points: _Optional[int] = ..., marriage_points: _Optional[int] = ..., marriages: _Optional[_Iterable[str]] = ..., round_points: _Optional[int] = ..., score: _Optional[int] = ..., deal_score: _Optional[int] = ...) -> None: ...
    GAME_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    DEAL_NUMBER_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    TRICK_FIELD_NUMBER: _ClassVar[int]
    LAST_TRICK_FIELD_NUMBER: _ClassVar[int]
    LAST_WINNER_FIELD_NUMBER: _ClassVar[int]
    PLAYED_FIELD_NUMBER: _ClassVar[int]
    TRUMP_SUIT_FIELD_NUMBER: _ClassVar[int]
    TRUMP_CARD_FIELD_NUMBER: _ClassVar[int]
    STOCK_SIZE_FIELD_NUMBER: _ClassVar[int]
    STOCK_BOTTOM_FIELD_NUMBER: _ClassVar[int]
    CLOSED_FIELD_NUMBER: _ClassVar[int]
    CLOSED_BY_FIELD_NUMBER: _ClassVar[int]
    CLOSED_OPPONENT_POINTS_FIELD_NUMBER: _ClassVar[int]
    STRICT_FIELD_NUMBER: _ClassVar[int]
    MARRIAGE_PENDING_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    DEALS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    game: str
    seat: int
    players: int
    to_act: int
    dealer: int
    deal_number: int
    leader: int
    hand: _containers.RepeatedScalarFieldContainer[str]
    trick: _containers.RepeatedCompositeFieldContainer[SchnapsenView.TrickCard]
    last_trick: _containers.RepeatedCompositeFieldContainer[SchnapsenView.TrickCard]
    last_winner: int
    played: _containers.RepeatedScalarFieldContainer[str]
    trump_suit: str
    trump_card: str
    stock_size: int
    stock_bottom: str
    closed: bool
    closed_by: int
    closed_opponent_points: int
    strict: bool
    marriage_pending: str
    target: int
    deals: int
    seats: _containers.RepeatedCompositeFieldContainer[SchnapsenView.Seat]
    def __init__(self, game: _Optional[str] = ..., seat: _Optional[int] = ..., players: _Optional[int] = ..., to_act: _Optional[int] = ..., dealer: _Optional[int] = ..., deal_number: _Optional[int] = ..., leader: _Optional[int] = ..., hand: _Optional[_Iterable[str]] = ..., trick: _Optional[_Iterable[_Union[SchnapsenView.TrickCard, _Mapping]]] = ..., last_trick: _Optional[_Iterable[_Union[SchnapsenView.TrickCard, _Mapping]]] = ..., last_winner: _Optional[int] = ..., played: _Optional[_Iterable[str]] = ..., trump_suit: _Optional[str] = ..., trump_card: _Optional[str] = ..., stock_size: _Optional[int] = ..., stock_bottom: _Optional[str] = ..., closed: _Optional[bool] = ..., closed_by: _Optional[int] = ..., closed_opponent_points: _Optional[int] = ..., strict: _Optional[bool] = ..., marriage_pending: _Optional[str] = ..., target: _Optional[int] = ..., deals: _Optional[int] = ..., seats: _Optional[_Iterable[_Union[SchnapsenView.Seat, _Mapping]]] = ...) -> None: ...
