"""cardarena: a service where bots compete at card games."""

__version__ = "0.1.0"
