"""Crazy Eights, a game for cardarena in a distribution of its own.

cardarena finds it through the entry point ``crazy_eights = crazy_eights.game:GAME`` of the
``cardarena.games`` group (``pyproject.toml``); the rules are in :mod:`crazy_eights.game`.
"""
