"""cardarena_dashboard: the Flask dashboard and REST API (read-mostly views of Redis).

``create_app(test_config=None)`` builds the app; ``cardarena dashboard`` serves it.
"""

from .app import create_app

__all__ = ["create_app"]
