from cardarena.wire.v1 import views_pb2 as _views_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RejectCode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    REJECT_CODE_UNSPECIFIED: _ClassVar[RejectCode]
    REJECT_ILLEGAL_ACTION: _ClassVar[RejectCode]
    REJECT_STALE_SEQ: _ClassVar[RejectCode]
    REJECT_NOT_YOUR_SEAT: _ClassVar[RejectCode]
    REJECT_UNKNOWN_MATCH: _ClassVar[RejectCode]
    REJECT_MALFORMED: _ClassVar[RejectCode]
REJECT_CODE_UNSPECIFIED: RejectCode
REJECT_ILLEGAL_ACTION: RejectCode
REJECT_STALE_SEQ: RejectCode
REJECT_NOT_YOUR_SEAT: RejectCode
REJECT_UNKNOWN_MATCH: RejectCode
REJECT_MALFORMED: RejectCode

class BotMessage(_message.Message):
    __slots__ = ("hello", "action", "pong", "resign", "batch", "hand_back")
    HELLO_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    PONG_FIELD_NUMBER: _ClassVar[int]
    RESIGN_FIELD_NUMBER: _ClassVar[int]
    BATCH_FIELD_NUMBER: _ClassVar[int]
    HAND_BACK_FIELD_NUMBER: _ClassVar[int]
    hello: Hello
    action: Action
    pong: Pong
    resign: Resign
    batch: BotBatch
    hand_back: HandBack
    def __init__(self, hello: _Optional[_Union[Hello, _Mapping]] = ..., action: _Optional[_Union[Action, _Mapping]] = ..., pong: _Optional[_Union[Pong, _Mapping]] = ..., resign: _Optional[_Union[Resign, _Mapping]] = ..., batch: _Optional[_Union[BotBatch, _Mapping]] = ..., hand_back: _Optional[_Union[HandBack, _Mapping]] = ...) -> None: ...

class BotBatch(_message.Message):
    __slots__ = ("messages",)
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    messages: _containers.RepeatedCompositeFieldContainer[BotMessage]
    def __init__(self, messages: _Optional[_Iterable[_Union[BotMessage, _Mapping]]] = ...) -> None: ...

class Hello(_message.Message):
    __slots__ = ("bot", "games", "max_matches", "client", "batching", "version")
    BOT_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    MAX_MATCHES_FIELD_NUMBER: _ClassVar[int]
    CLIENT_FIELD_NUMBER: _ClassVar[int]
    BATCHING_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    bot: str
    games: _containers.RepeatedScalarFieldContainer[str]
    max_matches: int
    client: str
    batching: bool
    version: str
    def __init__(self, bot: _Optional[str] = ..., games: _Optional[_Iterable[str]] = ..., max_matches: _Optional[int] = ..., client: _Optional[str] = ..., batching: _Optional[bool] = ..., version: _Optional[str] = ...) -> None: ...

class Action(_message.Message):
    __slots__ = ("match_id", "seq", "action_id")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    ACTION_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seq: int
    action_id: str
    def __init__(self, match_id: _Optional[str] = ..., seq: _Optional[int] = ..., action_id: _Optional[str] = ...) -> None: ...

class HandBack(_message.Message):
    __slots__ = ("match_id", "seq")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seq: int
    def __init__(self, match_id: _Optional[str] = ..., seq: _Optional[int] = ...) -> None: ...

class Pong(_message.Message):
    __slots__ = ("nonce",)
    NONCE_FIELD_NUMBER: _ClassVar[int]
    nonce: int
    def __init__(self, nonce: _Optional[int] = ...) -> None: ...

class Resign(_message.Message):
    __slots__ = ("match_id",)
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    def __init__(self, match_id: _Optional[str] = ...) -> None: ...

