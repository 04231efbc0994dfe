"""The quickstart analysis that `twnb demo` runs: its dataset, its notebook, and its scripted cassette."""

from twnb.demo.quickstart import DEMO_MODEL, build_quickstart_notebook
from twnb.demo.runner import DemoResult, KernelChoice, run_demo

__all__ = ["DEMO_MODEL", "DemoResult", "KernelChoice", "build_quickstart_notebook", "run_demo"]
