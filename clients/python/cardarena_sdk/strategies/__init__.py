"""Example strategies, one module per game: ``choose(view, legal, rng) -> action``."""
