from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class LootTheLoopView(_message.Message):
    __slots__ = ("game", "seat", "players", "to_act", "outcome", "end_reason", "score", "phase", "piles", "deck", "deck_size", "notes", "score_pile", "jewels", "turns", "max_turns", "last_landing", "escaped")
    class Pile(_message.Message):
        __slots__ = ("pile", "size", "face_up")
        PILE_FIELD_NUMBER: _ClassVar[int]
        SIZE_FIELD_NUMBER: _ClassVar[int]
        FACE_UP_FIELD_NUMBER: _ClassVar[int]
        pile: int
        size: int
        face_up: _containers.RepeatedScalarFieldContainer[str]
        def __init__(self, pile: _Optional[int] = ..., size: _Optional[int] = ..., face_up: _Optional[_Iterable[str]] = ...) -> None: ...
    class DeckCard(_message.Message):
        __slots__ = ("pos", "face_up", "card")
        POS_FIELD_NUMBER: _ClassVar[int]
        FACE_UP_FIELD_NUMBER: _ClassVar[int]
        CARD_FIELD_NUMBER: _ClassVar[int]
        pos: int
        face_up: bool
        card: str
        def __init__(self, pos: _Optional[int] = ..., face_up: _Optional[bool] = ..., card: _Optional[str] = ...) -> None: ...
    GAME_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    END_REASON_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    PILES_FIELD_NUMBER: _ClassVar[int]
    DECK_FIELD_NUMBER: _ClassVar[int]
    DECK_SIZE_FIELD_NUMBER: _ClassVar[int]
    NOTES_FIELD_NUMBER: _ClassVar[int]
    SCORE_PILE_FIELD_NUMBER: _ClassVar[int]
    JEWELS_FIELD_NUMBER: _ClassVar[int]
    TURNS_FIELD_NUMBER: _ClassVar[int]
    MAX_TURNS_FIELD_NUMBER: _ClassVar[int]
    LAST_LANDING_FIELD_NUMBER: _ClassVar[int]
    ESCAPED_FIELD_NUMBER: _ClassVar[int]
    game: str
    seat: int
    players: int
    to_act: int
    outcome: str
    end_reason: str
    score: int
    phase: str
    piles: _containers.RepeatedCompositeFieldContainer[LootTheLoopView.Pile]
    deck: _containers.RepeatedCompositeFieldContainer[LootTheLoopView.DeckCard]
    deck_size: int
    notes: _containers.RepeatedScalarFieldContainer[str]
    score_pile: _containers.RepeatedScalarFieldContainer[str]
    jewels: int
    turns: int
    max_turns: int
    last_landing: str
    escaped: bool
    def __init__(self, game: _Optional[str] = ..., seat: _Optional[int] = ..., players: _Optional[int] = ..., to_act: _Optional[int] = ..., outcome: _Optional[str] = ..., end_reason: _Optional[str] = ..., score: _Optional[int] = ..., phase: _Optional[str] = ..., piles: _Optional[_Iterable[_Union[LootTheLoopView.Pile, _Mapping]]] = ..., deck: _Optional[_Iterable[_Union[LootTheLoopView.DeckCard, _Mapping]]] = ..., deck_size: _Optional[int] = ..., notes: _Optional[_Iterable[str]] = ..., score_pile: _Optional[_Iterable[str]] = ..., jewels: _Optional[int] = ..., turns: _Optional[int] = ..., max_turns: _Optional[int] = ..., last_landing: _Optional[str] = ..., escaped: _Optional[bool] = ...) -> None: ...
