"""What verification allows and refuses by default: the lists behind `VerificationConfig`.

Every list is data a user or a test can replace; the walk that applies them is `code_checker.py`.
"""

from __future__ import annotations

from dataclasses import dataclass

from twnb.analysis import ChainRules
from twnb.kernel import BIG_DATA_LIBRARIES
from twnb.roles.taskweaver_verification import TaskWeaverRules

# Modules suited to data analysis. A dotted import is judged by its top-level package.
DEFAULT_ALLOWED_MODULES: frozenset[str] = frozenset(
    {
        "pandas",
        "numpy",
        "matplotlib",
        "seaborn",
        "scipy",
        "sklearn",
        "statsmodels",
        "plotly",
        "math",
        "cmath",
        "statistics",
        "decimal",
        "fractions",
        "numbers",
        "random",
        "datetime",
        "time",
        "calendar",
        "zoneinfo",
        "dateutil",
        "pytz",
        "json",
        "csv",
        "re",
        "string",
        "textwrap",
        "unicodedata",
        "difflib",
        "pprint",
        "collections",
        "itertools",
        "functools",
        "operator",
        "heapq",
        "bisect",
        "array",
        "dataclasses",
        "enum",
        "typing",
        "copy",
        "warnings",
        "pathlib",
        "os",
        "io",
        "glob",
        "fnmatch",
        "shutil",
        "gzip",
        "zipfile",
        "bz2",
        "lzma",
        "tarfile",
        "base64",
        "hashlib",
        "uuid",
        "urllib",
        "html",
        "xml",
        "sqlite3",
        "pyarrow",
        "openpyxl",
        "xlrd",
        "tabulate",
        "tqdm",
        "PIL",
        "IPython",
    }
) | frozenset(BIG_DATA_LIBRARIES)  # Dask, Polars, DuckDB, Spark, ...: the prompt says which are installed

# Refused even when `allowed_modules` is None (any module allowed).
DEFAULT_BLOCKED_MODULES: frozenset[str] = frozenset(
    {
        "subprocess",
        "ctypes",
        "multiprocessing",
        "pty",
        "signal",
        "socket",
        "builtins",
        "importlib",
        # the C modules behind os, subprocess, signal and ctypes, and runners of code given as text
        "posix",
        "nt",
        "_posixsubprocess",
        "_signal",
        "_ctypes",
        "runpy",
        "code",
    }
)

# Builtins that reach code or names by string, so they could bypass these very checks (TaskWeaver's
# dangerous builtins).
BYPASS_FUNCTIONS: frozenset[str] = frozenset(
    {
        "eval",
        "exec",
        "execfile",
        "compile",
        "__import__",
        "getattr",
        "setattr",
        "delattr",
        "globals",
        "locals",
        "vars",
        "reload",
    }
)

# The bypassing builtins, ones that end or hang the user's kernel, and process or file-tree killers.
# Bare names match the builtin; dotted names match the module attribute however it was imported; `*`
# matches anything below.
DEFAULT_BLOCKED_FUNCTIONS: frozenset[str] = BYPASS_FUNCTIONS | frozenset(
    {
        "exit",
        "quit",
        "input",
        "breakpoint",
        "os._exit",
        "os.kill",
        "os.killpg",
        "os.abort",
        "os.fork",
        "os.forkpty",
        "os.system",
        "os.popen",
        "os.exec*",
        "os.spawn*",
        "os.posix_spawn*",
        "sys.exit",
        "shutil.rmtree",
        "subprocess.*",
    }
)