class ServerMessage(_message.Message):
    __slots__ = ("welcome", "match_start", "action_request", "action_rejected", "event", "match_end", "ping", "match_invite", "batch")
    WELCOME_FIELD_NUMBER: _ClassVar[int]
    MATCH_START_FIELD_NUMBER: _ClassVar[int]
    ACTION_REQUEST_FIELD_NUMBER: _ClassVar[int]
    ACTION_REJECTED_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    MATCH_END_FIELD_NUMBER: _ClassVar[int]
    PING_FIELD_NUMBER: _ClassVar[int]
    MATCH_INVITE_FIELD_NUMBER: _ClassVar[int]
    BATCH_FIELD_NUMBER: _ClassVar[int]
    welcome: Welcome
    match_start: MatchStart
    action_request: ActionRequest
    action_rejected: ActionRejected
    event: Event
    match_end: MatchEnd
    ping: Ping
    match_invite: MatchInvite
    batch: ServerBatch
    def __init__(self, welcome: _Optional[_Union[Welcome, _Mapping]] = ..., match_start: _Optional[_Union[MatchStart, _Mapping]] = ..., action_request: _Optional[_Union[ActionRequest, _Mapping]] = ..., action_rejected: _Optional[_Union[ActionRejected, _Mapping]] = ..., event: _Optional[_Union[Event, _Mapping]] = ..., match_end: _Optional[_Union[MatchEnd, _Mapping]] = ..., ping: _Optional[_Union[Ping, _Mapping]] = ..., match_invite: _Optional[_Union[MatchInvite, _Mapping]] = ..., batch: _Optional[_Union[ServerBatch, _Mapping]] = ...) -> None: ...

class ServerBatch(_message.Message):
    __slots__ = ("messages",)
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    messages: _containers.RepeatedCompositeFieldContainer[ServerMessage]
    def __init__(self, messages: _Optional[_Iterable[_Union[ServerMessage, _Mapping]]] = ...) -> None: ...

class Welcome(_message.Message):
    __slots__ = ("bot", "session_id", "instance", "max_matches", "resumed", "batching", "hand_back")
    BOT_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    INSTANCE_FIELD_NUMBER: _ClassVar[int]
    MAX_MATCHES_FIELD_NUMBER: _ClassVar[int]
    RESUMED_FIELD_NUMBER: _ClassVar[int]
    BATCHING_FIELD_NUMBER: _ClassVar[int]
    HAND_BACK_FIELD_NUMBER: _ClassVar[int]
    bot: str
    session_id: str
    instance: str
    max_matches: int
    resumed: _containers.RepeatedScalarFieldContainer[str]
    batching: bool
    hand_back: bool
    def __init__(self, bot: _Optional[str] = ..., session_id: _Optional[str] = ..., instance: _Optional[str] = ..., max_matches: _Optional[int] = ..., resumed: _Optional[_Iterable[str]] = ..., batching: _Optional[bool] = ..., hand_back: _Optional[bool] = ...) -> None: ...

class TimeControl(_message.Message):
    __slots__ = ("move_ms", "bank_ms")
    MOVE_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    move_ms: int
    bank_ms: int
    def __init__(self, move_ms: _Optional[int] = ..., bank_ms: _Optional[int] = ...) -> None: ...

class MatchStart(_message.Message):
    __slots__ = ("match_id", "game", "options_json", "players", "seat", "seat_names", "time_control", "resumed")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_JSON_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEAT_NAMES_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    RESUMED_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    game: str
    options_json: str
    players: int
    seat: int
    seat_names: _containers.RepeatedScalarFieldContainer[str]
    time_control: TimeControl
    resumed: bool
    def __init__(self, match_id: _Optional[str] = ..., game: _Optional[str] = ..., options_json: _Optional[str] = ..., players: _Optional[int] = ..., seat: _Optional[int] = ..., seat_names: _Optional[_Iterable[str]] = ..., time_control: _Optional[_Union[TimeControl, _Mapping]] = ..., resumed: _Optional[bool] = ...) -> None: ...

class LegalAction(_message.Message):
    __slots__ = ("id", "kind", "label", "cards", "amount", "target", "choice")
    ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    CHOICE_FIELD_NUMBER: _ClassVar[int]
    id: str
    kind: str
    label: str
    cards: _containers.RepeatedScalarFieldContainer[str]
    amount: int
    target: int
    choice: str
    def __init__(self, id: _Optional[str] = ..., kind: _Optional[str] = ..., label: _Optional[str] = ..., cards: _Optional[_Iterable[str]] = ..., amount: _Optional[int] = ..., target: _Optional[int] = ..., choice: _Optional[str] = ...) -> None: ...

class ActionRequest(_message.Message):
    __slots__ = ("match_id", "seq", "seat", "view", "legal", "move_ms_left", "bank_ms_left")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    LEGAL_FIELD_NUMBER: _ClassVar[int]
    MOVE_MS_LEFT_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_LEFT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seq: int
    seat: int
    view: _views_pb2.View
    legal: _containers.RepeatedCompositeFieldContainer[LegalAction]
    move_ms_left: int
    bank_ms_left: int
    def __init__(self, match_id: _Optional[str] = ..., seq: _Optional[int] = ..., seat: _Optional[int] = ..., view: _Optional[_Union[_views_pb2.View, _Mapping]] = ..., legal: _Optional[_Iterable[_Union[LegalAction, _Mapping]]] = ..., move_ms_left: _Optional[int] = ..., bank_ms_left: _Optional[int] = ...) -> None: ...

