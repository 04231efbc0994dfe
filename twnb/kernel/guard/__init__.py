"""The runtime guard: what generated code may not do, in this process or sent as source to a separate
kernel (`kernel_guard.py`: those modules use the standard library and each other only), the time limit
(`watchdog.py`), and the refusals of `exit()` and of changes to twnb's settings."""
