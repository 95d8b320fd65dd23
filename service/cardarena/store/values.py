"""Values the stored records may take, as plain constants: no Redis, so that an argument parser
(``cardarena tournament list --status``, ``match --move-ms``) has them without loading a store."""

from __future__ import annotations

MAX_MS = 2**31 - 1
"""Longest clock, in milliseconds (about 24.8 days): clocks reach the bots as 32-bit numbers
(``TimeControl``, ``ActionRequest.move_ms_left`` ...), so a longer one could not be sent."""

STATUSES = ("upcoming", "running", "finished", "cancelled")
"""Every tournament status."""