class ActionRejected(_message.Message):
    __slots__ = ("match_id", "seq", "reason", "code", "move_ms_left", "bank_ms_left")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    MOVE_MS_LEFT_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_LEFT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seq: int
    reason: str
    code: RejectCode
    move_ms_left: int
    bank_ms_left: int
    def __init__(self, match_id: _Optional[str] = ..., seq: _Optional[int] = ..., reason: _Optional[str] = ..., code: _Optional[_Union[RejectCode, str]] = ..., move_ms_left: _Optional[int] = ..., bank_ms_left: _Optional[int] = ...) -> None: ...

class Event(_message.Message):
    __slots__ = ("match_id", "seat", "action", "is_default", "fault")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    IS_DEFAULT_FIELD_NUMBER: _ClassVar[int]
    FAULT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat: int
    action: str
    is_default: bool
    fault: str
    def __init__(self, match_id: _Optional[str] = ..., seat: _Optional[int] = ..., action: _Optional[str] = ..., is_default: _Optional[bool] = ..., fault: _Optional[str] = ...) -> None: ...

class MatchEnd(_message.Message):
    __slots__ = ("match_id", "status", "scores", "ranks", "forfeited", "reason")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    RANKS_FIELD_NUMBER: _ClassVar[int]
    FORFEITED_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    status: str
    scores: _containers.RepeatedScalarFieldContainer[float]
    ranks: _containers.RepeatedScalarFieldContainer[int]
    forfeited: _containers.RepeatedScalarFieldContainer[int]
    reason: str
    def __init__(self, match_id: _Optional[str] = ..., status: _Optional[str] = ..., scores: _Optional[_Iterable[float]] = ..., ranks: _Optional[_Iterable[int]] = ..., forfeited: _Optional[_Iterable[int]] = ..., reason: _Optional[str] = ...) -> None: ...

class MatchInvite(_message.Message):
    __slots__ = ("match_id", "game", "address", "instance")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    ADDRESS_FIELD_NUMBER: _ClassVar[int]
    INSTANCE_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    game: str
    address: str
    instance: str
    def __init__(self, match_id: _Optional[str] = ..., game: _Optional[str] = ..., address: _Optional[str] = ..., instance: _Optional[str] = ...) -> None: ...

class Ping(_message.Message):
    __slots__ = ("nonce",)
    NONCE_FIELD_NUMBER: _ClassVar[int]
    nonce: int
    def __init__(self, nonce: _Optional[int] = ...) -> None: ...

class RegisterBotRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class RegisterBotResponse(_message.Message):
    __slots__ = ("name", "token")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    name: str
    token: str
    def __init__(self, name: _Optional[str] = ..., token: _Optional[str] = ...) -> None: ...

class DeleteBotRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class DeleteBotResponse(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class ListBotsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class BotInfo(_message.Message):
    __slots__ = ("name", "created_at", "matches", "timeouts", "illegal_actions", "disconnects", "forfeits", "errors")
    NAME_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    TIMEOUTS_FIELD_NUMBER: _ClassVar[int]
    ILLEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    DISCONNECTS_FIELD_NUMBER: _ClassVar[int]
    FORFEITS_FIELD_NUMBER: _ClassVar[int]
    ERRORS_FIELD_NUMBER: _ClassVar[int]
    name: str
    created_at: float
    matches: int
    timeouts: int
    illegal_actions: int
    disconnects: int
    forfeits: int
    errors: int
    def __init__(self, name: _Optional[str] = ..., created_at: _Optional[float] = ..., matches: _Optional[int] = ..., timeouts: _Optional[int] = ..., illegal_actions: _Optional[int] = ..., disconnects: _Optional[int] = ..., forfeits: _Optional[int] = ..., errors: _Optional[int] = ...) -> None: ...

class ListBotsResponse(_message.Message):
    __slots__ = ("bots",)
    BOTS_FIELD_NUMBER: _ClassVar[int]
    bots: _containers.RepeatedCompositeFieldContainer[BotInfo]
    def __init__(self, bots: _Optional[_Iterable[_Union[BotInfo, _Mapping]]] = ...) -> None: ...
