"""llm layer: messages, the streaming client and its wrappers, usage, errors (docs/architecture.md,
"Layers"). `__all__` is the layer's public API. Importing it is cheap: the openai SDK is imported only
when a client is built.
"""

from twnb.llm.chat_client import ChatClient, ReplyStream
from twnb.llm.client import OpenAIChatClient, make_client
from twnb.llm.errors import (
    LLMAuthError,
    LLMBadRequestError,
    LLMConnectionError,
    LLMError,
    LLMMalformedStreamError,
    LLMNotFoundError,
    LLMRateLimitError,
    LLMServerError,
    LLMStreamDropped,
    LLMTimeoutError,
)
from twnb.llm.messages import Msg, msg_to_post, post_to_msg, to_openai_messages
from twnb.llm.stream import ChatReply, ChatStream
from twnb.llm.usage import Usage

__all__ = [
    "ChatClient",
    "ChatReply",
    "ChatStream",
    "LLMAuthError",
    "LLMBadRequestError",
    "LLMConnectionError",
    "LLMError",
    "LLMMalformedStreamError",
    "LLMNotFoundError",
    "LLMRateLimitError",
    "LLMServerError",
    "LLMStreamDropped",
    "LLMTimeoutError",
    "Msg",
    "OpenAIChatClient",
    "ReplyStream",
    "Usage",
    "make_client",
    "msg_to_post",
    "post_to_msg",
    "to_openai_messages",
]
