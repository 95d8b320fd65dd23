"""The games.  Each module defines ``GAME``, an instance of :class:`cardarena.engine.Game`;
the registry discovers them, so adding a game is adding a module here."""
