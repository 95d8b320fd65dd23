"""The one place where wire types (generated protobuf) and domain types meet.

* Views: ``view_json`` dict <-> :class:`View`.  A game with a typed view message (a field
  named after the game id in ``View.view``) is encoded into that message as
  ``json_format.ParseDict`` would (see :func:`encode_view_into`); any other game (or a view
  that does not fit its message) goes as a ``google.protobuf.Struct`` in ``generic``.  Decoding gives back a dict with exactly the keys
  of ``view_json``: unset optional fields become ``None``, and numbers that are whole are
  returned as ``int`` (proto ``double`` and ``Struct`` numbers carry no int/float distinction).
* Legal actions: ``Game.describe`` (:class:`~cardarena.engine.ActionInfo`) <-> ``LegalAction``.
* Match options: dict <-> JSON text.
"""

from __future__ import annotations

import importlib
import json
import logging
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor

from ..engine import ActionInfo, Game

if TYPE_CHECKING:
    import asyncio

# Loaded dynamically: the generated modules are not type-checked (their stubs are not strict).
arena_pb2: Any = importlib.import_module("cardarena.wire.v1.arena_pb2")
"""Generated messages of ``arena.proto``."""
arena_pb2_grpc: Any = importlib.import_module("cardarena.wire.v1.arena_pb2_grpc")
"""Generated service stubs and servicers of ``arena.proto``."""
views_pb2: Any = importlib.import_module("cardarena.wire.v1.views_pb2")

log = logging.getLogger(__name__)

View: Any = views_pb2.View
"""The wire message of one seat's view."""

_ONEOF = View.DESCRIPTOR.oneofs_by_name["view"]
_TYPED: dict[str, Any] = {f.name: f for f in _ONEOF.fields if f.name != "generic"}
_MISFITS: set[str] = set()


def typed_games() -> frozenset[str]:
    """Game ids whose views travel as a typed message."""
    return frozenset(_TYPED)


def _whole(value: float) -> int | float:
    return int(value) if value.is_integer() and abs(value) < 2**53 else value


MAX_BATCH = 64
"""Most messages coalesced into one ``ServerBatch`` or ``BotBatch``."""


def _gather(first: Any, queue: asyncio.Queue[Any], limit: int) -> tuple[list[Any], bool]:
    """``first`` and what is queued behind it (up to ``limit`` in all), and whether the
    end-of-stream marker (``None``) was taken from the queue.  Nothing waits."""
    items = [first]
    while len(items) < limit and not queue.empty():
        message = queue.get_nowait()
        if message is None:
            return items, True
        items.append(message)
    return items, False


def coalesce(first: Any, queue: asyncio.Queue[Any], limit: int = MAX_BATCH) -> tuple[Any, bool]:
    """``first`` and the messages queued behind it (up to ``limit``) as one message of its type
    (``ServerMessage`` or ``BotMessage``, whose ``batch`` holds messages of the same type), or
    ``first`` itself when nothing is queued; and whether the end-of-stream marker (``None``)
    was taken from the queue.  Nothing waits: only what is queued already is coalesced."""
    if queue.empty():
        return first, False
    items, ended = _gather(first, queue, limit)
    if len(items) == 1:
        return first, ended
    batch = type(first)()
    batch.batch.messages.extend(items)
    return batch, ended


def coalesce_wire(first: Any, queue: asyncio.Queue[Any], limit: int = MAX_BATCH) -> tuple[Any, bool]:
    """Like :func:`coalesce` for the server's outbox, whose items are ``ServerMessage`` messages or
    their serialized bytes (:func:`server_message_bytes`): several come back as the bytes of
    one ``ServerMessage`` holding them in ``batch`` (framed, not copied), which the ``Play``
    handler's serializer (:func:`serialize_server_message`) passes through."""
    if queue.empty():
        return first, False
    items, ended = _gather(first, queue, limit)
    if len(items) == 1:
        return first, ended
    inner = b"".join(_BATCH_ITEM + _len_prefixed(serialize_server_message(m)) for m in items)
    return _SM_BATCH + _len_prefixed(inner), ended


