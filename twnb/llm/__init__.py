"""llm layer: messages, the streaming client and its wrappers, usage, errors (docs/architecture.md,
"Layers"). `__all__` is the layer's public API. Importing it is cheap: the openai SDK is imported only
when a client is built.
"""

from twnb.llm.cassette import CassetteError, ReplayClient, cassette_path_for, load_cassette
from twnb.llm.chat_client import ChatClient, ReplyStream
from twnb.llm.client import OpenAIChatClient, make_client
from twnb.llm.client_limits import ClientLimits
from twnb.llm.context_error import context_hint
from twnb.llm.context_window import ContextWindows, PromptBudget
from twnb.llm.errors import (
    LLMAuthError,
    LLMBadRequestError,
    LLMConnectionError,
    LLMContextExceeded,
    LLMError,
    LLMMalformedStreamError,
    LLMNotFoundError,
    LLMRateLimitError,
    LLMServerError,
    LLMStreamDropped,
    LLMTimeoutError,
)
from twnb.llm.messages import (
    ContentBlock,
    Msg,
    TextBlock,
    ThinkingBlock,
    msg_to_post,
    post_to_msg,
    to_openai_messages,
)
from twnb.llm.observed_client import provider_name
from twnb.llm.response_format import json_object_format, json_schema_format
from twnb.llm.session_client import context_windows, session_chat_client
from twnb.llm.stream import ChatReply, ChatStream, collect_reply
from twnb.llm.usage import Usage, estimate_tokens, messages_text

__all__ = [
    "CassetteError",
    "ChatClient",
    "ChatReply",
    "ChatStream",
    "ClientLimits",
    "ContentBlock",
    "ContextWindows",
    "LLMAuthError",
    "LLMBadRequestError",
    "LLMConnectionError",
    "LLMContextExceeded",
    "LLMError",
    "LLMMalformedStreamError",
    "LLMNotFoundError",
    "LLMRateLimitError",
    "LLMServerError",
    "LLMStreamDropped",
    "LLMTimeoutError",
    "Msg",
    "OpenAIChatClient",
    "PromptBudget",
    "ReplayClient",
    "ReplyStream",
    "TextBlock",
    "ThinkingBlock",
    "Usage",
    "cassette_path_for",
    "collect_reply",
    "context_hint",
    "context_windows",
    "estimate_tokens",
    "json_object_format",
    "json_schema_format",
    "load_cassette",
    "make_client",
    "messages_text",
    "msg_to_post",
    "post_to_msg",
    "provider_name",
    "session_chat_client",
    "to_openai_messages",
]
