"""The namespace: the variables a run changed, the summary a prompt reads (secrets screened out, lazy
frames never computed), the data libraries this kernel has, and the user's own cells."""

from __future__ import annotations

from typing import TYPE_CHECKING

from twnb.base import lazy_front_door

if TYPE_CHECKING:
    from twnb.kernel.namespace.data_libraries import BIG_DATA_LIBRARIES as BIG_DATA_LIBRARIES
    from twnb.kernel.namespace.namespace_summary import summarize_namespace as summarize_namespace
    from twnb.kernel.namespace.user_cells import UserCell as UserCell
    from twnb.kernel.namespace.user_cells import UserCellLog as UserCellLog
    from twnb.kernel.namespace.user_cells import UserCells as UserCells
    from twnb.kernel.namespace.user_cells import UserCellSource as UserCellSource
    from twnb.kernel.namespace.user_cells import is_twnb_command as is_twnb_command
    from twnb.kernel.namespace.variables import IPYTHON_NAMES as IPYTHON_NAMES
    from twnb.kernel.namespace.variables import Signature as Signature
    from twnb.kernel.namespace.variables import namespace_signatures as namespace_signatures
    from twnb.kernel.namespace.variables import namespace_signatures_source as namespace_signatures_source
    from twnb.kernel.namespace.variables import variable_delta as variable_delta
else:
    __getattr__, __dir__ = lazy_front_door(__name__, __file__)
