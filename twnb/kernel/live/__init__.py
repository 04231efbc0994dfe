"""The live notebook shell: `LiveShellExecutor` runs code on the IPython shell that runs twnb."""
