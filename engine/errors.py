"""The engine's errors: each a ``ValueError`` with a message fit to show a person."""


class KalimamboError(ValueError):
    """Base of every error the engine raises for bad input."""


class SetupError(KalimamboError):
    """A set-up, player list or track length breaks the rules."""


class RecordError(KalimamboError):
    """A game record breaks RECORD.md; the message names the key and the reason."""


class PlayError(KalimamboError):
    """A move that the rules do not allow now: a card not in hand, a round too many.

    ``code`` is a short machine name for the API (``card_not_in_hand``...).
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
