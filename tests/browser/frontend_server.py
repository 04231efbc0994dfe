"""A JupyterLab or Notebook 7 server for browser tests and the README screenshot, stopped by its PID.

`JupyterServer("lab" | "notebook", root_dir, scratch, env)` starts `python -m jupyterlab` (or
`notebook`) on 127.0.0.1 on a port the server picks itself (`--port=0`, read back from the server
information file it writes), a random token, `--allow-root` (tests run as root), fresh
settings, workspace, config and runtime folders under `scratch`, and `env` as the environment its
kernels inherit, and `settings` (user settings by plugin id) beside the fresh ones. Its log is
`scratch/<app>.log`.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import quote

import nbformat

# This checkout's build of the JupyterLab extension (labextension/, built by `npm run build` there or by
# `pip install`), served to every frontend ahead of any installed copy, so the tests see this code.
LABEXTENSION_NAME = "twnb-labextension"
LABEXTENSION_BUNDLE = Path(__file__).resolve().parents[2] / "twnb" / "labextension"
STARTUP_TIMEOUT_S = 90  # a cold start on a loaded 2-core machine takes ~10 s; a hang says so after this
PORT_LOST = "is already in use."  # jupyter_server's warning when its port was taken
SAVE_WRITE_TIMEOUT_S = 10  # a notebook's file half-written for longer than this is broken, not in progress


class JupyterServerError(RuntimeError):
    """The server did not start or answer; the message says why and where the log is."""


def write_frontend_settings(settings_dir: Path, extra: dict[str, dict[str, Any]] | None = None) -> None:
    """User settings both frontends read: every cell in the DOM, no news toasts, plus `extra`
    (`{"@jupyterlab/apputils-extension:themes": {"theme": ...}}`, keyed by plugin id)."""
    settings = {
        # With the default windowing, off-screen cells are skipped or detached: locators and layout
        # would miss them.
        "@jupyterlab/notebook-extension:tracker": {"windowingMode": "none"},
        # No "get notified about Jupyter news?" toast over the notebook.
        "@jupyterlab/apputils-extension:notification": {"checkForUpdates": False, "fetchNews": "false"},
        **(extra or {}),
    }
    for plugin_id, values in settings.items():
        package, plugin = plugin_id.split(":")
        path = settings_dir / package / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values), encoding="utf-8")


class JupyterServer:
    """One `jupyter lab` or `jupyter notebook` process; `start()`, `stop()`, or `with`."""

    def __init__(
        self,
        app: str,
        root_dir: Path,
        scratch: Path,
        env: dict[str, str],
        *,
        labextension: bool = True,
        settings: dict[str, dict[str, Any]] | None = None,
    ) -> None:
        if app not in ("lab", "notebook"):
            raise ValueError(f"app must be 'lab' or 'notebook', not {app!r}")
        self.app = app
        self.root_dir = root_dir
        self.scratch = scratch
        self.env = env
        self.labextension = labextension  # False: twnb's extension disabled (Rounds show as HTML)
        self.settings = settings  # user settings beside the fresh defaults (write_frontend_settings)
        self.token = secrets.token_hex(16)
        # The server's port once started: one found free here could be taken before the server binds it.
        self.port = 0
        self.base_url = "http://127.0.0.1:0"
        self.log_path = scratch / f"{app}.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> JupyterServer:
        module, app_class = {"lab": ("jupyterlab", "LabApp"), "notebook": ("notebook", "JupyterNotebookApp")}[
            self.app
        ]
        command = [
            sys.executable, "-m", module, "--no-browser", "--allow-root",
            "--ip", "127.0.0.1", "--port=0", "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={self.token}", "--ServerApp.password=",
            f"--ServerApp.root_dir={self.root_dir}",
            f"--{app_class}.expose_app_in_browser=True",  # window.jupyterapp: the kernel's status
        ]  # fmt: skip
        if self.app == "lab":  # no notification toasts over the notebook (Notebook 7: by the settings)
            command += [
                "--LabApp.news_url=None",
                "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            ]
        env = self._server_environment()
        for attempt in range(2):
            self.port, self.base_url = 0, "http://127.0.0.1:0"
            with self.log_path.open("wb") as log:
                self.process = subprocess.Popen(
                    command, cwd=self.root_dir, env=env, stdout=log, stderr=subprocess.STDOUT
                )
            try:
                self._wait_until_ready()
                return self
            except JupyterServerError:
                # The server finds its free port, closes it and binds it again a moment later: another
                # process may take it in between. It then exits saying so; that alone is tried again.
                if attempt == 0 and PORT_LOST in self.log_path.read_text(errors="replace"):
                    continue
                self.stop()
                raise
            except BaseException:
                self.stop()
                raise
        raise AssertionError("not reached")

    def stop(self) -> None:
        """Stop this PID only; the server shuts its kernels down as it exits."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def __enter__(self) -> JupyterServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def url(self, path: str) -> str:
        """The browser URL of `path` (e.g. `lab/tree/x.ipynb`), logged in with the token."""
        separator = "&" if "?" in path else "?"
        return f"{self.base_url}/{path.lstrip('/')}{separator}token={self.token}"

    def notebook_url(self, name: str) -> str:
        """Where this frontend opens a notebook (JupyterLab: `?reset`, no restored tabs)."""
        if self.app == "lab":
            return self.url(f"lab/tree/{quote(name)}?reset")
        return self.url(f"notebooks/{quote(name)}")

    def api(self, path: str) -> Any:
        """GET a REST path (`api/kernels`, `api/contents/x.ipynb`) and return its JSON."""
        request = urllib.request.Request(
            f"{self.base_url}/{path.lstrip('/')}", headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.load(response)

    def saved_notebook(self, name: str) -> dict[str, Any]:
        """The notebook as the server has it on disk (what Ctrl+S wrote), read from the file.

        Not through the contents API: a GET that lands while a save is writing reads a half-written
        file, and the server then moves that file aside as `NAME.invalid` and puts the previous
        version back (seen while a test polled for a save). Read directly, a half-written file only
        fails to parse: it is read again until the write has ended."""
        path = self.root_dir / name
        deadline = time.monotonic() + SAVE_WRITE_TIMEOUT_S
        while True:
            try:  # as the API gives it: multi-line texts joined (the file keeps them as lists of lines)
                return dict(nbformat.reads(path.read_text(encoding="utf-8"), as_version=4))
            except ValueError:  # not JSON (yet): nbformat's NotJSONError
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)  # polling for the write to end, not waiting a guessed time

    def _server_environment(self) -> dict[str, str]:
        env = dict(self.env)
        settings = self.scratch / "settings"
        if not settings.exists():
            write_frontend_settings(settings, self.settings)
        config = self.scratch / "jupyter-config"
        if self.labextension and (LABEXTENSION_BUNDLE / "package.json").is_file():
            data = self.scratch / "jupyter-data"
            link = data / "labextensions" / LABEXTENSION_NAME
            link.parent.mkdir(parents=True, exist_ok=True)
            if not link.exists():
                link.symlink_to(LABEXTENSION_BUNDLE, target_is_directory=True)
            env["JUPYTER_PATH"] = os.pathsep.join(filter(None, [str(data), env.get("JUPYTER_PATH")]))
        elif not self.labextension:  # also when pip installed it into the environment
            page_config = config / "labconfig" / "page_config.json"
            page_config.parent.mkdir(parents=True, exist_ok=True)
            page_config.write_text(json.dumps({"disabledExtensions": {LABEXTENSION_NAME: True}}))
        env.update(
            {
                # Fresh state: no restored tabs, no user theme, no other server's kernels or config.
                "JUPYTERLAB_SETTINGS_DIR": str(settings),
                "JUPYTERLAB_WORKSPACES_DIR": str(self.scratch / "workspaces"),
                "JUPYTER_CONFIG_DIR": str(config),
                "JUPYTER_RUNTIME_DIR": str(self.scratch / "jupyter-runtime"),
            }
        )
        return env

    def _wait_until_ready(self) -> None:
        assert self.process is not None
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise JupyterServerError(
                    f"jupyter {self.app} exited with {self.process.returncode}:\n{self.log_path.read_text()}"
                )
            if not self.port:
                self._read_port()
            if self.port:
                try:
                    self.api("api/status")
                    return
                except OSError:
                    pass
            time.sleep(0.3)  # polling the server, not waiting for a guessed duration
        raise JupyterServerError(
            f"jupyter {self.app} did not answer on {self.base_url} within {STARTUP_TIMEOUT_S} s; "
            f"log: {self.log_path}"
        )

    def _read_port(self) -> None:
        """The port the server bound, from the `jpserver-PID.json` it writes in its runtime folder once
        it listens (empty or half-written before that: read again)."""
        assert self.process is not None
        info = self.scratch / "jupyter-runtime" / f"jpserver-{self.process.pid}.json"
        try:
            port = int(json.loads(info.read_text(encoding="utf-8"))["port"])
        except (OSError, ValueError, KeyError):
            return
        self.port = port
        self.base_url = f"http://127.0.0.1:{port}"


def clean_environment(home: Path) -> dict[str, str]:
    """This process's environment without the developer's model settings, with HOME at `home`."""
    prefixes = ("TWNB_", "OPENAI_", "AZURE_OPENAI_", "LLM_")
    env = {name: value for name, value in os.environ.items() if not name.startswith(prefixes)}
    home.mkdir(parents=True, exist_ok=True)
    env["HOME"] = str(home)
    return env
