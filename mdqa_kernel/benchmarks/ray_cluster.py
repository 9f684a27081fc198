"""A local two-node Ray cluster for benchmarks: `ray start --head` and a second `ray start --address`,
one CPU each, started with a fresh token and stopped by signalling their own processes (never
`ray stop`, which would stop every Ray instance of the machine)."""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from mdqa_kernel.benchmarks.chaos import mdqa_env
from mdqa_kernel.benchmarks.processes import ScaleError, descendants


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _ray_bin() -> str:
    found = Path(sys.executable).with_name("ray")
    if not found.is_file():
        raise ScaleError(
            f"no `ray` command beside {sys.executable}; install the extra: pip install 'mdqa[ray]'"
        )
    return str(found)


@dataclass
class RayCluster:
    """A running local cluster: the GCS address, the `ray start` processes, and the environment a
    driver needs to join it (its authentication token)."""

    address: str
    pids: list[int]
    env: dict[str, str]


@contextlib.contextmanager
def ray_cluster(
    log: Path, nodes: int = 2, cpus_per_node: int = 1, timeout: float = 180
) -> Iterator[RayCluster]:
    """A head and `nodes - 1` more nodes on this machine, each `ray start --block` (so each owns its
    node's processes and stopping it stops them). Ray's token authentication stays on, with a fresh
    token for this cluster passed to every node and driver by environment (nothing written to ~/.ray).
    Only the processes started here are stopped afterwards (never `ray stop`, which stops every Ray
    instance of the user)."""
    port = _free_port()
    address = f"127.0.0.1:{port}"
    temp = Path(tempfile.mkdtemp(prefix="mdqa-ray-"))
    env = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32)}
    common = ["--block", "--disable-usage-stats", f"--num-cpus={cpus_per_node}", "--num-gpus=0",
              "--node-ip-address=127.0.0.1"]  # fmt: skip
    procs: list[subprocess.Popen[bytes]] = []
    log.parent.mkdir(parents=True, exist_ok=True)

    def start(args: list[str]) -> None:
        with open(log, "ab") as out:
            procs.append(subprocess.Popen([_ray_bin(), "start", *args, *common], stdout=out,
                                          stderr=subprocess.STDOUT, env={**mdqa_env(), **env},
                                          start_new_session=True))  # fmt: skip

    try:
        start(["--head", f"--port={port}", "--include-dashboard=false", f"--temp-dir={temp}"])
        _wait_nodes(address, env, 1, timeout, procs, log)
        for _ in range(nodes - 1):
            start([f"--address={address}"])
        _wait_nodes(address, env, nodes, timeout, procs, log)
        yield RayCluster(address, [p.pid for p in procs], env)
    finally:
        for p in reversed(procs):
            _stop(p)
        shutil.rmtree(temp, ignore_errors=True)


def _stop(proc: subprocess.Popen[bytes], grace: float = 30) -> None:
    """SIGTERM a `ray start --block` (it stops its node's processes), then SIGKILL what is left of its tree."""
    members = descendants([proc.pid])
    with contextlib.suppress(ProcessLookupError):
        proc.send_signal(signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(grace)
    for pid in members - {proc.pid}:  # only the processes this cluster started
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    if proc.poll() is None:
        proc.kill()
        proc.wait(5)


def _alive_nodes(address: str, env: dict[str, str]) -> int:
    """Nodes alive in the cluster at `address`, asked by a short-lived driver (so this process never
    joins the cluster)."""
    code = (
        f"import ray; ray.init(address={address!r}, logging_level='ERROR', log_to_driver=False); "
        "print(sum(1 for n in ray.nodes() if n['Alive']))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={**mdqa_env(), **env}, timeout=60
    )
    lines = done.stdout.strip().splitlines()
    return int(lines[-1]) if done.returncode == 0 and lines and lines[-1].isdigit() else 0


def _wait_nodes(
    address: str,
    env: dict[str, str],
    want: int,
    timeout: float,
    procs: list[subprocess.Popen[bytes]],
    log: Path,
) -> None:
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if any(p.poll() is not None for p in procs):
            raise ScaleError(f"a `ray start` exited early; see {log}")
        with contextlib.suppress(subprocess.TimeoutExpired):
            if _alive_nodes(address, env) >= want:
                return
        time.sleep(1)
    raise ScaleError(f"the Ray cluster at {address} did not reach {want} nodes in {timeout:.0f} s; see {log}")
