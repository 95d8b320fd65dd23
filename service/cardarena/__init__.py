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

__version__ = "0.1.0"
