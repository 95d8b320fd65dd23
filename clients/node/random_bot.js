// A cardarena bot in Node.js: plays a random legal action for every request.
// Usage: CARDARENA_TOKEN=... node random_bot.js [--tls] [--ca-cert FILE] [host:port] [bot-name]   (see README.md)
// It loads proto/cardarena/v1/arena.proto (the same files the server is generated from).
//
// What every bot has to do, in any language (docs/protocol.md):
// - send Hello first, then answer each ActionRequest with an Action carrying its match_id and seq;
// - answer Ping with Pong;
// - reconnect with back-off whenever the stream ends, cleanly or not (a server shutting down ends
//   it with status OK; the live matches are resumed, or replayed elsewhere), except on a status
//   that will not change (UNAUTHENTICATED, PERMISSION_DENIED, INVALID_ARGUMENT);
// - follow MatchInvite: open a session to the address given (the same token), because the match
//   is hosted by another service instance.
'use strict';
const fs = require('fs');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTO_ROOT = path.resolve(__dirname, '..', '..', 'proto');
const definition = protoLoader.loadSync('cardarena/v1/arena.proto', {
  includeDirs: [PROTO_ROOT],
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
});
const v1 = grpc.loadPackageDefinition(definition).cardarena.v1;

// --tls: connect with TLS, trusting the system's root certificates; --ca-cert FILE: trust this PEM
// certificate instead (a private CA or a self-signed certificate; implies --tls). Every session
// (reconnects, invited addresses) uses the same credentials.
const positional = [];
let tls = false;
let caCert = null;
for (let i = 2; i < process.argv.length; i += 1) {
  const arg = process.argv[i];
  if (arg === '--tls') {
    tls = true;
  } else if (arg === '--ca-cert') {
    i += 1;
    try {
      caCert = fs.readFileSync(process.argv[i]);
    } catch (err) {
      console.error(`--ca-cert ${process.argv[i]}: ${err.message}`);
      process.exit(2);
    }
    tls = true;
  } else {
    positional.push(arg);
  }
}
const credentials = tls ? grpc.credentials.createSsl(caCert) : grpc.credentials.createInsecure();
const home = positional[0] || '127.0.0.1:50051';
const name = positional[1] || '';
const token = process.env.CARDARENA_TOKEN;
if (!token) {
  console.error('set CARDARENA_TOKEN');
  process.exit(2);
}
const exitAfter = Number(process.env.CARDARENA_EXIT_AFTER_MATCHES || 0);
const FATAL = new Set([grpc.status.UNAUTHENTICATED, grpc.status.PERMISSION_DENIED, grpc.status.INVALID_ARGUMENT]);
const GIVE_UP_MS = 60000; // an invited address that stays unreachable this long is given up
// A failed TLS handshake (an untrusted certificate, one for another host, a port without TLS) is a
// setting a retry cannot fix: fatal at an address that never welcomed this bot, retried after.
const TLS_FAILURE = /certificate|handshake|ssl|tls|wrong version|self.signed|altnames/i;

const sessions = new Map(); // address -> { stream }
let ended = 0;
let stopping = false;

function stop(code) {
  stopping = true;
  for (const { stream } of sessions.values()) {
    if (stream) stream.end();
  }
  process.exit(code);
}

function handle(stream, message) {
  switch (message.kind) {
    case 'welcome':
      console.log(JSON.stringify({ connected: message.welcome.instance, resumed: message.welcome.resumed }));
      break;
    case 'action_request': {
      const request = message.action_request;
      const pick = request.legal[Math.floor(Math.random() * request.legal.length)];
      stream.write({ action: { match_id: request.match_id, seq: request.seq, action_id: pick.id } });
      break;
    }
    case 'action_rejected':
      console.error(`rejected: ${message.action_rejected.reason}`);
      break;
    case 'ping':
      stream.write({ pong: { nonce: message.ping.nonce } });
      break;
    case 'match_invite':
      if (message.match_invite.address) connect(message.match_invite.address, false);
      break;
    case 'match_end':
      ended += 1;
      console.log(JSON.stringify({ match_end: message.match_end.match_id, status: message.match_end.status }));
      if (exitAfter && ended >= exitAfter) stop(0);
      break;
    default: // match_start, event: a random bot needs neither
      break;
  }
}

// One address: a session, opened again with back-off whenever it ends. The home address is
// kept for ever; an invited one is given up once unreachable for GIVE_UP_MS.
function connect(address, isHome) {
  if (sessions.has(address)) return;
  const client = new v1.Arena(address, credentials);
  const state = { stream: null, delay: 100, lastWelcome: Date.now(), welcomed: false };
  sessions.set(address, state);
  const open = () => {
    if (stopping) return;
    const metadata = new grpc.Metadata();
    metadata.add('authorization', `Bearer ${token}`);
    const stream = client.Play(metadata);
    state.stream = stream;
    let over = false;
    const again = (why) => {
      if (over || stopping) return;
      over = true;
      if (!isHome && Date.now() - state.lastWelcome > GIVE_UP_MS) {
        console.error(`${address}: ${why}; giving up on it`);
        sessions.delete(address);
        client.close();
        return;
      }
      console.error(`${address}: ${why}; reconnecting in ${state.delay} ms`);
      setTimeout(open, state.delay);
      state.delay = Math.min(5000, state.delay * 2);
    };
    stream.write({ hello: { bot: name, games: [], max_matches: 4, client: 'cardarena-node-example/0.2' } });
    stream.on('data', (message) => {
      if (message.kind === 'welcome') {
        state.welcomed = true;
        state.delay = 100;
        state.lastWelcome = Date.now();
      }
      handle(stream, message);
    });
    stream.on('error', (err) => {
      if (FATAL.has(err.code)) {
        console.error(`${address}: ${err.details} (status ${err.code}): not retrying${refusedHint(err)}`);
        if (isHome) stop(1);
        over = true;
        return;
      }
      if (tls && !state.welcomed && TLS_FAILURE.test(err.details || '')) {
        console.error(`${address}: TLS handshake failed: ${err.details}: not retrying`);
        if (isHome) stop(1);
        over = true;
        sessions.delete(address);
        client.close();
        return;
      }
      again(`stream error ${err.code} ${err.details}`);
    });
    stream.on('end', () => again('the server ended the stream'));
  };
  open();
}

// What to check when the server refuses the session for good.
function refusedHint(err) {
  if (err.code === grpc.status.UNAUTHENTICATED && !/replaced/.test(err.details || '')) {
    return '; check CARDARENA_TOKEN: the token `cardarena bot register NAME` printed for this service '
      + '(`cardarena bot token NAME` issues a new one)';
  }
  if (err.code === grpc.status.PERMISSION_DENIED && /belongs to/.test(err.details || '')) {
    return "; give the token's bot name as the second argument, or leave it out";
  }
  return '';
}

connect(home, true);
process.on('SIGTERM', () => stop(0));
process.on('SIGINT', () => stop(0));
