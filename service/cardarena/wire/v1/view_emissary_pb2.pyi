from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class EmissaryView(_message.Message):
    __slots__ = ("game", "seat", "players", "to_act", "outcome", "end_reason", "score", "phase", "kingdoms", "current", "target", "trump", "wins", "hand", "debate_card", "discard_pile", "scoring_pile", "deck_size", "advisors", "supporters", "kingdoms_won", "discards_left")
    class Kingdom(_message.Message):
        __slots__ = ("kingdom", "target", "ruler", "trump", "visited", "won")
        KINGDOM_FIELD_NUMBER: _ClassVar[int]
        TARGET_FIELD_NUMBER: _ClassVar[int]
        RULER_FIELD_NUMBER: _ClassVar[int]
        TRUMP_FIELD_NUMBER: _ClassVar[int]
        VISITED_FIELD_NUMBER: _ClassVar[int]
        WON_FIELD_NUMBER: _ClassVar[int]
        kingdom: int
        target: int
        ruler: str
        trump: str
        visited: bool
        won: bool
        def __init__(self, kingdom: _Optional[int] = ..., target: _Optional[int] = ..., ruler: _Optional[str] = ..., trump: _Optional[str] = ..., visited: _Optional[bool] = ..., won: _Optional[bool] = ...) -> None: ...
    class Helper(_message.Message):
        __slots__ = ("card", "used")
        CARD_FIELD_NUMBER: _ClassVar[int]
        USED_FIELD_NUMBER: _ClassVar[int]
        card: str
        used: bool
        def __init__(self, card: _Optional[str] = ..., used: _Optional[bool] = ...) -> None: ...
    GAME_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    END_REASON_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    KINGDOMS_FIELD_NUMBER: _ClassVar[int]
    CURRENT_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    TRUMP_FIELD_NUMBER: _ClassVar[int]
    WINS_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    DEBATE_CARD_FIELD_NUMBER: _ClassVar[int]
    DISCARD_PILE_FIELD_NUMBER: _ClassVar[int]
    SCORING_PILE_FIELD_NUMBER: _ClassVar[int]
    DECK_SIZE_FIELD_NUMBER: _ClassVar[int]
    ADVISORS_FIELD_NUMBER: _ClassVar[int]
    SUPPORTERS_FIELD_NUMBER: _ClassVar[int]
    KINGDOMS_WON_FIELD_NUMBER: _ClassVar[int]
    DISCARDS_LEFT_FIELD_NUMBER: _ClassVar[int]
    game: str
    seat: int
    players: int
    to_act: int
    outcome: str
    end_reason: str
    score: int
    phase: str
    kingdoms: _containers.RepeatedCompositeFieldContainer[EmissaryView.Kingdom]
    current: int
    target: int
    trump: str
    wins: int
    hand: _containers.RepeatedScalarFieldContainer[str]
    debate_card: str
    discard_pile: _containers.RepeatedScalarFieldContainer[str]
    scoring_pile: _containers.RepeatedScalarFieldContainer[str]
    deck_size: int
    advisors: _containers.RepeatedCompositeFieldContainer[EmissaryView.Helper]
    supporters: _containers.RepeatedCompositeFieldContainer[EmissaryView.Helper]
    kingdoms_won: int
    discards_left: int
    def __init__(self, game: _Optional[str] = ..., seat: _Optional[int] = ..., players: _Optional[int] = ..., to_act: _Optional[int] = ..., outcome: _Optional[str] = ..., end_reason: _Optional[str] = ..., score: _Optional[int] = ..., phase: _Optional[str] = ..., kingdoms: _Optional[_Iterable[_Union[EmissaryView.Kingdom, _Mapping]]] = ..., current: _Optional[int] = ..., target: _Optional[int] = ..., trump: _Optional[str] = ..., wins: _Optional[int] = ..., hand: _Optional[_Iterable[str]] = ..., debate_card: _Optional[str] = ..., discard_pile: _Optional[_Iterable[str]] = ..., scoring_pile: _Optional[_Iterable[str]] = ..., deck_size: _Optional[int] = ..., advisors: _Optional[_Iterable[_Union[EmissaryView.Helper, _Mapping]]] = ..., supporters: _Optional[_Iterable[_Union[EmissaryView.Helper, _Mapping]]] = ..., kingdoms_won: _Optional[int] = ..., discards_left: _Optional[int] = ...) -> None: ...