# ---------------------------------------------------------------- server messages as bytes
# The service builds each ActionRequest as its serialized bytes: the view through the protobuf
# runtime (one constructor call, as encode_view_into), the legal actions from per-game cached
# bytes, and the few scalar fields framed here.  Building it as a message instead copies every
# LegalAction and the view into the request and the request into its batch (about a third of a
# move's Python).  Field numbers come from the descriptors; tests/test_wire.py checks the bytes
# against the message-built request on playouts of every game.
def _varint(value: int) -> bytes:
    if value < 0:
        value += 1 << 64  # int32/int64 negatives: ten bytes, as protobuf writes them
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _len_prefixed(data: bytes) -> bytes:
    return _varint(len(data)) + data


def _key(message: Any, name: str) -> bytes:
    field = message.DESCRIPTOR.fields_by_name[name]
    wire = 2 if field.type in (FieldDescriptor.TYPE_MESSAGE, FieldDescriptor.TYPE_STRING) else 0
    if wire == 0 and field.type not in (FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_INT64):
        raise TypeError(f"{message.DESCRIPTOR.name}.{name}: not a field this encoder writes")
    return _varint(field.number << 3 | wire)


_SM = arena_pb2.ServerMessage
_AR = arena_pb2.ActionRequest
_SM_ACTION_REQUEST = _key(_SM, "action_request")
_SM_BATCH = _key(_SM, "batch")
_BATCH_ITEM = _key(arena_pb2.ServerBatch, "messages")
_AR_MATCH_ID, _AR_SEQ, _AR_SEAT = _key(_AR, "match_id"), _key(_AR, "seq"), _key(_AR, "seat")
_AR_VIEW, _AR_LEGAL = _key(_AR, "view"), _key(_AR, "legal")
_AR_MOVE, _AR_BANK = _key(_AR, "move_ms_left"), _key(_AR, "bank_ms_left")
_LEGAL_BYTES: dict[str, dict[str, Any]] = {}


def serialize_server_message(message: Any) -> bytes:
    """The ``Play`` stream's response serializer: a ``ServerMessage``, or bytes already
    serialized (:func:`action_request_bytes`, :func:`coalesce_wire`) as they are."""
    return message if isinstance(message, bytes) else bytes(message.SerializeToString())


def view_bytes(game_id: str, view_json: Mapping[str, Any]) -> bytes:
    """The serialized :class:`View` of ``view_json`` (as :func:`encode_view` builds it)."""
    if game_id in _TYPED and game_id not in _MISFITS:
        try:
            return bytes(View(**{game_id: view_json}).SerializeToString())
        except (TypeError, ValueError):
            pass  # encode_view_into decides (ParseDict, or generic for a misfit)
    return bytes(encode_view(game_id, view_json).SerializeToString())


def legal_bytes(game: Game, actions: Iterable[str]) -> bytes:
    """The ``legal`` field of an ``ActionRequest`` offering ``actions``, serialized (each
    action's bytes cached per game, like :func:`encode_legal`'s messages)."""
    return b"".join(_cached_legal(_LEGAL_BYTES, game, actions, _framed_legal_action))


def _framed_legal_action(game: Game, action: str) -> bytes:
    return _AR_LEGAL + _len_prefixed(_legal_action(game, action).SerializeToString())


def action_request_bytes(
    match_id: str, seq: int, seat: int, view: bytes, legal: bytes, move_ms_left: int, bank_ms_left: int
) -> bytes:
    """A serialized ``ActionRequest`` (``view`` from :func:`view_bytes`, ``legal`` from
    :func:`legal_bytes`); ``ActionRequest.FromString`` gives the message back."""
    parts = [_AR_MATCH_ID, _len_prefixed(match_id.encode())] if match_id else []
    if seq:
        parts += (_AR_SEQ, _varint(seq))
    if seat:
        parts += (_AR_SEAT, _varint(seat))
    parts += (_AR_VIEW, _len_prefixed(view), legal)
    if move_ms_left:
        parts += (_AR_MOVE, _varint(move_ms_left))
    if bank_ms_left:
        parts += (_AR_BANK, _varint(bank_ms_left))
    return b"".join(parts)


