"""base layer: general helpers every layer may use, below the data model (docs/architecture.md, "Layers").

Logging through one scrubbing filter, twnb's one clock (UTC), ids as TaskWeaver makes them, the one way
text is clipped, the module names installed libraries declare they import (the runtime guard and the
confined kernel's warden judge a planted module by them), pausing the garbage collector while a large
conversation is built, and the lazy front door of the layers whose import time matters. Only the
standard library is imported, and lazily: `%load_ext twnb` uses the front door alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from twnb.base.front_door import lazy_front_door as lazy_front_door

if TYPE_CHECKING:
    from twnb.base.clipping import BoundedText as BoundedText
    from twnb.base.clipping import clip as clip
    from twnb.base.clipping import omission_note as omission_note
    from twnb.base.clock import now_compact as now_compact
    from twnb.base.clock import now_iso as now_iso
    from twnb.base.clock import now_iso_precise as now_iso_precise
    from twnb.base.declared_imports import DeclaredImports as DeclaredImports
    from twnb.base.declared_imports import importers_said as importers_said
    from twnb.base.gc_pause import gc_paused as gc_paused
    from twnb.base.ids import create_id as create_id
    from twnb.base.ids import is_plain_id as is_plain_id
    from twnb.base.ids import loaded_id as loaded_id
    from twnb.base.lexical_rank import BM25Index as BM25Index
    from twnb.base.lexical_rank import bm25_scores as bm25_scores
    from twnb.base.lexical_rank import words as words
    from twnb.base.logs import ScrubbingFilter as ScrubbingFilter
    from twnb.base.logs import every_record_scrubbed as every_record_scrubbed
    from twnb.base.logs import get_logger as get_logger
    from twnb.base.logs import scrub_record as scrub_record
    from twnb.base.logs import set_log_scrubber as set_log_scrubber
else:
    __getattr__, __dir__ = lazy_front_door(__name__, __file__)
