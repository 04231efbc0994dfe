"""base layer: general helpers every layer may use, below the data model (docs/architecture.md, "Layers").

Logging through one scrubbing filter, twnb's one clock (UTC), ids as TaskWeaver makes them, the one way
text is clipped, pausing the garbage collector while a large conversation is built, and the lazy front
door of the layers whose import time matters. Only the standard library is imported, and lazily:
`%load_ext twnb` uses the front door alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from twnb.base.front_door import lazy_exports

if TYPE_CHECKING:
    from twnb.base.clipping import BoundedText, clip, omission_note
    from twnb.base.clock import now_compact, now_iso, now_iso_precise
    from twnb.base.gc_pause import gc_paused
    from twnb.base.ids import create_id, is_plain_id, loaded_id
    from twnb.base.lexical_rank import BM25Index, bm25_scores, words
    from twnb.base.logs import (
        ScrubbingFilter,
        every_record_scrubbed,
        get_logger,
        scrub_record,
        set_log_scrubber,
    )

__all__ = [
    "BM25Index",
    "BoundedText",
    "ScrubbingFilter",
    "bm25_scores",
    "clip",
    "create_id",
    "every_record_scrubbed",
    "gc_paused",
    "get_logger",
    "is_plain_id",
    "lazy_exports",
    "loaded_id",
    "now_compact",
    "now_iso",
    "now_iso_precise",
    "omission_note",
    "scrub_record",
    "set_log_scrubber",
    "words",
]

if not TYPE_CHECKING:  # the type checker reads the imports above, and a name not there is an error
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "BoundedText": "clipping",
            "clip": "clipping",
            "omission_note": "clipping",
            "now_compact": "clock",
            "now_iso": "clock",
            "now_iso_precise": "clock",
            "gc_paused": "gc_pause",
            "create_id": "ids",
            "loaded_id": "ids",
            "is_plain_id": "ids",
            "BM25Index": "lexical_rank",
            "bm25_scores": "lexical_rank",
            "words": "lexical_rank",
            "ScrubbingFilter": "logs",
            "every_record_scrubbed": "logs",
            "get_logger": "logs",
            "scrub_record": "logs",
            "set_log_scrubber": "logs",
        },
    )