# Attributes that reach around these checks (any module by name, frames), into the notebook's shell
# (which runs shell commands), or start processes. Refused like blocked functions, but not listed in
# the model's instructions: analysis code never needs them, and the prompt stays short.
DEFAULT_BLOCKED_ATTRIBUTES: frozenset[str] = frozenset(
    {
        "sys.modules",
        "sys._getframe",
        "sys._current_frames",
        "sys.settrace",
        "sys.setprofile",
        "os.startfile",
        "asyncio.create_subprocess_*",
        "asyncio.subprocess.*",
        "IPython.get_ipython",
        "IPython.embed",
        "IPython.start_ipython",
        "IPython.start_kernel",
        "IPython.core.getipython.*",
        "IPython.core.interactiveshell.*",
        "IPython.terminal.*",
        "IPython.utils.process.*",
        "IPython.display.Javascript",
        "IPython.core.display.Javascript",
    }
)

# Attributes of frames, generators and tracebacks that reach a frame's globals or builtins (and so
# `exec`) without a dunder: `(x for x in ()).gi_frame.f_builtins["exec"]`.
FRAME_ATTRIBUTES: frozenset[str] = frozenset(
    {"f_globals", "f_locals", "f_builtins", "f_back", "gi_frame", "cr_frame", "ag_frame", "tb_frame"}
)

# Methods of IPython's shell that run shell commands or code: refused on any object, since the shell
# can be reached in ways the walk cannot follow. (`%magic` and `!cmd` syntax is judged on its own.)
SHELL_METHODS: frozenset[str] = frozenset(
    {
        "run_line_magic",
        "run_cell_magic",
        "getoutput",
        "system_raw",
        "system_piped",
        "run_cell",
        "safe_execfile",
    }
)

# Modules that an attribute chain from another module may reach (`pathlib.os`, `os.sys`,
# `pd.io.common.os`): such a chain is judged from that module (`pathlib.os.system` is `os.system`).
# Judged by the real module object when it is loaded; by these names when it is not.
REACHABLE_MODULES: frozenset[str] = frozenset(
    {
        "os",
        "posix",
        "nt",
        "sys",
        "subprocess",
        "_posixsubprocess",
        "ctypes",
        "_ctypes",
        "pty",
        "importlib",
        "builtins",
        "signal",
        "_signal",
        "multiprocessing",
        "socket",
        "shutil",
        "asyncio",
        "runpy",
        "code",
        "IPython",
        # threads: `zipfile.threading.Thread(...)` starts one as `threading` does
        "threading",
        "_thread",
    }
)
# Modules whose work is what another module does, judged as that module: allowed and refused where it
# is, with why. IPython's background jobs run a callable or an expression in a thread of their own,
# which outlives the Round: `IPython` being allowed must not let them through where `threading` is not.
JUDGED_AS: dict[str, tuple[str, str]] = {
    "IPython.lib.backgroundjobs": ("threading", "its jobs run in threads, as module 'threading' starts them"),
}
# Attribute names that stand for one of those modules when the module is not loaded. `signal`, `code`
# and `socket` are left out: `scipy.signal` is not the signal module.
MODULE_ATTRIBUTE_NAMES: dict[str, str] = {
    **{name: name for name in REACHABLE_MODULES - {"signal", "code", "socket", "asyncio"}},
    "_os": "os",
    "_sys": "sys",
    "_subprocess": "subprocess",
    "_shutil": "shutil",
}

# Functions that import a module named by a string, and how they read it: "module" (a module's dotted
# name), "dotted" (a module and attributes after it: `os.path.join`), "colon" (`pkg.mod:attr`, or
# dotted). A call is judged as an import of the name it is given; a name not written out is refused.
# Found by name and, when their module is loaded, by identity (a re-export under another name).
DYNAMIC_IMPORTERS: dict[str, str] = {
    "__import__": "module",
    "importlib.import_module": "module",
    "importlib.__import__": "module",
    "IPython.utils.importstring.import_item": "dotted",
    "traitlets.utils.importstring.import_item": "dotted",
    "traitlets.import_item": "dotted",
    "pkgutil.resolve_name": "colon",
    "pydoc.locate": "dotted",
    "pandas.compat._optional.import_optional_dependency": "module",
    "pandas.compat.import_optional_dependency": "module",
}

