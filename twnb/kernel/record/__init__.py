"""The record of one run: `ExecutionResult` and its parts, and the `Executor` protocol both executors
keep."""
