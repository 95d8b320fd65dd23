"""cardarena_tournament: tournaments on Celery and Redis (formats, schedules, standings, ratings)."""
