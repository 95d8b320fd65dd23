"""cardarena: a service where bots compete at card games."""

import os

# gRPC's fork handlers restart its poller thread in a forked child; when that child is a
# subprocess being started (``close_fds`` closes gRPC's epoll descriptor before ``exec``), the
# poller hits EBADF and the child aborts before it runs (grpc/grpc#43055): a service or bot
# process that never starts.  cardarena never uses gRPC across a fork (every child is exec'd;
# Celery workers never touch gRPC), so the handlers are off unless the environment says
# otherwise.  Set before anything imports grpc: every cardarena process imports this package
# first.
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")


def quiet_grpc_core_logs() -> None:
    """Keep gRPC's C core to its errors in this process and the children it starts, unless the
    environment sets ``GRPC_VERBOSITY`` or ``GRPC_TRACE``: otherwise it writes INFO lines of its
    own to stderr (``I... ssl_transport_security.cc] Handshake failed ...`` before ``bot run
    --tls`` says, in one line, that the port does not speak TLS), which tell a bot author or an
    operator nothing our messages do not.  ``GRPC_TRACE`` alone keeps gRPC's default, so that
    the traces it asks for are shown.  The C core reads the setting when grpc is imported: the
    command-line entry points (:func:`cardarena.cli.main`, ``python -m cardarena.server``) call
    this first; a program that imports the SDK or the service as a library keeps its own."""
    if not os.environ.get("GRPC_VERBOSITY") and not os.environ.get("GRPC_TRACE"):
        os.environ["GRPC_VERBOSITY"] = "ERROR"


__version__ = "0.1.0"
