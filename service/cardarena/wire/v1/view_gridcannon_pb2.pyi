from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class GridcannonView(_message.Message):
    __slots__ = ("game", "seat", "players", "to_act", "outcome", "end_reason", "score", "phase", "grid", "royals", "pending", "royal_to_place", "royals_waiting", "ploys", "spent_ploys", "deck_size", "deck_known_bottom", "cycled", "killed", "won")
    class Spot(_message.Message):
        __slots__ = ("pos", "cards", "top", "value")
        POS_FIELD_NUMBER: _ClassVar[int]
        CARDS_FIELD_NUMBER: _ClassVar[int]
        TOP_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        pos: int
        cards: _containers.RepeatedScalarFieldContainer[str]
        top: str
        value: int
        def __init__(self, pos: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ..., top: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class Royal(_message.Message):
        __slots__ = ("slot", "beside", "card", "alive", "dead", "armour", "health")
        SLOT_FIELD_NUMBER: _ClassVar[int]
        BESIDE_FIELD_NUMBER: _ClassVar[int]
        CARD_FIELD_NUMBER: _ClassVar[int]
        ALIVE_FIELD_NUMBER: _ClassVar[int]
        DEAD_FIELD_NUMBER: _ClassVar[int]
        ARMOUR_FIELD_NUMBER: _ClassVar[int]
        HEALTH_FIELD_NUMBER: _ClassVar[int]
        slot: str
        beside: int
        card: str
        alive: bool
        dead: bool
        armour: _containers.RepeatedScalarFieldContainer[str]
        health: int
        def __init__(self, slot: _Optional[str] = ..., beside: _Optional[int] = ..., card: _Optional[str] = ..., alive: _Optional[bool] = ..., dead: _Optional[bool] = ..., armour: _Optional[_Iterable[str]] = ..., health: _Optional[int] = ...) -> None: ...
    GAME_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    END_REASON_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    GRID_FIELD_NUMBER: _ClassVar[int]
    ROYALS_FIELD_NUMBER: _ClassVar[int]
    PENDING_FIELD_NUMBER: _ClassVar[int]
    ROYAL_TO_PLACE_FIELD_NUMBER: _ClassVar[int]
    ROYALS_WAITING_FIELD_NUMBER: _ClassVar[int]
    PLOYS_FIELD_NUMBER: _ClassVar[int]
    SPENT_PLOYS_FIELD_NUMBER: _ClassVar[int]
    DECK_SIZE_FIELD_NUMBER: _ClassVar[int]
    DECK_KNOWN_BOTTOM_FIELD_NUMBER: _ClassVar[int]
    CYCLED_FIELD_NUMBER: _ClassVar[int]
    KILLED_FIELD_NUMBER: _ClassVar[int]
    WON_FIELD_NUMBER: _ClassVar[int]
    game: str
    seat: int
    players: int
    to_act: int
    outcome: str
    end_reason: str
    score: int
    phase: str
    grid: _containers.RepeatedCompositeFieldContainer[GridcannonView.Spot]
    royals: _containers.RepeatedCompositeFieldContainer[GridcannonView.Royal]
    pending: str
    royal_to_place: str
    royals_waiting: _containers.RepeatedScalarFieldContainer[str]
    ploys: _containers.RepeatedScalarFieldContainer[str]
    spent_ploys: _containers.RepeatedScalarFieldContainer[str]
    deck_size: int
    deck_known_bottom: _containers.RepeatedScalarFieldContainer[str]
    cycled: _containers.RepeatedScalarFieldContainer[str]
    killed: int
    won: bool
    def __init__(self, game: _Optional[str] = ..., seat: _Optional[int] = ..., players: _Optional[int] = ..., to_act: _Optional[int] = ..., outcome: _Optional[str] = ..., end_reason: _Optional[str] = ..., score: _Optional[int] = ..., phase: _Optional[str] = ..., grid: _Optional[_Iterable[_Union[GridcannonView.Spot, _Mapping]]] = ..., royals: _Optional[_Iterable[_Union[GridcannonView.Royal, _Mapping]]] = ..., pending: _Optional[str] = ..., royal_to_place: _Optional[str] = ..., royals_waiting: _Optional[_Iterable[str]] = ..., ploys: _Optional[_Iterable[str]] = ..., spent_ploys: _Optional[_Iterable[str]] = ..., deck_size: _Optional[int] = ..., deck_known_bottom: _Optional[_Iterable[str]] = ..., cycled: _Optional[_Iterable[str]] = ..., killed: _Optional[int] = ..., won: _Optional[bool] = ...) -> None: ...
