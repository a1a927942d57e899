"""A local Spark Connect session on a port of its own, as quiet as the classic one.

``SparkSession.builder.remote("local[2]")`` starts a Connect server inside
this process and connects to ``sc://localhost``, that is port 15002: a second
process doing the same (another notebook, a test run) fails with the JVM's
``BindException``, and a server started with port 0 is unreachable because the
client still dials 15002 (or reaches the other process's server, which
refuses its token). :func:`start_local_connect` lets the server bind a free
port, reads the port it got from the server itself (no race between
choosing a port and binding it), and connects there.

The server runs in a classic session hosted by this process (pyspark's own
local Connect works the same way); that session gets the quiet logging of
:func:`~spark_assign.spark.session.local_session`, since the client has no
``setLogLevel``.

The one pyspark internal used is ``pyspark.sql.connect.session.SparkSession._start_connect_server``,
the function ``builder.remote("local...")`` itself calls; pyproject pins pyspark to 4.1.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Callable, Dict, cast

from ..errors import SparkAssignError

__all__ = ["start_local_connect", "connect_port", "CONNECT_PORT_KEY"]

#: The server's gRPC port setting; 0 lets the operating system choose a free port.
CONNECT_PORT_KEY = "spark.connect.grpc.binding.port"
#: The Scala object holding the running Connect server.
_SERVICE_OBJECT = "org.apache.spark.sql.connect.service.SparkConnectService$"


def connect_port(jvm) -> int:
    """The port the Connect server in ``jvm`` listens on (the bound port, not the setting);
    :class:`SparkAssignError` when that JVM runs no Connect server (a classic session)."""
    service = jvm.java.lang.Class.forName(_SERVICE_OBJECT).getField("MODULE$").get(None)
    server = service.server()
    if server is None:
        raise SparkAssignError("a classic Spark session runs in this process, without a Spark Connect server: "
                               "call local_session(remote=True) in a process of its own, or stop the classic "
                               "session first (spark.stop())")
    return int(server.getPort())


def start_local_connect(master: str, settings: Dict[str, str], quiet: Callable[[Any], None]):
    """A Spark Connect session on a local server hosted by this process, on a free port.

    Parameters
    ----------
    master:
        The hosting session's master, e.g. ``local[2]``.
    settings:
        Spark settings of the hosting session (all of them apply before its JVM starts);
        its runtime SQL settings also apply to the Connect session.
    quiet:
        Called with the hosting classic session once it runs, to quiet its logging
        (see :func:`~spark_assign.spark.session.local_session`).

    Prints one line to stderr naming the server's address (``sc://localhost:PORT``), which
    other clients of this machine can connect to. A second call in the same process returns
    a session on the same server. ``settings`` may name the port
    (``spark.connect.grpc.binding.port``); a taken port then fails as the JVM reports it.
    """
    try:
        import grpc  # noqa: F401  (pyspark's Connect client needs it: the pyspark[connect] extra)
    except ImportError as e:
        raise SparkAssignError("Spark Connect needs pyspark's connect extra (grpcio): "
                               "pip install 'pyspark[connect]'") from e
    from pyspark.sql import SparkSession as ClassicSession
    from pyspark.sql.connect.session import SparkSession as ConnectSession

    host = ClassicSession._instantiatedSession
    if host is None or host._sc._jsc is None:
        options = {**settings, CONNECT_PORT_KEY: settings.get(CONNECT_PORT_KEY, "0")}
        os.environ["SPARK_LOCAL_REMOTE"] = "1"
        ConnectSession._start_connect_server(master, options)
        host = cast(ClassicSession, ClassicSession._instantiatedSession)      # started just above
        quiet(host)
        # The client may set runtime SQL settings only (the others applied when the host started).
        jvm: Any = host._jvm
        runtime_keys = {c._1() for c in jvm.PythonSQLUtils.listRuntimeSQLConfigs()}
        runtime: Dict[str, Any] = {k: v for k, v in settings.items() if k in runtime_keys}
    else:
        runtime = {}
    port = connect_port(host.sparkContext._jvm)
    os.environ["SPARK_CONNECT_MODE_ENABLED"] = "1"
    # "localhost": pyspark's client sends the server's token over local credentials only to that name.
    url = f"sc://localhost:{port}"
    spark = ConnectSession.builder.remote(url).config(map=runtime).getOrCreate()
    print(f"spark-assign: Spark Connect server of this process at {url}", file=sys.stderr)
    return spark
