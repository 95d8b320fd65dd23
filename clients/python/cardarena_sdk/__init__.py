"""cardarena_sdk: write a bot for cardarena by overriding one method.

```python
from cardarena_sdk import Bot, LegalAction, run

class MyBot(Bot):
    def choose(self, view: dict, legal: list[LegalAction]) -> str:
        return legal[0].id


if __name__ == "__main__":  # not when cardarena match / bot run import the file
    run(MyBot(), "127.0.0.1:50051", token="...")  # tls=True / ca_cert="ca.pem" for a TLS service
    # or, without a server: cardarena_sdk.local.play(MyBot(), "glaves", 3)
```

``view`` is the seat's view as a dict with exactly the keys of the game's ``view_json``;
``legal`` lists the legal actions with their payload.  Optional hooks: ``on_rejected`` (an
illegal answer), ``on_event`` (each action), ``on_match_end`` and ``on_result`` (a match's end;
``on_result`` gets a :class:`MatchResult` saying which seats were the bot's and its ``place``,
1 = first).  The client handles the stream, the token, reconnects with exponential back-off and
plays many matches at once.  A ``choose`` that raises is logged with its traceback and its
request handed back: the server plays a default action at once (a fault ``error``, a strike)
instead of waiting for the clock.  Why did it play that?  ``cardarena replay FILE --seat N --bot
my_bot.py`` asks it again at each of its decisions in a recorded match (:mod:`cardarena_sdk.replay`).

A bot file must do nothing but define its bot when imported: ``cardarena match``,
``cardarena bot run`` and ``tournament run`` import it (to check it, then in each bot process),
so code that runs something (``run``, ``local.play``) goes under ``if __name__ == "__main__":``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .bot import Bot, HeuristicBot, LegalAction, MatchResult, RandomBot, builtin_bot, check_bot_spec, load_bot
    from .client import run, run_async

__all__ = [
    "Bot",
    "HeuristicBot",
    "LegalAction",
    "MatchResult",
    "RandomBot",
    "builtin_bot",
    "check_bot_spec",
    "load_bot",
    "run",
    "run_async",
]

_CLIENT = ("run", "run_async")
"""The public names of :mod:`.client`; the others are :mod:`.bot`'s.  Each is imported when it is
first used, so that ``import cardarena_sdk`` (and the ``cardarena`` command's parser, which reads
:mod:`.arguments`) loads neither gRPC nor the engine before a bot or the client is needed."""


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = importlib.import_module(f"{__name__}.{'client' if name in _CLIENT else 'bot'}")
    value = getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
