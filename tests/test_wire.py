"""The wire format: generated code is fresh, and views round-trip for every registered game."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from cardarena.engine import MatchRng, games
from cardarena.wire import codec, generate
from google.protobuf import json_format

from .conftest import game_seatings


def test_generated_code_is_not_stale(tmp_path: Path) -> None:
    written = generate.generate(tmp_path)
    stale = []
    for path in written:
        rel = path.relative_to(tmp_path)
        committed = (
            generate.PROTO_DIR.joinpath(*rel.parts[1:])
            if rel.parts[0] == "proto"
            else generate.WIRE_DIR.joinpath(*rel.parts[1:])
        )
        if not committed.exists() or committed.read_bytes() != path.read_bytes():
            stale.append(str(committed))
    committed_code = {p.name for p in (generate.WIRE_DIR / "v1").iterdir() if p.suffix in (".py", ".pyi")}
    fresh = {p.name for p in (tmp_path / "wire" / "v1").iterdir()}
    stale += sorted(committed_code - fresh)
    assert not stale, f"run `python -m cardarena.wire.generate`: stale {stale}"


def check_request_bytes(game_id: str, seat: int, view_json: dict[str, Any], legal: tuple[str, ...], n: int) -> None:
    """The service's ActionRequest built as bytes is, byte for byte, the message built field
    by field (as the service built it before), and parses back to it."""
    pb = codec.arena_pb2
    game = games()[game_id]
    match_id, seq, move_ms, bank_ms = f"t:{game_id}:{n}", n + 1, 1000 * (n % 3), 7 * n
    built = pb.ActionRequest(match_id=match_id, seq=seq, seat=seat, move_ms_left=move_ms, bank_ms_left=bank_ms)
    codec.encode_view_into(built.view, game_id, view_json)
    built.legal.extend(codec.encode_legal(game, legal))
    request = codec.action_request_bytes(
        match_id, seq, seat, codec.view_bytes(game_id, view_json), codec.legal_bytes(game, legal), move_ms, bank_ms
    )
    assert request == built.SerializeToString()
    assert pb.ActionRequest.FromString(request) == built
    assert pb.ServerMessage.FromString(codec.server_message_bytes(request)) == pb.ServerMessage(action_request=built)


def test_server_messages_coalesce_as_bytes_into_one_batch() -> None:
    """The outbox holds messages and serialized requests side by side; several queued ones
    leave as the bytes of one ServerMessage batch, equal to the batch built as a message; one
    alone leaves as it is; the end marker is taken and reported."""
    import asyncio

    pb = codec.arena_pb2
    event = pb.ServerMessage(event=pb.Event(match_id="m", seat=1, action="play:5D"))
    request = pb.ActionRequest(match_id="m", seq=3, seat=1, move_ms_left=900)
    request.legal.add(id="play:5D", kind="play", label="5D")
    raw = codec.server_message_bytes(request.SerializeToString())
    queue: asyncio.Queue[Any] = asyncio.Queue()
    assert codec.coalesce_wire(raw, queue) == (raw, False)
    queue.put_nowait(raw)
    queue.put_nowait(None)
    out, ended = codec.coalesce_wire(event, queue)
    assert ended and isinstance(out, bytes)
    expected = pb.ServerMessage()
    expected.batch.messages.extend([event, pb.ServerMessage(action_request=request)])
    assert out == expected.SerializeToString() and pb.ServerMessage.FromString(out) == expected
    assert codec.serialize_server_message(event) == event.SerializeToString()
    assert codec.serialize_server_message(raw) is raw
    for value in (0, 1, 127, 128, 300, 2**31 - 1, 2**40, -1, -(2**31)):  # as protobuf writes int64
        assert pb.ActionRequest.FromString(codec.action_request_bytes("m", value, 0, b"", b"", 0, 0)).seq == value


def misfit(game_id: str, view_json: dict[str, Any]) -> str:
    """Why ``view_json`` does not fit the game's typed view message (the codec then sends it
    as ``generic``): the parse error, naming the field, and what to fix."""
    message = type(getattr(codec.View(), game_id))()
    try:
        json_format.ParseDict(view_json, message)
    except json_format.ParseError as exc:
        return (
            f"{game_id}'s view does not fit {message.DESCRIPTOR.name} ({exc}): make the message's fields "
            f"match view_json (docs/engine.md, Adding a game), then run python -m cardarena.wire.generate"
        )
    return f"{game_id}'s view fits {message.DESCRIPTOR.name}, but an earlier one did not (logged above)"


@pytest.mark.parametrize(("game_id", "players"), list(game_seatings()))
def test_views_round_trip(game_id: str, players: int) -> None:
    game = games()[game_id]
    one_deal = {"deals": 1} if "deals" in game.option_defaults(players) else None
    state = game.new_state(players, one_deal)
    rng, pick = MatchRng(7), random.Random(7)
    steps = 0
    while not state.is_terminal() and steps < 5000:  # a whole match: every phase's views
        if state.is_chance():
            state.apply_chance(state.sample_chance(rng))
            continue
        for seat in state.to_act():
            view_json = state.view_json(seat)
            wire = codec.encode_view(game_id, view_json)
            expected = "generic" if game_id not in codec.typed_games() else game_id
            assert wire.WhichOneof("view") == expected, misfit(game_id, view_json)
            assert codec.decode_view(type(wire).FromString(wire.SerializeToString())) == view_json
            if expected != "generic":  # the constructor (the fast path) takes every real view,
                # and sets exactly what ParseDict sets
                message_type = type(getattr(wire, game_id))
                fast, slow = message_type(**view_json), message_type()
                json_format.ParseDict(view_json, slow)
                assert fast.SerializeToString(deterministic=True) == slow.SerializeToString(deterministic=True)
                assert getattr(wire, game_id).SerializeToString(deterministic=True) == fast.SerializeToString(
                    deterministic=True
                )
            check_request_bytes(game_id, seat, view_json, state.legal_actions(seat), steps)
            state.apply(seat, pick.choice(state.legal_actions(seat)))
        steps += 1
    assert state.is_terminal()
    for seat in [None, *range(players)]:  # and the final views
        assert codec.decode_view(codec.encode_view(game_id, state.view_json(seat))) == state.view_json(seat)


def test_a_view_the_constructor_refuses_is_encoded_as_parse_dict_does() -> None:
    game_id = "german_whist"
    state = games()[game_id].new_state(2)
    state.apply_chance(state.sample_chance(MatchRng(3)))
    view_json = dict(state.view_json(0))
    odd = {**view_json, "players": 2.0, "dealNumber": view_json.pop("deal_number")}  # ParseDict: fine
    expected = type(getattr(codec.encode_view(game_id, view_json), game_id))()
    json_format.ParseDict(odd, expected)
    wire = codec.encode_view(game_id, odd)
    assert getattr(wire, game_id) == expected
    assert codec.decode_view(wire)["players"] == 2 and codec.decode_view(wire)["deal_number"] == odd["dealNumber"]


def test_generic_view_round_trips_json() -> None:
    view = {"game": "x", "seat": None, "players": 2, "to_act": [0, 1], "seats": [{"seat": 0, "score": 1.5}]}
    assert codec.decode_view(codec.encode_view("no_such_game", view)) == view


def test_legal_actions_carry_the_typed_payload() -> None:
    game = next(iter(games().values()))
    state = game.new_state(game.min_players)
    state.apply_chance(state.sample_chance(MatchRng(1)))
    seat = state.to_act()[0]
    legal = state.legal_actions(seat)
    back = codec.decode_legal(codec.encode_legal(game, legal))
    assert back == [game.describe(a) for a in legal]


def test_options_round_trip() -> None:
    assert codec.decode_options(codec.encode_options({"deals": 3, "target": None})) == {"deals": 3, "target": None}
    with pytest.raises(ValueError):
        codec.decode_options("[1]")


def test_a_view_of_a_game_unknown_to_this_generated_code_is_an_error_not_an_empty_view() -> None:
    """A newer server's typed view (a ``View`` member added after this client was generated)
    arrives as an unknown field: decoding says so instead of handing the bot ``{}``."""
    newer = b"\xfa\x3e\x02\x0a\x00"  # field 1007 (length-delimited): a View member unknown here
    view = codec.View.FromString(newer)
    with pytest.raises(codec.UnknownView, match="upgrade cardarena_sdk"):
        codec.decode_view(view)
    assert codec.decode_view(codec.View()) == {}


def test_a_game_from_another_package_never_borrows_a_built_in_view_message(monkeypatch: pytest.MonkeyPatch) -> None:
    """A built-in game without a ``view_<id>.proto`` shares a message named like its Python view
    class (``TrickView``); a game from another package whose view class merely has that name
    holds other fields, so it stays generic unless it brings its own file."""
    import types

    import cardarena.engine

    class TrickView:  # a designer's own class, named like ours
        pass

    class PluginState:
        def view(self, seat: int | None) -> TrickView:
            return TrickView()

    PluginState.view.__annotations__ = {"seat": "int | None", "return": TrickView}
    assert PluginState.__module__ == __name__  # not under cardarena.games
    plugin = types.SimpleNamespace(min_players=2, new_state=lambda players, options=None: PluginState())
    real = cardarena.engine.games()
    monkeypatch.setattr(cardarena.engine, "games", lambda: {**real, "plugin_tricks": plugin})
    found = generate.view_messages()
    assert "plugin_tricks" not in found
    assert found["german_whist"] == ("TrickView", "view_trick.proto")  # a built-in one still shares it
