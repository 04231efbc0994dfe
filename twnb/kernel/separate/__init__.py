"""A separate kernel over jupyter_client: `KernelExecutor`, the runtime guard's channel into it, requests
that leave no trace, its filesystem, a kernel someone else started, a kernel of this very Python."""
