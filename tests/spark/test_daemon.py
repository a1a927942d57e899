"""The quiet Python worker daemon (spark_assign.spark.daemon): a worker whose connection closes
before the handshake exits with code 1 and no traceback; PySpark's own raises EOFError there."""

import subprocess
import sys

from spark_assign.spark.session import QUIET_DAEMON

HANG_UP = """
import socket, sys
import pyspark.daemon
{setup}
ours, jvm = socket.socketpair()
jvm.close()                                   # the JVM hangs up before sending the secret
print(pyspark.daemon.worker(ours, False))
"""


RESET = """
import socket, struct, sys
import pyspark.daemon
{setup}
server = socket.create_server(("127.0.0.1", 0))
jvm = socket.create_connection(server.getsockname())
ours, _ = server.accept()
jvm.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
jvm.close()                                   # the JVM resets the connection (RST) before the handshake
print(pyspark.daemon.worker(ours, False))
"""


def run(setup, script=HANG_UP):
    return subprocess.run([sys.executable, "-c", script.format(setup=setup)], capture_output=True, text=True,
                          timeout=120)


def test_a_worker_hung_up_on_before_its_handshake_exits_quietly():
    done = run("import spark_assign.spark.daemon")
    assert done.returncode == 0 and done.stdout.strip() == "1" and done.stderr == "", done.stderr


def test_a_worker_whose_connection_is_reset_exits_quietly_too():
    done = run("import spark_assign.spark.daemon", RESET)
    assert done.returncode == 0 and done.stdout.strip() == "1" and done.stderr == "", done.stderr
    assert "ConnectionResetError" in run("", RESET).stderr          # what PySpark's own daemon printed


def test_pysparks_own_worker_raises_there_which_is_what_the_console_showed():
    done = run("")
    assert done.returncode != 0 and "EOFError" in done.stderr


def test_the_test_session_built_by_local_session_runs_the_quiet_daemon(spark):
    assert spark.conf.get("spark.python.daemon.module") == QUIET_DAEMON
    assert spark.range(4).mapInArrow(lambda batches: batches, "id long").count() == 4
