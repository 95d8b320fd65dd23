from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CoupView(_message.Message):
    __slots__ = ("game", "seat", "players", "to_act", "stage", "dealer", "turn", "turns", "call_the_coup", "five_lives", "hand", "hand_characters", "drawn", "deck_size", "action", "action_target", "action_character", "claim", "challenger", "blocker", "block_character", "window", "shown", "winner", "known", "log", "seats", "max_turns")
    class Known(_message.Message):
        __slots__ = ("seat", "card")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        CARD_FIELD_NUMBER: _ClassVar[int]
        seat: int
        card: str
        def __init__(self, seat: _Optional[int] = ..., card: _Optional[str] = ...) -> None: ...
    class Event(_message.Message):
        __slots__ = ("seat", "event", "target", "character", "card")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        EVENT_FIELD_NUMBER: _ClassVar[int]
        TARGET_FIELD_NUMBER: _ClassVar[int]
        CHARACTER_FIELD_NUMBER: _ClassVar[int]
        CARD_FIELD_NUMBER: _ClassVar[int]
        seat: int
        event: str
        target: int
        character: str
        card: str
        def __init__(self, seat: _Optional[int] = ..., event: _Optional[str] = ..., target: _Optional[int] = ..., character: _Optional[str] = ..., card: _Optional[str] = ...) -> None: ...
    class Seat(_message.Message):
        __slots__ = ("seat", "coins", "cards", "dead", "out", "lives")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        COINS_FIELD_NUMBER: _ClassVar[int]
        CARDS_FIELD_NUMBER: _ClassVar[int]
        DEAD_FIELD_NUMBER: _ClassVar[int]
        OUT_FIELD_NUMBER: _ClassVar[int]
        LIVES_FIELD_NUMBER: _ClassVar[int]
        seat: int
        coins: int
        cards: int
        dead: _containers.RepeatedScalarFieldContainer[str]
        out: bool
        lives: int
        def __init__(self, seat: _Optional[int] = ..., coins: _Optional[int] = ..., cards: _Optional[int] = ..., dead: _Optional[_Iterable[str]] = ..., out: _Optional[bool] = ..., lives: _Optional[int] = ...) -> None: ...
    GAME_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    STAGE_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    TURNS_FIELD_NUMBER: _ClassVar[int]
    CALL_THE_COUP_FIELD_NUMBER: _ClassVar[int]
    FIVE_LIVES_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    HAND_CHARACTERS_FIELD_NUMBER: _ClassVar[int]
    DRAWN_FIELD_NUMBER: _ClassVar[int]
    DECK_SIZE_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    ACTION_TARGET_FIELD_NUMBER: _ClassVar[int]
    ACTION_CHARACTER_FIELD_NUMBER: _ClassVar[int]
    CLAIM_FIELD_NUMBER: _ClassVar[int]
    CHALLENGER_FIELD_NUMBER: _ClassVar[int]
    BLOCKER_FIELD_NUMBER: _ClassVar[int]
    BLOCK_CHARACTER_FIELD_NUMBER: _ClassVar[int]
    WINDOW_FIELD_NUMBER: _ClassVar[int]
    SHOWN_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    KNOWN_FIELD_NUMBER: _ClassVar[int]
    LOG_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    MAX_TURNS_FIELD_NUMBER: _ClassVar[int]
    game: str
    seat: int
    players: int
    to_act: _containers.RepeatedScalarFieldContainer[int]
    stage: str
    dealer: int
    turn: int
    turns: int
    call_the_coup: bool
    five_lives: bool
    hand: _containers.RepeatedScalarFieldContainer[str]
    hand_characters: _containers.RepeatedScalarFieldContainer[str]
    drawn: _containers.RepeatedScalarFieldContainer[str]
    deck_size: int
    action: str
    action_target: int
    action_character: str
    claim: str
    challenger: int
    blocker: int
    block_character: str
    window: str
    shown: str
    winner: int
    known: _containers.RepeatedCompositeFieldContainer[CoupView.Known]
    log: _containers.RepeatedCompositeFieldContainer[CoupView.Event]
    seats: _containers.RepeatedCompositeFieldContainer[CoupView.Seat]
    max_turns: int
    def __init__(self, game: _Optional[str] = ..., seat: _Optional[int] = ..., players: _Optional[int] = ..., to_act: _Optional[_Iterable[int]] = ..., stage: _Optional[str] = ..., dealer: _Optional[int] = ..., turn: _Optional[int] = ..., turns: _Optional[int] = ..., call_the_coup: _Optional[bool] = ..., five_lives: _Optional[bool] = ..., hand: _Optional[_Iterable[str]] = ..., hand_characters: _Optional[_Iterable[str]] = ..., drawn: _Optional[_Iterable[str]] = ..., deck_size: _Optional[int] = ..., action: _Optional[str] = ..., action_target: _Optional[int] = ..., action_character: _Optional[str] = ..., claim: _Optional[str] = ..., challenger: _Optional[int] = ..., blocker: _Optional[int] = ..., block_character: _Optional[str] = ..., window: _Optional[str] = ..., shown: _Optional[str] = ..., winner: _Optional[int] = ..., known: _Optional[_Iterable[_Union[CoupView.Known, _Mapping]]] = ..., log: _Optional[_Iterable[_Union[CoupView.Event, _Mapping]]] = ..., seats: _Optional[_Iterable[_Union[CoupView.Seat, _Mapping]]] = ..., max_turns: _Optional[int] = ...) -> None: ...
