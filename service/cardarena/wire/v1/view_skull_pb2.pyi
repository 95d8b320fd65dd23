from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SkullView(_message.Message):
    __slots__ = ("game", "seat", "players", "to_act", "phase", "round", "first_player", "turn", "bid", "bidder", "max_bid", "flipped", "hand", "pile", "lost", "winner", "last_bidder", "last_bid", "last_success", "last_skull_owner", "seats")
    class Seat(_message.Message):
        __slots__ = ("seat", "cards", "hand_size", "pile_size", "revealed", "points", "out", "passed", "placed", "last_revealed")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        CARDS_FIELD_NUMBER: _ClassVar[int]
        HAND_SIZE_FIELD_NUMBER: _ClassVar[int]
        PILE_SIZE_FIELD_NUMBER: _ClassVar[int]
        REVEALED_FIELD_NUMBER: _ClassVar[int]
        POINTS_FIELD_NUMBER: _ClassVar[int]
        OUT_FIELD_NUMBER: _ClassVar[int]
        PASSED_FIELD_NUMBER: _ClassVar[int]
        PLACED_FIELD_NUMBER: _ClassVar[int]
        LAST_REVEALED_FIELD_NUMBER: _ClassVar[int]
        seat: int
        cards: int
        hand_size: int
        pile_size: int
        revealed: _containers.RepeatedScalarFieldContainer[str]
        points: int
        out: bool
        passed: bool
        placed: bool
        last_revealed: _containers.RepeatedScalarFieldContainer[str]
        def __init__(self, seat: _Optional[int] = ..., cards: _Optional[int] = ..., hand_size: _Optional[int] = ..., pile_size: _Optional[int] = ..., revealed: _Optional[_Iterable[str]] = ..., points: _Optional[int] = ..., out: _Optional[bool] = ..., passed: _Optional[bool] = ..., placed: _Optional[bool] = ..., last_revealed: _Optional[_Iterable[str]] = ...) -> None: ...
    GAME_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    FIRST_PLAYER_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    BID_FIELD_NUMBER: _ClassVar[int]
    BIDDER_FIELD_NUMBER: _ClassVar[int]
    MAX_BID_FIELD_NUMBER: _ClassVar[int]
    FLIPPED_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    PILE_FIELD_NUMBER: _ClassVar[int]
    LOST_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    LAST_BIDDER_FIELD_NUMBER: _ClassVar[int]
    LAST_BID_FIELD_NUMBER: _ClassVar[int]
    LAST_SUCCESS_FIELD_NUMBER: _ClassVar[int]
    LAST_SKULL_OWNER_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    game: str
    seat: int
    players: int
    to_act: _containers.RepeatedScalarFieldContainer[int]
    phase: str
    round: int
    first_player: int
    turn: int
    bid: int
    bidder: int
    max_bid: int
    flipped: int
    hand: _containers.RepeatedScalarFieldContainer[str]
    pile: _containers.RepeatedScalarFieldContainer[str]
    lost: _containers.RepeatedScalarFieldContainer[str]
    winner: int
    last_bidder: int
    last_bid: int
    last_success: bool
    last_skull_owner: int
    seats: _containers.RepeatedCompositeFieldContainer[SkullView.Seat]
    def __init__(self, game: _Optional[str] = ..., seat: _Optional[int] = ..., players: _Optional[int] = ..., to_act: _Optional[_Iterable[int]] = ..., phase: _Optional[str] = ..., round: _Optional[int] = ..., first_player: _Optional[int] = ..., turn: _Optional[int] = ..., bid: _Optional[int] = ..., bidder: _Optional[int] = ..., max_bid: _Optional[int] = ..., flipped: _Optional[int] = ..., hand: _Optional[_Iterable[str]] = ..., pile: _Optional[_Iterable[str]] = ..., lost: _Optional[_Iterable[str]] = ..., winner: _Optional[int] = ..., last_bidder: _Optional[int] = ..., last_bid: _Optional[int] = ..., last_success: _Optional[bool] = ..., last_skull_owner: _Optional[int] = ..., seats: _Optional[_Iterable[_Union[SkullView.Seat, _Mapping]]] = ...) -> None: ...
