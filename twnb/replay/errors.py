"""The one error replay raises for bad input: its text is one line saying what went wrong and what to do."""


class ReplayError(ValueError):
    """A file that is not a notebook, a notebook without a twnb conversation, an output folder that
    cannot be written. A ValueError, as the conversation reader's own errors are."""
