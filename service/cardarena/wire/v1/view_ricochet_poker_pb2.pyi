from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RicochetPokerView(_message.Message):
    __slots__ = ("game", "seat", "players", "to_act", "dealer", "round", "rounds", "start_chips", "pot", "deck_size", "max_hand", "last_action", "seats")
    class LastAction(_message.Message):
        __slots__ = ("seat", "action", "received", "outcome")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        ACTION_FIELD_NUMBER: _ClassVar[int]
        RECEIVED_FIELD_NUMBER: _ClassVar[int]
        OUTCOME_FIELD_NUMBER: _ClassVar[int]
        seat: int
        action: str
        received: _containers.RepeatedScalarFieldContainer[str]
        outcome: str
        def __init__(self, seat: _Optional[int] = ..., action: _Optional[str] = ..., received: _Optional[_Iterable[str]] = ..., outcome: _Optional[str] = ...) -> None: ...
    class Seat(_message.Message):
        __slots__ = ("seat", "chips", "status", "hand", "hand_name", "paid", "won", "leading", "round_scores")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        CHIPS_FIELD_NUMBER: _ClassVar[int]
        STATUS_FIELD_NUMBER: _ClassVar[int]
        HAND_FIELD_NUMBER: _ClassVar[int]
        HAND_NAME_FIELD_NUMBER: _ClassVar[int]
        PAID_FIELD_NUMBER: _ClassVar[int]
        WON_FIELD_NUMBER: _ClassVar[int]
        LEADING_FIELD_NUMBER: _ClassVar[int]
        ROUND_SCORES_FIELD_NUMBER: _ClassVar[int]
        seat: int
        chips: int
        status: str
        hand: _containers.RepeatedScalarFieldContainer[str]
        hand_name: str
        paid: int
        won: int
        leading: bool
        round_scores: _containers.RepeatedScalarFieldContainer[int]
        def __init__(self, seat: _Optional[int] = ..., chips: _Optional[int] = ..., status: _Optional[str] = ..., hand: _Optional[_Iterable[str]] = ..., hand_name: _Optional[str] = ..., paid: _Optional[int] = ..., won: _Optional[int] = ..., leading: _Optional[bool] = ..., round_scores: _Optional[_Iterable[int]] = ...) -> None: ...
    GAME_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    ROUNDS_FIELD_NUMBER: _ClassVar[int]
    START_CHIPS_FIELD_NUMBER: _ClassVar[int]
    POT_FIELD_NUMBER: _ClassVar[int]
    DECK_SIZE_FIELD_NUMBER: _ClassVar[int]
    MAX_HAND_FIELD_NUMBER: _ClassVar[int]
    LAST_ACTION_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    game: str
    seat: int
    players: int
    to_act: int
    dealer: int
    round: int
    rounds: int
    start_chips: int
    pot: int
    deck_size: int
    max_hand: int
    last_action: RicochetPokerView.LastAction
    seats: _containers.RepeatedCompositeFieldContainer[RicochetPokerView.Seat]
    def __init__(self, game: _Optional[str] = ..., seat: _Optional[int] = ..., players: _Optional[int] = ..., to_act: _Optional[int] = ..., dealer: _Optional[int] = ..., round: _Optional[int] = ..., rounds: _Optional[int] = ..., start_chips: _Optional[int] = ..., pot: _Optional[int] = ..., deck_size: _Optional[int] = ..., max_hand: _Optional[int] = ..., last_action: _Optional[_Union[RicochetPokerView.LastAction, _Mapping]] = ..., seats: _Optional[_Iterable[_Union[RicochetPokerView.Seat, _Mapping]]] = ...) -> None: ...
