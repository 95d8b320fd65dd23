from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TrickView(_message.Message):
    __slots__ = ("game", "seat", "players", "dealer", "deal_number", "to_act", "hand", "trick", "leader", "last_trick", "last_winner", "trump_suit", "trump_card", "stock_size", "stock_face_up", "phase", "target", "deals", "seats", "played_cards")
    class TrickCard(_message.Message):
        __slots__ = ("seat", "card")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        CARD_FIELD_NUMBER: _ClassVar[int]
        seat: int
        card: str
        def __init__(self, seat: _Optional[int] = ..., card: _Optional[str] = ...) -> None: ...
    class Seat(_message.Message):
        __slots__ = ("seat", "hand_size", "tricks_taken", "jacks_taken", "known_cards", "phase_tricks", "score", "deal_score")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        HAND_SIZE_FIELD_NUMBER: _ClassVar[int]
        TRICKS_TAKEN_FIELD_NUMBER: _ClassVar[int]
        JACKS_TAKEN_FIELD_NUMBER: _ClassVar[int]
        KNOWN_CARDS_FIELD_NUMBER: _ClassVar[int]
        PHASE_TRICKS_FIELD_NUMBER: _ClassVar[int]
        SCORE_FIELD_NUMBER: _ClassVar[int]
        DEAL_SCORE_FIELD_NUMBER: _ClassVar[int]
        seat: int
        hand_size: int
        tricks_taken: int
        jacks_taken: _containers.RepeatedScalarFieldContainer[str]
        known_cards: _containers.RepeatedScalarFieldContainer[str]
        phase_tricks: int
        score: float
        deal_score: float
        def __init__(self, seat: _Optional[int] = ..., hand_size: _Optional[int] = ..., tricks_taken: _Optional[int] = ..., jacks_taken: _Optional[_Iterable[str]] = ..., known_cards: _Optional[_Iterable[str]] = ..., phase_tricks: _Optional[int] = ..., score: _Optional[float] = ..., deal_score: _Optional[float] = ...) -> None: ...
    GAME_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    DEAL_NUMBER_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    TRICK_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    LAST_TRICK_FIELD_NUMBER: _ClassVar[int]
    LAST_WINNER_FIELD_NUMBER: _ClassVar[int]
    TRUMP_SUIT_FIELD_NUMBER: _ClassVar[int]
    TRUMP_CARD_FIELD_NUMBER: _ClassVar[int]
    STOCK_SIZE_FIELD_NUMBER: _ClassVar[int]
    STOCK_FACE_UP_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    DEALS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    PLAYED_CARDS_FIELD_NUMBER: _ClassVar[int]
    game: str
    seat: int
    players: int
    dealer: int
    deal_number: int
    to_act: int
    hand: _containers.RepeatedScalarFieldContainer[str]
    trick: _containers.RepeatedCompositeFieldContainer[TrickView.TrickCard]
    leader: int
    last_trick: _containers.RepeatedCompositeFieldContainer[TrickView.TrickCard]
    last_winner: int
    trump_suit: str
    trump_card: str
    stock_size: int
    stock_face_up: str
    phase: int
    target: int
    deals: int
    seats: _containers.RepeatedCompositeFieldContainer[TrickView.Seat]
    played_cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, game: _Optional[str] = ..., seat: _Optional[int] = ..., players: _Optional[int] = ..., dealer: _Optional[int] = ..., deal_number: _Optional[int] = ..., to_act: _Optional[int] = ..., hand: _Optional[_Iterable[str]] = ..., trick: _Optional[_Iterable[_Union[TrickView.TrickCard, _Mapping]]] = ..., leader: _Optional[int] = ..., last_trick: _Optional[_Iterable[_Union[TrickView.TrickCard, _Mapping]]] = ..., last_winner: _Optional[int] = ..., trump_suit: _Optional[str] = ..., trump_card: _Optional[str] = ..., stock_size: _Optional[int] = ..., stock_face_up: _Optional[str] = ..., phase: _Optional[int] = ..., target: _Optional[int] = ..., deals: _Optional[int] = ..., seats: _Optional[_Iterable[_Union[TrickView.Seat, _Mapping]]] = ..., played_cards: _Optional[_Iterable[str]] = ...) -> None: ...