# How a chain of attributes is judged from the module it reaches (twnb.analysis.chains): by
# verification, and by risk grades (`tempfile._shutil.rmtree` deletes as `shutil.rmtree` does).
CHAIN_RULES = ChainRules(REACHABLE_MODULES, MODULE_ATTRIBUTE_NAMES, tuple(DYNAMIC_IMPORTERS))

# Dunder attributes that read metadata harmlessly; every other `__x__` attribute is refused because
# that is the road to `__class__.__subclasses__()` and `__globals__`.
DEFAULT_ALLOWED_DUNDERS: frozenset[str] = frozenset({"__version__", "__name__", "__doc__", "__init__"})

# Line magics that cannot change the environment. `time`/`timeit` bodies are verified as Python.
DEFAULT_ALLOWED_LINE_MAGICS: frozenset[str] = frozenset(
    {"time", "timeit", "matplotlib", "precision", "who", "whos", "who_ls", "pwd", "pinfo", "pinfo2", "pdoc"}
)
DEFAULT_ALLOWED_CELL_MAGICS: frozenset[str] = frozenset({"time", "timeit", "capture"})

# A magic whose line or cell is Python (twnb.analysis.TEXT_MAGICS) has it pass the same checks.
INSTALL_MAGICS = frozenset({"pip", "conda", "mamba", "micromamba"})
SHELL_MAGICS = frozenset({"sx", "system", "bash", "sh", "script", "perl", "ruby", "powershell", "cmd"})
# Names that give direct access to the interpreter's machinery.
BLOCKED_NAMES = frozenset({"__builtins__", "__loader__", "__spec__"})


@dataclass(frozen=True)
class VerificationConfig:
    """What verification allows. Every list is configurable; `None` for `allowed_modules` means any
    module not in `blocked_modules`. `allow_shell` lets `!cmd` and `%pip` through (step mode sets it
    for code the user approved by hand). `taskweaver`, when set, adds TaskWeaver's own rules
    (taskweaver_verification.py) after these: code runs only when both pass."""

    enabled: bool = True
    allowed_modules: frozenset[str] | None = DEFAULT_ALLOWED_MODULES
    blocked_modules: frozenset[str] = DEFAULT_BLOCKED_MODULES
    blocked_functions: frozenset[str] = DEFAULT_BLOCKED_FUNCTIONS
    blocked_attributes: frozenset[str] = DEFAULT_BLOCKED_ATTRIBUTES
    allowed_dunders: frozenset[str] = DEFAULT_ALLOWED_DUNDERS
    allowed_line_magics: frozenset[str] = DEFAULT_ALLOWED_LINE_MAGICS
    allowed_cell_magics: frozenset[str] = DEFAULT_ALLOWED_CELL_MAGICS
    allow_shell: bool = False
    taskweaver: TaskWeaverRules | None = None

    def describe(self) -> str:
        """The rules in a few lines, for the CodeInterpreter's system prompt (stable text: sorted).
        With TaskWeaver's rules too, one list of each: the imports both allow, the calls either
        refuses (the model is never told two lists that disagree)."""
        rules = self.taskweaver
        if not self.enabled:
            return rules.describe() if rules is not None else ""
        allowed = self.allowed_modules
        blocked_functions = set(self.blocked_functions)
        if rules is not None:
            if rules.allowed_modules is not None:
                tw_allowed = frozenset(rules.allowed_modules)
                allowed = tw_allowed if allowed is None else allowed & tw_allowed
            blocked_functions |= set(rules.blocked_functions or ())
        modules = "any module" if allowed is None else (", ".join(sorted(allowed)) or "none")
        blocked = ", ".join(sorted(blocked_functions))
        text = (
            f"- Allowed imports: {modules}.\n"
            f"- Never call: {blocked}.\n"
            "- No dunder attributes (such as __class__ or __dict__) except __version__, __name__, __doc__.\n"
            "- No shell escapes (!cmd), no %pip or %conda installs: if a package is missing, say so.\n"
        )
        if rules is not None:
            text += "- No magic commands at all (such as %matplotlib or %time).\n"
        return text
