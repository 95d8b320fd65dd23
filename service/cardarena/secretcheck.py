"""What a process says when it starts about how its secrets are kept: an admin token short
enough to guess, a private key file other users may read.  Warnings, never refusals (as ssh
warns about a key file others can read): the caller prints each line on stderr, once, at start.

``cardarena service``, ``dashboard`` and ``up`` check ``CARDARENA_ADMIN_TOKEN`` and
``--tls-key``; ``bot run`` its ``--client-key``.  No IO but ``stat``.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping

MIN_ADMIN_TOKEN = 16
"""Shortest admin token that is not warned about."""


def admin_token_warning(token: str | None) -> str | None:
    """The warning for an admin token shorter than :data:`MIN_ADMIN_TOKEN` characters, or
    ``None`` (an unset or empty token closes the admin API: nothing to guess)."""
    if not token or len(token) >= MIN_ADMIN_TOKEN:
        return None
    return (
        f"cardarena: warning: CARDARENA_ADMIN_TOKEN has {len(token)} characters: a token that short can be "
        f"guessed, and it registers bots and creates tournaments; use at least {MIN_ADMIN_TOKEN} random ones, "
        "e.g. python3 -c 'import secrets; print(secrets.token_urlsafe(32))'"
    )


def key_file_warning(path: str | None, flag: str) -> str | None:
    """The warning for a private key file (given as ``flag``) that other users may read, or
    ``None``: fine, not given, or unreadable (the PEM checks report that).

    As ssh judges a key file: one of ours must be ours alone (``mode & 0o077`` clear).  One that
    another user owns may be shared with a group, which is how a service user is often given
    it (Debian's ``root:ssl-cert`` ``0640``, a Kubernetes secret volume with an ``fsGroup``),
    but not with everyone (``mode & 0o007`` clear)."""
    if not path:
        return None
    try:
        found = os.stat(path)
    except OSError:
        return None
    mode, ours = stat.S_IMODE(found.st_mode), found.st_uid == os.getuid()
    if not mode & (0o077 if ours else 0o007):
        return None
    fix = f"chmod 600 {path}" if ours else f"chmod o-rwx {path}"
    return (
        f"cardarena: warning: {flag} {path} is open to {'users other than its owner' if ours else 'every user'} "
        f"(mode {mode:04o}): whoever reads the private key can use its certificate; {fix}"
    )


def start_warnings(key_file: str | None, environ: Mapping[str, str] = os.environ) -> list[str]:
    """The warnings of a server that reads ``CARDARENA_ADMIN_TOKEN`` from ``environ`` and
    serves TLS with the private key ``key_file`` (``--tls-key``; ``None``: no TLS)."""
    found = (admin_token_warning(environ.get("CARDARENA_ADMIN_TOKEN")), key_file_warning(key_file, "--tls-key"))
    return [w for w in found if w]
