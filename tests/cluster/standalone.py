"""A Spark standalone cluster for tests: one master and two workers, separate JVMs started
from the pyspark installation (``spark-class``), on 127.0.0.1.

Workers can be started in their own mount namespace with a folder of the driver's machine
covered by an empty tmpfs (``unshare -m``, needs root): their executors then do not see what
the driver writes there, as executors on other hosts would not see a driver's local disk.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import socket
import subprocess
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional

from ..conftest import SHORT_LIVED_JVM

WORKERS = 2
START_TIMEOUT_S = 120


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spark_class() -> str:
    import pyspark

    return str(Path(pyspark.__file__).parent / "bin" / "spark-class")


def can_hide_folders() -> bool:
    """Whether ``unshare -m`` with a tmpfs mount works here (root, no seccomp in the way)."""
    probe = subprocess.run(["unshare", "-m", "sh", "-c", "mount -t tmpfs none /mnt"], capture_output=True)
    return probe.returncode == 0


@dataclass
class Cluster:
    """A running cluster: ``master`` is its ``spark://`` URL; :meth:`stop` ends every process."""

    master: str
    web: str
    processes: List[subprocess.Popen] = field(default_factory=list)

    def alive_workers(self) -> int:
        with urllib.request.urlopen(self.web + "/json/", timeout=5) as reply:
            state = json.load(reply)
        return sum(1 for w in state.get("workers", []) if w.get("state") == "ALIVE")

    def stop(self) -> None:
        for p in reversed(self.processes):
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
        for p in self.processes:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()


def start(work: Path, hidden: Optional[Path] = None) -> Cluster:
    """Start a master and :data:`WORKERS` workers (1 core, 1 GiB each) and wait until all are
    registered. ``hidden``: a folder the workers' executors see as an empty tmpfs."""
    work.mkdir(parents=True, exist_ok=True)
    # The master and workers only schedule: they start, as the tests' other short-lived JVMs do, without
    # C2 and the parallel collector (see tests/conftest.py).
    env = dict(os.environ, SPARK_LOCAL_IP="127.0.0.1", SPARK_LOG_DIR=str(work / "logs"),
               SPARK_WORKER_DIR=str(work / "worker"), SPARK_DAEMON_JAVA_OPTS=SHORT_LIVED_JVM)
    port, web = free_port(), free_port()
    cluster = Cluster(f"spark://127.0.0.1:{port}", f"http://127.0.0.1:{web}")

    def launch(name: str, command: List[str]) -> None:
        log = open(work / f"{name}.log", "w")
        cluster.processes.append(subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT,
                                                  start_new_session=True))

    launch("master", [spark_class(), "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                      "--port", str(port), "--webui-port", str(web)])
    try:
        for i in range(WORKERS):
            command = [spark_class(), "org.apache.spark.deploy.worker.Worker", cluster.master, "--host", "127.0.0.1",
                       "--cores", "1", "--memory", "1g", "--webui-port", str(free_port()),
                       "--work-dir", str(work / f"worker-{i}")]
            if hidden is not None:
                hidden.mkdir(parents=True, exist_ok=True)
                command = ["unshare", "-m", "sh", "-c",
                           f"mount -t tmpfs none {shlex.quote(str(hidden))} && exec {shlex.join(command)}"]
            launch(f"worker-{i}", command)
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            try:
                if cluster.alive_workers() == WORKERS:
                    return cluster
            except OSError:
                pass                                # the master is not listening yet
            if time.monotonic() > deadline or any(p.poll() is not None for p in cluster.processes):
                logs = "\n".join(f"--- {p.name}\n{p.read_text()[-2000:]}" for p in work.glob("*.log"))
                raise RuntimeError(f"the standalone cluster did not start:\n{logs}")
            time.sleep(1)
    except BaseException:
        cluster.stop()
        raise
