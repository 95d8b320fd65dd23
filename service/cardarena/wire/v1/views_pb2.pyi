from google.protobuf import struct_pb2 as _struct_pb2
from cardarena.wire.v1 import view_bourre_pb2 as _view_bourre_pb2
from cardarena.wire.v1 import view_coup_pb2 as _view_coup_pb2
from cardarena.wire.v1 import view_emissary_pb2 as _view_emissary_pb2
from cardarena.wire.v1 import view_gleek_pb2 as _view_gleek_pb2
from cardarena.wire.v1 import view_gridcannon_pb2 as _view_gridcannon_pb2
from cardarena.wire.v1 import view_le_truc_pb2 as _view_le_truc_pb2
from cardarena.wire.v1 import view_loot_the_loop_pb2 as _view_loot_the_loop_pb2
from cardarena.wire.v1 import view_nine_card_golf_pb2 as _view_nine_card_golf_pb2
from cardarena.wire.v1 import view_ricochet_poker_pb2 as _view_ricochet_poker_pb2
from cardarena.wire.v1 import view_schnapsen_pb2 as _view_schnapsen_pb2
from cardarena.wire.v1 import view_skull_pb2 as _view_skull_pb2
from cardarena.wire.v1 import view_trick_pb2 as _view_trick_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class View(_message.Message):
    __slots__ = ("generic", "bourre", "german_whist", "glaves", "gridcannon", "knaves", "nine_card_golf", "schnapsen", "skull", "coup", "emissary", "gleek", "le_truc", "loot_the_loop", "ricochet_poker")
    GENERIC_FIELD_NUMBER: _ClassVar[int]
    BOURRE_FIELD_NUMBER: _ClassVar[int]
    GERMAN_WHIST_FIELD_NUMBER: _ClassVar[int]
    GLAVES_FIELD_NUMBER: _ClassVar[int]
    GRIDCANNON_FIELD_NUMBER: _ClassVar[int]
    KNAVES_FIELD_NUMBER: _ClassVar[int]
    NINE_CARD_GOLF_FIELD_NUMBER: _ClassVar[int]
    SCHNAPSEN_FIELD_NUMBER: _ClassVar[int]
    SKULL_FIELD_NUMBER: _ClassVar[int]
    COUP_FIELD_NUMBER: _ClassVar[int]
    EMISSARY_FIELD_NUMBER: _ClassVar[int]
    GLEEK_FIELD_NUMBER: _ClassVar[int]
    LE_TRUC_FIELD_NUMBER: _ClassVar[int]
    LOOT_THE_LOOP_FIELD_NUMBER: _ClassVar[int]
    RICOCHET_POKER_FIELD_NUMBER: _ClassVar[int]
    generic: _struct_pb2.Struct
    bourre: _view_bourre_pb2.BourreView
    german_whist: _view_trick_pb2.TrickView
    glaves: _view_trick_pb2.TrickView
    gridcannon: _view_gridcannon_pb2.GridcannonView
    knaves: _view_trick_pb2.TrickView
    nine_card_golf: _view_nine_card_golf_pb2.NineCardGolfView
    schnapsen: _view_schnapsen_pb2.SchnapsenView
    skull: _view_skull_pb2.SkullView
    coup: _view_coup_pb2.CoupView
    emissary: _view_emissary_pb2.EmissaryView
    gleek: _view_gleek_pb2.GleekView
    le_truc: _view_le_truc_pb2.LeTrucView
    loot_the_loop: _view_loot_the_loop_pb2.LootTheLoopView
    ricochet_poker: _view_ricochet_poker_pb2.RicochetPokerView
    def __init__(self, generic: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., bourre: _Optional[_Union[_view_bourre_pb2.BourreView, _Mapping]] = ..., german_whist: _Optional[_Union[_view_trick_pb2.TrickView, _Mapping]] = ..., glaves: _Optional[_Union[_view_trick_pb2.TrickView, _Mapping]] = ..., gridcannon: _Optional[_Union[_view_gridcannon_pb2.GridcannonView, _Mapping]] = ..., knaves: _Optional[_Union[_view_trick_pb2.TrickView, _Mapping]] = ..., nine_card_golf: _Optional[_Union[_view_nine_card_golf_pb2.NineCardGolfView, _Mapping]] = ..., schnapsen: _Optional[_Union[_view_schnapsen_pb2.SchnapsenView, _Mapping]] = ..., skull: _Optional[_Union[_view_skull_pb2.SkullView, _Mapping]] = ..., coup: _Optional[_Union[_view_coup_pb2.CoupView, _Mapping]] = ..., emissary: _Optional[_Union[_view_emissary_pb2.EmissaryView, _Mapping]] = ..., gleek: _Optional[_Union[_view_gleek_pb2.GleekView, _Mapping]] = ..., le_truc: _Optional[_Union[_view_le_truc_pb2.LeTrucView, _Mapping]] = ..., loot_the_loop: _Optional[_Union[_view_loot_the_loop_pb2.LootTheLoopView, _Mapping]] = ..., ricochet_poker: _Optional[_Union[_view_ricochet_poker_pb2.RicochetPokerView, _Mapping]] = ...) -> None: ...