def server_message_bytes(action_request: bytes) -> bytes:
    """The serialized ``ServerMessage`` carrying the serialized ``ActionRequest``."""
    return _SM_ACTION_REQUEST + _len_prefixed(action_request)


def encode_view(game_id: str, view_json: Mapping[str, Any]) -> Any:
    """``view_json`` as a :class:`View` (typed if the game has a view message, else generic)."""
    view = View()
    encode_view_into(view, game_id, view_json)
    return view


def encode_view_into(view: Any, game_id: str, view_json: Mapping[str, Any]) -> None:
    """Like :func:`encode_view`, into an empty :class:`View` (e.g. ``ActionRequest.view``).

    A typed view is built by its message's constructor from the dict (nested dicts and lists
    included: the protobuf runtime sets every field in C, the hot path of every request).  The
    constructor takes proto field names and exact types only and raises on anything else (a
    float in an integer field, a ``json_name``, an unknown key); then ``json_format.ParseDict``
    decides, so the outcome is ``ParseDict``'s either way (views are JSON: the one thing the
    constructor takes that ``ParseDict`` refuses, ``bytes`` for a string, is not in a view).
    """
    field = _TYPED.get(game_id)
    if field is not None and game_id not in _MISFITS:
        message_type = field.message_type._concrete_class
        try:
            getattr(view, game_id).CopyFrom(message_type(**view_json))
            return
        except (TypeError, ValueError):
            view.Clear()
        message = message_type()
        try:
            json_format.ParseDict(dict(view_json), message)
        except json_format.ParseError as exc:
            # A view that does not fit its message is a bug of that game's proto; keep playing.
            _MISFITS.add(game_id)
            log.error("view of %s does not fit its message (%s); sending it as generic", game_id, exc)
        else:
            getattr(view, game_id).CopyFrom(message)
            return
    view.generic.update(dict(view_json))


def _struct_value(value: Any) -> Any:
    kind = value.WhichOneof("kind")
    if kind == "number_value":
        return _whole(value.number_value)
    if kind == "struct_value":
        return {k: _struct_value(v) for k, v in value.struct_value.fields.items()}
    if kind == "list_value":
        return [_struct_value(v) for v in value.list_value.values]
    if kind == "null_value" or kind is None:
        return None
    return getattr(value, kind)


_Fields = list[tuple[str, bool, int, bool]]
_DICT_PLANS: dict[str, _Fields] = {}
_D_SCALAR, _D_DOUBLE, _D_MESSAGE, _D_STRUCT = range(4)


def _dict_plan(descriptor: Any) -> _Fields:
    """Per field: (name, repeated, kind, has presence), computed once per message type."""
    plan = _DICT_PLANS.get(descriptor.full_name)
    if plan is None:
        plan = []
        for field in descriptor.fields:
            if field.type == FieldDescriptor.TYPE_MESSAGE:
                struct = field.message_type.full_name == "google.protobuf.Struct"
                kind = _D_STRUCT if struct and not field.is_repeated else _D_MESSAGE
            elif field.type in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
                kind = _D_DOUBLE
            else:
                kind = _D_SCALAR
            plan.append((field.name, field.is_repeated, kind, field.has_presence))
        _DICT_PLANS[descriptor.full_name] = plan
    return plan


