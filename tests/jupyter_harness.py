"""A real JupyterLab on 127.0.0.1 driven by Playwright in Debian's headless Chromium.

Facts from ../shared/NOTES.md: never `playwright install` (use /usr/bin/chromium); as root the server
needs --allow-root; a fresh workspaces dir and a settings dir that silences the news toast; click into
the notebook before Run All; wait for the kernel's idle indicator.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def jupyterlab(root: Path, tmp: Path) -> Iterator[str]:
    """Start JupyterLab serving `root`; yield its base URL with the token."""
    token = secrets.token_hex(16)
    port = free_port()
    settings = tmp / "lab-settings"
    (settings / "@jupyterlab" / "apputils-extension").mkdir(parents=True, exist_ok=True)
    (settings / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False, "doNotDisturbMode": True})
    )
    env = dict(os.environ)
    env["JUPYTERLAB_WORKSPACES_DIR"] = str(tmp / "lab-workspaces")
    env["JUPYTERLAB_SETTINGS_DIR"] = str(settings)
    log = (tmp / "jupyter.log").open("w")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "jupyterlab",
            "--no-browser",
            "--allow-root",
            f"--port={port}",
            "--ServerApp.ip=127.0.0.1",
            f"--IdentityProvider.token={token}",
            f"--ServerApp.root_dir={root}",
            "--LabApp.news_url=None",
        ],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group: kernels it started die with it
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 90
        while True:
            try:
                urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2)
                break
            except OSError:
                if proc.poll() is not None or time.time() > deadline:
                    raise RuntimeError(f"JupyterLab did not start; see {tmp / 'jupyter.log'}") from None
                time.sleep(0.5)
        yield f"{base}|{token}"
    finally:
        _stop_group(proc)
        log.close()


def _stop_group(proc: subprocess.Popen[bytes]) -> None:
    """Stop the server and every kernel it started (a terminated server leaves its kernels running)."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        try:
            proc.wait(timeout=15)
            time.sleep(0.5)  # let the kernels of the group go too
        except subprocess.TimeoutExpired:
            continue
        if sig is signal.SIGTERM:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
        return


@contextlib.contextmanager
def browser_page() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-dev-shm-usage",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        page = browser.new_page(viewport={"width": 1500, "height": 1000})
        try:
            yield page
        finally:
            browser.close()


def open_notebook(page: object, server: str, relpath: str) -> None:
    base, token = server.split("|")
    page.goto(f"{base}/lab/tree/{relpath}?token={token}")  # type: ignore[attr-defined]
    page.wait_for_selector(".jp-Notebook", timeout=90_000)  # type: ignore[attr-defined]
    page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=120_000)  # type: ignore[attr-defined]


_RAN = re.compile(r"\[\d+\]:?")  # an execution count: the cell has run
_PROMPTS_JS = """() => [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')]
                     .map(p => p.textContent.trim())"""
_ERRORS_JS = """() => [
    ...[...document.querySelectorAll(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.error']")]
        .map(e => e.textContent),
    ...[...document.querySelectorAll(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")]
        .map(e => e.textContent).filter(t => t.includes('Traceback (most recent call last)'))]"""


def run_all(page: object, timeout_ms: int = 600_000, artifacts: Path | None = None) -> None:
    """Run every cell and wait until each code cell has an execution count.

    A lost "Run All" click (NOTES: about 2 in 3 without focus) is retried; a cell that raises fails
    the wait at once with its traceback, and a timeout names the cells that never ran and leaves a
    screenshot, so a failure here says why instead of only that 10 minutes passed.
    """
    started = False
    for _ in range(3):
        _no_dialog(page, artifacts)
        page.click(".jp-Notebook .jp-Cell >> nth=0")  # type: ignore[attr-defined]
        page.click("div.lm-MenuBar-itemLabel:text-is('Run')")  # type: ignore[attr-defined]
        page.click("li[data-command='runmenu:run-all']")  # type: ignore[attr-defined]
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            prompts = page.evaluate(_PROMPTS_JS)  # type: ignore[attr-defined]
            if any(p.strip("[ ]:") for p in prompts):  # "[*]" or a count: something runs
                started = True
                break
            page.wait_for_timeout(250)  # type: ignore[attr-defined]
        if started:
            break
    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        prompts = page.evaluate(_PROMPTS_JS)  # type: ignore[attr-defined]
        errors = page.evaluate(_ERRORS_JS)  # type: ignore[attr-defined]
        if errors:
            raise AssertionError(f"a notebook cell raised:\n{errors[0][-3000:]}")
        idle = page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").count() > 0  # type: ignore[attr-defined]
        if idle and prompts and all(_RAN.fullmatch(p) for p in prompts):
            return
        if time.monotonic() > deadline:
            if artifacts is not None:
                artifacts.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(artifacts / "run-all-timeout.png"))  # type: ignore[attr-defined]
            pending = [i for i, p in enumerate(prompts) if not _RAN.fullmatch(p)]
            raise AssertionError(
                f"Run All did not finish in {timeout_ms / 1000:.0f} s (started: {started}); "
                f"code cells not run or still running: {pending} of {len(prompts)}, prompts {prompts}"
            )
        page.wait_for_timeout(500)  # type: ignore[attr-defined]


def _no_dialog(page: object, artifacts: Path | None, wait_ms: int = 60_000) -> None:
    """A JupyterLab dialog over the notebook swallows every click (seen once in CI on a loaded machine, its
    text not recorded): wait for it to close; if it stays, fail naming it, with a screenshot."""
    dialog = page.locator(".jp-Dialog")  # type: ignore[attr-defined]
    deadline = time.monotonic() + wait_ms / 1000
    while dialog.count() > 0:
        if time.monotonic() > deadline:
            if artifacts is not None:
                artifacts.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(artifacts / "dialog-open.png"))  # type: ignore[attr-defined]
            raise AssertionError(
                f"a JupyterLab dialog stayed open over the notebook: {dialog.first.inner_text()!r}"
            )
        page.wait_for_timeout(500)  # type: ignore[attr-defined]


def restart_kernel(page: object) -> None:
    page.click("div.lm-MenuBar-itemLabel:text-is('Kernel')")  # type: ignore[attr-defined]
    page.click("li[data-command='kernelmenu:restart-and-clear']")  # type: ignore[attr-defined]
    page.click(".jp-Dialog button.jp-mod-accept")  # type: ignore[attr-defined]
    page.wait_for_timeout(1500)  # type: ignore[attr-defined]
    page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=120_000)  # type: ignore[attr-defined]
