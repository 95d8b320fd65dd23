"""``cardarena service health``: one gRPC health check of a running service, over the client's
TLS options; and :func:`client_tls`, those options checked (``bot run`` too).

A readiness probe runs it every few seconds, each time in a new process: it loads gRPC, the
health stubs and the PEM checks (:mod:`cardarena.pem`, :mod:`cardarena_sdk.channel`), nothing
of the service, the stores or the protocol."""

from __future__ import annotations

import argparse
import sys

import grpc
from cardarena_sdk.channel import channel_credentials, check_address
from grpc_health.v1 import health_pb2, health_pb2_grpc

from ..cliargs import usage_error
from ..pem import PemError, read_ca_certificates, read_key_pair


def client_tls(args: argparse.Namespace) -> bool:
    """Whether a client connects with TLS (the options of :func:`.arguments.add_client_tls`), once
    ``--server`` and the files are checked: a usage error (exit 2) names a bad one before
    anything connects."""
    try:
        check_address(args.server)
    except ValueError as exc:
        usage_error(str(exc).replace("server address", "--server", 1))
    try:
        if args.ca_cert:
            read_ca_certificates(args.ca_cert, name="--ca-cert")
        read_key_pair(args.client_cert, args.client_key, names=("--client-cert", "--client-key"))
    except PemError as exc:
        usage_error(str(exc))
    return bool(args.tls or args.ca_cert or args.client_cert or args.client_key)


def service_health(args: argparse.Namespace) -> int:
    """One health check of the service at ``--server`` (the server as a whole), over the
    client's TLS options: exit 0 when it answers ``SERVING``; 1 when it answers anything else
    (``NOT_SERVING``: standing by, or shutting down) or does not answer within ``--timeout``."""
    tls = client_tls(args)
    if args.server_name and not tls:
        usage_error(
            "--server-name names the host the service's certificate is checked for: it needs TLS (--tls, --ca-cert)"
        )
    options = [("grpc.ssl_target_name_override", args.server_name)] if args.server_name else []
    credentials = channel_credentials(tls, args.ca_cert, args.client_cert, args.client_key)
    channel = (
        grpc.secure_channel(args.server, credentials, options)
        if credentials is not None
        else grpc.insecure_channel(args.server, options)
    )
    with channel:
        try:
            reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=args.timeout)
        except grpc.RpcError as exc:
            code, details = exc.code(), exc.details() or ""
            said = " ".join(details.split())[:300]
            print(f"cardarena: {args.server}: no answer ({code.name}: {said})", file=sys.stderr)
            return 1
    status = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
    if reply.status == health_pb2.HealthCheckResponse.SERVING:
        print(f"{args.server}: SERVING")
        return 0
    why = " (standing by, or shutting down: it takes no new bots or matches)" if status == "NOT_SERVING" else ""
    print(f"{args.server}: {status}{why}")
    return 1