def _message_dict(message: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, repeated, kind, presence in _dict_plan(message.DESCRIPTOR):
        value = getattr(message, name)
        if repeated:
            if kind == _D_MESSAGE:
                out[name] = [_message_dict(v) for v in value]
            elif kind == _D_DOUBLE:
                out[name] = [_whole(v) for v in value]
            else:
                out[name] = list(value)
        elif kind in (_D_MESSAGE, _D_STRUCT):
            if not message.HasField(name):
                out[name] = None
            elif kind == _D_STRUCT:
                out[name] = {k: _struct_value(v) for k, v in value.fields.items()}
            else:
                out[name] = _message_dict(value)
        elif presence and not message.HasField(name):
            out[name] = None
        else:
            out[name] = _whole(value) if kind == _D_DOUBLE else value
    return out


class UnknownView(ValueError):
    """A :class:`View` whose member this copy of the generated code does not know: the typed
    view of a game added to the server's ``views.proto`` after this client was built."""


def decode_view(view: Any) -> dict[str, Any]:
    """A :class:`View` back to the view JSON dict (the keys of ``State.view_json``); an empty
    ``View`` gives ``{}``, one set to a member unknown here raises :class:`UnknownView`."""
    which = view.WhichOneof("view")
    if which is None:
        if view.ByteSize():  # set, but to a field number this generated code does not define
            raise UnknownView(
                "the view is of a game whose view message this cardarena_sdk does not know "
                "(the server is newer): upgrade cardarena_sdk"
            )
        return {}
    if which == "generic":
        return {k: _struct_value(v) for k, v in view.generic.fields.items()}
    return _message_dict(getattr(view, which))


_LEGAL: dict[str, dict[str, Any]] = {}
_LEGAL_LIMIT = 100_000
"""Cached ``LegalAction`` messages per game (``describe`` is a pure function of the id)."""


def encode_legal(game: Game, actions: Iterable[str]) -> list[Any]:
    """Legal action ids with their typed payload (``Game.describe``).

    The messages are cached per game and shared: callers copy them into a repeated field
    (as the message constructors do) and must not modify them.
    """
    return _cached_legal(_LEGAL, game, actions, _legal_action)


def _cached_legal(
    caches: dict[str, dict[str, Any]], game: Game, actions: Iterable[str], make: Callable[[Game, str], Any]
) -> list[Any]:
    """``make(game, action)`` for each action, cached per game in ``caches``."""
    cache = caches.get(game.id)
    if cache is None or len(cache) > _LEGAL_LIMIT:
        cache = caches[game.id] = {}
    out = []
    for action in actions:
        wire = cache.get(action)
        if wire is None:
            wire = cache[action] = make(game, action)
        out.append(wire)
    return out


def _legal_action(game: Game, action: str) -> Any:
    info = game.describe(action)
    wire = arena_pb2.LegalAction(id=info.id, kind=info.kind, label=info.label, cards=list(info.cards))
    if info.amount is not None:
        wire.amount = info.amount
    if info.target is not None:
        wire.target = info.target
    if info.choice is not None:
        wire.choice = info.choice
    return wire


def decode_legal(legal: Iterable[Any]) -> list[ActionInfo]:
    """``LegalAction`` messages as :class:`~cardarena.engine.ActionInfo`."""
    return [
        ActionInfo(
            id=a.id,
            kind=a.kind,
            label=a.label,
            cards=tuple(a.cards),
            amount=a.amount if a.HasField("amount") else None,
            target=a.target if a.HasField("target") else None,
            choice=a.choice if a.HasField("choice") else None,
        )
        for a in legal
    ]


def encode_options(options: Mapping[str, Any]) -> str:
    """Match options as the JSON text of ``MatchStart.options_json``."""
    return json.dumps(dict(options), sort_keys=True, separators=(",", ":"))


def decode_options(text: str) -> dict[str, Any]:
    """``MatchStart.options_json`` back to a dict (``{}`` when empty)."""
    data = json.loads(text) if text else {}
    if not isinstance(data, dict):
        raise ValueError("options_json must be a JSON object")
    return data


MAX_VERSION_LENGTH = 64
"""Most characters of a bot's version label (``Hello.version``)."""


def version_problem(version: str) -> str | None:
    """Why ``version`` cannot be a bot's version label (``Hello.version``), or ``None``: it has
    at most :data:`MAX_VERSION_LENGTH` characters, all printable (no control characters, tabs
    or line breaks).  The empty label means "no version"."""
    if len(version) > MAX_VERSION_LENGTH:
        return f"version must be at most {MAX_VERSION_LENGTH} characters, not {len(version)}"
    if not version.isprintable():
        return "version must be printable (no control characters, tabs or line breaks)"
    return None
