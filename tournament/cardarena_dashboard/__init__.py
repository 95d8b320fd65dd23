"""cardarena_dashboard: the Flask dashboard and REST API (read-mostly views of Redis).

``create_app(test_config=None)`` builds the app; ``cardarena dashboard`` serves it.  Flask is
imported when ``create_app`` is first used, not with the package: the ``cardarena`` command's
parser reads the dashboard's arguments (:mod:`.arguments`) without loading the app.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .app import create_app

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    if name != "create_app":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from .app import create_app

    return create_app
