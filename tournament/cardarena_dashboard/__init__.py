"""cardarena_dashboard: the Flask dashboard and REST API (read-mostly views of Redis)."""
