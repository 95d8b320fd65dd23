from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class LeTrucView(_message.Message):
    __slots__ = ("game", "seat", "players", "to_act", "phase", "dealer", "deal_number", "hand", "leader", "trick_number", "trick", "tricks", "value", "offered_by", "offered_value", "double_holder_team", "redeal_proposed", "redealt", "talk", "target", "deals", "teams", "seats", "redeal_open")
    class TrickCard(_message.Message):
        __slots__ = ("seat", "card")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        CARD_FIELD_NUMBER: _ClassVar[int]
        seat: int
        card: str
        def __init__(self, seat: _Optional[int] = ..., card: _Optional[str] = ...) -> None: ...
    class Trick(_message.Message):
        __slots__ = ("number", "leader", "cards", "winner", "winner_team")
        NUMBER_FIELD_NUMBER: _ClassVar[int]
        LEADER_FIELD_NUMBER: _ClassVar[int]
        CARDS_FIELD_NUMBER: _ClassVar[int]
        WINNER_FIELD_NUMBER: _ClassVar[int]
        WINNER_TEAM_FIELD_NUMBER: _ClassVar[int]
        number: int
        leader: int
        cards: _containers.RepeatedCompositeFieldContainer[LeTrucView.TrickCard]
        winner: int
        winner_team: int
        def __init__(self, number: _Optional[int] = ..., leader: _Optional[int] = ..., cards: _Optional[_Iterable[_Union[LeTrucView.TrickCard, _Mapping]]] = ..., winner: _Optional[int] = ..., winner_team: _Optional[int] = ...) -> None: ...
    class Talk(_message.Message):
        __slots__ = ("seat", "phrase", "trick")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        PHRASE_FIELD_NUMBER: _ClassVar[int]
        TRICK_FIELD_NUMBER: _ClassVar[int]
        seat: int
        phrase: str
        trick: int
        def __init__(self, seat: _Optional[int] = ..., phrase: _Optional[str] = ..., trick: _Optional[int] = ...) -> None: ...
    class Team(_message.Message):
        __slots__ = ("team", "seats", "tricks_won", "score", "deal_score")
        TEAM_FIELD_NUMBER: _ClassVar[int]
        SEATS_FIELD_NUMBER: _ClassVar[int]
        TRICKS_WON_FIELD_NUMBER: _ClassVar[int]
        SCORE_FIELD_NUMBER: _ClassVar[int]
        DEAL_SCORE_FIELD_NUMBER: _ClassVar[int]
        team: int
        seats: _containers.RepeatedScalarFieldContainer[int]
        tricks_won: int
        score: int
        deal_score: int
        def __init__(self, team: _Optional[int] = ..., seats: _Optional[_Iterable[int]] = ..., tricks_won: _Optional[int] = ..., score: _Optional[int] = ..., deal_score: _Optional[int] = ...) -> None: ...
    class Seat(_message.Message):
        __slots__ = ("seat", "team", "hand_size", "score")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        TEAM_FIELD_NUMBER: _ClassVar[int]
        HAND_SIZE_FIELD_NUMBER: _ClassVar[int]
        SCORE_FIELD_NUMBER: _ClassVar[int]
        seat: int
        team: int
        hand_size: int
        score: int
        def __init__(self, seat: _Optional[int] = ..., team: _Optional[int] = ..., hand_size: _Optional[int] = ..., score: _Optional[int] = ...) -> None: ...
    GAME_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    DEAL_NUMBER_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    TRICK_NUMBER_FIELD_NUMBER: _ClassVar[int]
    TRICK_FIELD_NUMBER: _ClassVar[int]
    TRICKS_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    OFFERED_BY_FIELD_NUMBER: _ClassVar[int]
    OFFERED_VALUE_FIELD_NUMBER: _ClassVar[int]
    DOUBLE_HOLDER_TEAM_FIELD_NUMBER: _ClassVar[int]
    REDEAL_PROPOSED_FIELD_NUMBER: _ClassVar[int]
    REDEALT_FIELD_NUMBER: _ClassVar[int]
    TALK_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    DEALS_FIELD_NUMBER: _ClassVar[int]
    TEAMS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    REDEAL_OPEN_FIELD_NUMBER: _ClassVar[int]
    game: str
    seat: int
    players: int
    to_act: int
    phase: str
    dealer: int
    deal_number: int
    hand: _containers.RepeatedScalarFieldContainer[str]
    leader: int
    trick_number: int
    trick: _containers.RepeatedCompositeFieldContainer[LeTrucView.TrickCard]
    tricks: _containers.RepeatedCompositeFieldContainer[LeTrucView.Trick]
    value: int
    offered_by: int
    offered_value: int
    double_holder_team: int
    redeal_proposed: bool
    redealt: bool
    talk: _containers.RepeatedCompositeFieldContainer[LeTrucView.Talk]
    target: int
    deals: int
    teams: _containers.RepeatedCompositeFieldContainer[LeTrucView.Team]
    seats: _containers.RepeatedCompositeFieldContainer[LeTrucView.Seat]
    redeal_open: bool
    def __init__(self, game: _Optional[str] = ..., seat: _Optional[int] = ..., players: _Optional[int] = ..., to_act: _Optional[int] = ..., phase: _Optional[str] = ..., dealer: _Optional[int] = ..., deal_number: _Optional[int] = ..., hand: _Optional[_Iterable[str]] = ..., leader: _Optional[int] = ..., trick_number: _Optional[int] = ..., trick: _Optional[_Iterable[_Union[LeTrucView.TrickCard, _Mapping]]] = ..., tricks: _Optional[_Iterable[_Union[LeTrucView.Trick, _Mapping]]] = ..., value: _Optional[int] = ..., offered_by: _Optional[int] = ..., offered_value: _Optional[int] = ..., double_holder_team: _Optional[int] = ..., redeal_proposed: _Optional[bool] = ..., redealt: _Optional[bool] = ..., talk: _Optional[_Iterable[_Union[LeTrucView.Talk, _Mapping]]] = ..., target: _Optional[int] = ..., deals: _Optional[int] = ..., teams: _Optional[_Iterable[_Union[LeTrucView.Team, _Mapping]]] = ..., seats: _Optional[_Iterable[_Union[LeTrucView.Seat, _Mapping]]] = ..., redeal_open: _Optional[bool] = ...) -> None: ...
