from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class NineCardGolfView(_message.Message):
    __slots__ = ("game", "seat", "players", "to_act", "phase", "round", "rounds", "decks", "dealer", "starter", "turn", "ender", "final_turns_left", "turns_played", "turn_limit", "draw_pile_size", "discard_top", "discard_pile", "drawn_card", "my_opening", "seats")
    class Cell(_message.Message):
        __slots__ = ("pos", "card", "face_up")
        POS_FIELD_NUMBER: _ClassVar[int]
        CARD_FIELD_NUMBER: _ClassVar[int]
        FACE_UP_FIELD_NUMBER: _ClassVar[int]
        pos: int
        card: str
        face_up: bool
        def __init__(self, pos: _Optional[int] = ..., card: _Optional[str] = ..., face_up: _Optional[bool] = ...) -> None: ...
    class Seat(_message.Message):
        __slots__ = ("seat", "grid", "face_down", "opened", "grid_score", "total", "round_scores")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        GRID_FIELD_NUMBER: _ClassVar[int]
        FACE_DOWN_FIELD_NUMBER: _ClassVar[int]
        OPENED_FIELD_NUMBER: _ClassVar[int]
        GRID_SCORE_FIELD_NUMBER: _ClassVar[int]
        TOTAL_FIELD_NUMBER: _ClassVar[int]
        ROUND_SCORES_FIELD_NUMBER: _ClassVar[int]
        seat: int
        grid: _containers.RepeatedCompositeFieldContainer[NineCardGolfView.Cell]
        face_down: int
        opened: bool
        grid_score: int
        total: int
        round_scores: _containers.RepeatedScalarFieldContainer[int]
        def __init__(self, seat: _Optional[int] = ..., grid: _Optional[_Iterable[_Union[NineCardGolfView.Cell, _Mapping]]] = ..., face_down: _Optional[int] = ..., opened: _Optional[bool] = ..., grid_score: _Optional[int] = ..., total: _Optional[int] = ..., round_scores: _Optional[_Iterable[int]] = ...) -> None: ...
    GAME_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    ROUNDS_FIELD_NUMBER: _ClassVar[int]
    DECKS_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    STARTER_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    ENDER_FIELD_NUMBER: _ClassVar[int]
    FINAL_TURNS_LEFT_FIELD_NUMBER: _ClassVar[int]
    TURNS_PLAYED_FIELD_NUMBER: _ClassVar[int]
    TURN_LIMIT_FIELD_NUMBER: _ClassVar[int]
    DRAW_PILE_SIZE_FIELD_NUMBER: _ClassVar[int]
    DISCARD_TOP_FIELD_NUMBER: _ClassVar[int]
    DISCARD_PILE_FIELD_NUMBER: _ClassVar[int]
    DRAWN_CARD_FIELD_NUMBER: _ClassVar[int]
    MY_OPENING_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    game: str
    seat: int
    players: int
    to_act: _containers.RepeatedScalarFieldContainer[int]
    phase: str
    round: int
    rounds: int
    decks: int
    dealer: int
    starter: int
    turn: int
    ender: int
    final_turns_left: int
    turns_played: int
    turn_limit: int
    draw_pile_size: int
    discard_top: str
    discard_pile: _containers.RepeatedScalarFieldContainer[str]
    drawn_card: str
    my_opening: _containers.RepeatedScalarFieldContainer[int]
    seats: _containers.RepeatedCompositeFieldContainer[NineCardGolfView.Seat]
    def __init__(self, game: _Optional[str] = ..., seat: _Optional[int] = ..., players: _Optional[int] = ..., to_act: _Optional[_Iterable[int]] = ..., phase: _Optional[str] = ..., round: _Optional[int] = ..., rounds: _Optional[int] = ..., decks: _Optional[int] = ..., dealer: _Optional[int] = ..., starter: _Optional[int] = ..., turn: _Optional[int] = ..., ender: _Optional[int] = ..., final_turns_left: _Optional[int] = ..., turns_played: _Optional[int] = ..., turn_limit: _Optional[int] = ..., draw_pile_size: _Optional[int] = ..., discard_top: _Optional[str] = ..., discard_pile: _Optional[_Iterable[str]] = ..., drawn_card: _Optional[str] = ..., my_opening: _Optional[_Iterable[int]] = ..., seats: _Optional[_Iterable[_Union[NineCardGolfView.Seat, _Mapping]]] = ...) -> None: ...
