"""The wire format: code generated from ``proto/cardarena/v1`` (in :mod:`.v1`) and the codec.

:mod:`cardarena.wire.codec` is the only place where wire types and domain types meet.
Regenerate with ``python -m cardarena.wire.generate`` (a test fails when it is stale).
"""
