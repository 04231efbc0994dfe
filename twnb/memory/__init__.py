"""twnb's data model: TaskWeaver's conversation model, its YAML format, the plan model and the events
every layer above reports through (docs/architecture.md: "Layers", contracts 1 and 2).

Only the standard library and pyyaml are imported here, so `import twnb.memory` stays cheap.
"""

from twnb.memory.attachment import DEPRECATED_TYPES, Attachment, AttachmentType
from twnb.memory.conversation import Conversation
from twnb.memory.conversation_file import conversation_dict, load_conversation, save_conversation
from twnb.memory.events import (
    AttachmentDelta,
    Event,
    MessageDelta,
    NullObserver,
    Observer,
    ObserverGroup,
    PostCommitted,
    PostRetry,
    PostStarted,
    RoundEnded,
    RoundFailed,
    RoundStarted,
    StatusChanged,
    UsageReported,
)
from twnb.memory.extras import (
    EXECUTION_RECORD_KEYS,
    POST_EXTRA_KEYS,
    REPLAY_RECORD_KEYS,
    ROUND_EXTRA_KEYS,
    USER_CELL_KEYS,
    DroppedAttempt,
    ExecutionRecord,
    PostExtra,
    ReplayRecord,
    RoundExtra,
    TimingRecord,
    UsageRecord,
    UserCellRecord,
    add_usage,
)
from twnb.memory.ids import create_id
from twnb.memory.memory import Memory
from twnb.memory.plan import Plan, SubTask, TaskState
from twnb.memory.plan_derivation import derive_plan, moves_the_plan, round_plan
from twnb.memory.plugin import PluginEntry
from twnb.memory.post import Post, RoleName
from twnb.memory.prompt_util import PromptUtil
from twnb.memory.reading import ConversationFormatError, Location
from twnb.memory.round import Round, RoundState
from twnb.memory.shared_memory_entry import SharedMemoryEntry, SharedMemoryEntryScope, SharedMemoryEntryType
from twnb.memory.yaml_io import (
    dump_yaml,
    load_yaml_documents,
    load_yaml_file,
    load_yaml_text,
    save_yaml_file,
    write_text_atomic,
)

__all__ = [
    "DEPRECATED_TYPES",
    "EXECUTION_RECORD_KEYS",
    "POST_EXTRA_KEYS",
    "REPLAY_RECORD_KEYS",
    "ROUND_EXTRA_KEYS",
    "USER_CELL_KEYS",
    "Attachment",
    "AttachmentDelta",
    "AttachmentType",
    "Conversation",
    "ConversationFormatError",
    "DroppedAttempt",
    "Event",
    "ExecutionRecord",
    "Location",
    "Memory",
    "MessageDelta",
    "NullObserver",
    "Observer",
    "ObserverGroup",
    "Plan",
    "PluginEntry",
    "Post",
    "PostCommitted",
    "PostExtra",
    "PostRetry",
    "PostStarted",
    "PromptUtil",
    "ReplayRecord",
    "RoleName",
    "Round",
    "RoundEnded",
    "RoundExtra",
    "RoundFailed",
    "RoundStarted",
    "RoundState",
    "SharedMemoryEntry",
    "SharedMemoryEntryScope",
    "SharedMemoryEntryType",
    "StatusChanged",
    "SubTask",
    "TaskState",
    "TimingRecord",
    "UsageRecord",
    "UsageReported",
    "UserCellRecord",
    "add_usage",
    "conversation_dict",
    "create_id",
    "derive_plan",
    "dump_yaml",
    "load_conversation",
    "load_yaml_documents",
    "load_yaml_file",
    "load_yaml_text",
    "moves_the_plan",
    "round_plan",
    "save_conversation",
    "save_yaml_file",
    "write_text_atomic",
]
