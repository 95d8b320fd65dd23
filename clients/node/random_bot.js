// A cardarena bot in Node.js: plays a random legal action for every request.
// Usage: CARDARENA_TOKEN=... node random_bot.js [--tls] [--ca-cert FILE] [--client-cert FILE --client-key FILE]
//        [host:port] [bot-name]   (see README.md)
// It loads proto/cardarena/v1/arena.proto (the same files the server is generated from).
//
// What every bot has to do, in any language (docs/protocol.md):
// - send Hello first, then answer each ActionRequest with an Action carrying its match_id and seq
//   (again after an ActionRejected REJECT_ILLEGAL_ACTION with time left), or, when the bot cannot
//   answer it (its code failed), with a HandBack (the server plays a default action at once);
// - answer Ping with Pong;
// - reconnect with back-off whenever the stream ends, cleanly or not (a server shutting down ends
//   it with status OK; the live matches are resumed, or replayed elsewhere), except on a status
//   that will not change (UNAUTHENTICATED, PERMISSION_DENIED, INVALID_ARGUMENT);
// - follow MatchInvite: open a session to the address given (the same token), because the match
//   is hosted by another service instance.
'use strict';

// The bot itself: return the id of one of `legal` for the seat whose `view` is given. Adapting
// this example into your own bot means changing this function.
// - view: the game's view_json keys (docs/games/<game>.md), e.g. Glaves' `hand`, `trick`, `seat`;
// - legal: the legal actions, each {id, kind, label, cards, amount, target, choice}; answer with
//   an `id` (`play:QH`), not the card (`QH`);
// - rejected: null, or {answer, reason} when the server refused this request's previous answer
//   as illegal (the bot is asked again while its clock runs).
// An exception here is printed with its stack and the request is handed back (HandBack): the
// server plays a default action for it at once (a fault, as a timeout is).
function choose(view, legal, rejected) {
  return legal[Math.floor(Math.random() * legal.length)].id;
}

// Called when a match this bot played ends (MatchEnd), with how it ended for the bot; adapt it
// to keep your own statistics. `result` has the proto's fields plus the bot's seats:
// - match_id; status: 'completed' (the result is recorded), 'voided' (nothing counts; the
//   match is played again) or 'aborted' (stopped at its action limit: a no contest, not played
//   again), reason: why it was voided or aborted ('' when completed);
// - seats: the seats this bot held (usually one; a bot seated twice holds two);
// - scores, ranks: per seat in table order (ranks: 1 = first, tied seats share a place,
//   forfeiting seats rank last; both empty unless completed); forfeited: the seats that forfeited;
// - place: this bot's place (its best one if it held several seats), null unless completed.
// The default prints one line. An exception here is printed with its stack; the bot plays on.
function onResult(result) {
  console.log(JSON.stringify({
    match_end: result.match_id, status: result.status, reason: result.reason, seats: result.seats,
    place: result.place, scores: result.scores, ranks: result.ranks,
  }));
}

const fs = require('fs');
const net = require('net');
const path = require('path');
const tls = require('tls');
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
// certificate instead (a private CA or a self-signed certificate; implies --tls);
// --client-cert FILE --client-key FILE: present this client certificate, for a service that
// requires one (mutual TLS, `cardarena service --tls-client-ca`; implies --tls). Every session
// (reconnects, invited addresses) uses the same files, read again for each connection attempt:
// a certificate rotated on disk is presented from the next reconnect on.
function usage(message) {
  console.error(message);
  process.exit(2);
}

const positional = [];
const files = {}; // flag -> path
let useTls = false;
for (let i = 2; i < process.argv.length; i += 1) {
  const arg = process.argv[i];
  if (arg === '--tls') {
    useTls = true;
  } else if (['--ca-cert', '--client-cert', '--client-key'].includes(arg)) {
    i += 1;
    files[arg] = process.argv[i];
    useTls = true;
  } else {
    positional.push(arg);
  }
}
if (Boolean(files['--client-cert']) !== Boolean(files['--client-key'])) {
  usage(files['--client-cert'] ? '--client-cert needs --client-key as well (both or neither)'
    : '--client-key needs --client-cert as well (both or neither)');
}

// The TLS files as they are now, checked: {ca, cert, key} (PEM buffers, null when not given).
// Throws an Error naming the file that cannot be used.
function readTls() {
  const read = (flag) => {
    if (!files[flag]) return null;
    try {
      return fs.readFileSync(files[flag]);
    } catch (err) {
      throw new Error(`${flag} ${files[flag]}: ${err.message}`);
    }
  };
  const pems = { ca: read('--ca-cert'), cert: read('--client-cert'), key: read('--client-key') };
  if (pems.cert) {
    try {
      tls.createSecureContext({ cert: pems.cert, key: pems.key });
    } catch (err) {
      const why = /KEY_VALUES_MISMATCH/i.test(`${err.code} ${err.message}`)
        ? 'the key does not match the certificate' : `not a valid PEM certificate and key (${err.message})`;
      throw new Error(`--client-cert ${files['--client-cert']} / --client-key ${files['--client-key']}: ${why}`);
    }
  }
  return pems;
}

let pems = { ca: null, cert: null, key: null }; // as last read (the TLS probes present the same)
try {
  pems = readTls();
} catch (err) {
  usage(err.message);
}

// The channel credentials of one connection attempt, from the files as they are now.
function credentialsNow() {
  if (!useTls) return grpc.credentials.createInsecure();
  pems = readTls();
  return grpc.credentials.createSsl(pems.ca, pems.key, pems.cert);
}
const home = positional[0] || '127.0.0.1:50051';
const name = positional[1] || '';
const token = process.env.CARDARENA_TOKEN;
if (!token) {
  console.error('set CARDARENA_TOKEN');
  process.exit(2);
}
const exitAfter = Number(process.env.CARDARENA_EXIT_AFTER_MATCHES || 0);
// This code's version label, recorded by the service with each match the bot plays (at most 64
// printable characters; '' for none): bump it when you change the bot, or set CARDARENA_VERSION.
const VERSION = process.env.CARDARENA_VERSION ?? 'random-node-1';
const FATAL = new Set([grpc.status.UNAUTHENTICATED, grpc.status.PERMISSION_DENIED, grpc.status.INVALID_ARGUMENT]);
const GIVE_UP_MS = 60000; // an invited address that stays unreachable this long is given up
// A failed TLS handshake (an untrusted certificate, one for another host, a port without TLS) is a
// setting a retry cannot fix: fatal at an address that never welcomed this bot, retried after.
const TLS_FAILURE = /certificate|handshake|ssl|tls|wrong version|self.signed|altnames/i;
const CERTIFICATE_REFUSED = files['--client-cert']
  ? 'the server did not accept the client certificate (it must be signed by the CA the service trusts and be valid now)'
  : 'the server requires a client certificate (mutual TLS: pass --client-cert FILE --client-key FILE)';

const sessions = new Map(); // address -> { stream }
const seated = new Map(); // match id -> the seats this bot holds in it (from MatchStart)
let ended = 0;
let stopping = false;

function stop(code) {
  stopping = true;
  for (const { stream } of sessions.values()) {
    if (stream) stream.end();
  }
  process.exit(code);
}

// A google.protobuf.Value as proto-loader decodes it ({kind: 'numberValue', numberValue: 3}) as plain JSON.
function plainValue(value) {
  switch (value.kind) {
    case 'structValue': return plainStruct(value.structValue);
    case 'listValue': return (value.listValue.values || []).map(plainValue);
    case 'nullValue': return null;
    default: return value.kind ? value[value.kind] : null;
  }
}

function plainStruct(struct) {
  const out = {};
  for (const [key, value] of Object.entries(struct.fields || {})) out[key] = plainValue(value);
  return out;
}

// The seat's view with the game's view_json keys. The View oneof's set member is named by
// `view.view`: the game id for a game with a typed view message, or `generic` (a
// google.protobuf.Struct, made plain JSON here) for a game without one (docs/protocol.md, Views).
function viewJson(view) {
  if (!view.view) {
    // A oneof member this copy of proto/ does not define: a game added to the server later.
    throw new Error('the view is of a game this bot\'s proto/ files do not know: update proto/ from the server\'s release');
  }
  return view.view === 'generic' ? plainStruct(view.generic) : view[view.view];
}

// The open requests (`match_id/seq` -> {request, answer}), to ask the bot again after a rejection.
const asked = new Map();

// Answer `request` with choose() (`rejected`: why its previous answer was refused, or null).
function answer(stream, request, rejected) {
  const key = `${request.match_id}/${request.seq}`;
  let id;
  try {
    id = choose(viewJson(request.view), request.legal, rejected);
  } catch (err) {
    if (stream.handBack) {
      console.error(`choose threw in ${key}: handed back; the server plays a default action now\n${err.stack}`);
      stream.write({ hand_back: { match_id: request.match_id, seq: request.seq } });
    } else { // a server without HandBack: it plays a default once the clock runs out
      console.error(`choose threw in ${key}: no answer sent; the move times out\n${err.stack}`);
    }
    return;
  }
  asked.set(key, { request, answer: id });
  stream.write({ action: { match_id: request.match_id, seq: request.seq, action_id: String(id) } });
}

function handle(stream, message) {
  switch (message.kind) {
    case 'welcome':
      stream.handBack = message.welcome.hand_back; // the server takes HandBack
      console.log(JSON.stringify({ connected: message.welcome.instance, resumed: message.welcome.resumed }));
      break;
    case 'action_request':
      answer(stream, message.action_request, null);
      break;
    case 'action_rejected': {
      const r = message.action_rejected;
      const open = asked.get(`${r.match_id}/${r.seq}`);
      const again = r.code === 'REJECT_ILLEGAL_ACTION' && open && (r.move_ms_left > 0 || r.bank_ms_left > 0);
      console.error(`rejected in ${r.match_id}/${r.seq}: ${r.reason}${again ? '; asking choose again' : ''}`);
      if (again) answer(stream, open.request, { answer: open.answer, reason: r.reason });
      break;
    }
    case 'ping':
      stream.write({ pong: { nonce: message.ping.nonce } });
      break;
    case 'match_invite':
      if (message.match_invite.address) connect(message.match_invite.address, false);
      break;
    case 'match_start': {
      const start = message.match_start;
      if (!seated.has(start.match_id)) seated.set(start.match_id, new Set());
      seated.get(start.match_id).add(start.seat);
      break;
    }
    case 'match_end': {
      const end = message.match_end;
      for (const key of asked.keys()) {
        if (key.startsWith(`${end.match_id}/`)) asked.delete(key);
      }
      const seats = [...(seated.get(end.match_id) || [])].sort((a, b) => a - b);
      seated.delete(end.match_id);
      const mine = seats.filter((seat) => seat < end.ranks.length).map((seat) => end.ranks[seat]);
      const result = {
        match_id: end.match_id,
        status: end.status,
        reason: end.reason,
        seats,
        scores: end.scores,
        ranks: end.ranks,
        forfeited: end.forfeited,
        place: end.status === 'completed' && mine.length ? Math.min(...mine) : null,
      };
      try {
        onResult(result);
      } catch (err) {
        console.error(`onResult threw in ${end.match_id}: the bot plays on\n${err.stack}`);
      }
      ended += 1;
      if (exitAfter && ended >= exitAfter) stop(0);
      break;
    }
    default: // event: a random bot needs none
      break;
  }
}

const MAX_DELAY_MS = 5000; // the longest wait between reconnects

// One address: a session, opened again with back-off whenever it ends. The home address is
// kept for ever; an invited one is given up once unreachable for GIVE_UP_MS.
function connect(address, isHome) {
  if (sessions.has(address)) return;
  let client = null; // a new one per attempt: the TLS files are read again for each
  const state = { stream: null, delay: 100, lastWelcome: Date.now(), welcomed: false };
  sessions.set(address, state);
  const close = () => {
    if (client) client.close();
    client = null;
  };
  let open = null;
  // Wait and open again; only a session that lasted (welcomed at `welcomedAt`) starts the
  // back-off again: a server that ends every session right after its welcome is not
  // reconnected to ten times a second.
  const retry = (why, welcomedAt) => {
    if (stopping) return;
    if (welcomedAt && Date.now() - welcomedAt >= MAX_DELAY_MS) state.delay = 100;
    if (!isHome && Date.now() - state.lastWelcome > GIVE_UP_MS) {
      console.error(`${address}: ${why}; giving up on it`);
      sessions.delete(address);
      close();
      return;
    }
    console.error(`${address}: ${why}; reconnecting in ${state.delay} ms`);
    setTimeout(open, state.delay);
    state.delay = Math.min(MAX_DELAY_MS, state.delay * 2);
  };
  open = () => {
    if (stopping) return;
    close();
    try {
      client = new v1.Arena(address, credentialsNow());
    } catch (err) { // a rotation half done, or a broken file: tried again after the back-off
      retry(`not connecting: a TLS file cannot be used (${err.message})`, 0);
      return;
    }
    const metadata = new grpc.Metadata();
    metadata.add('authorization', `Bearer ${token}`);
    const stream = client.Play(metadata);
    state.stream = stream;
    let over = false;
    let welcomedHere = false;
    let welcomedAt = 0;
    const again = (why) => {
      if (over || stopping) return;
      over = true;
      retry(why, welcomedAt);
    };
    const handshakeFailed = (why) => {
      console.error(`${address}: TLS handshake failed: ${why}: not retrying`);
      if (isHome) stop(1);
      over = true;
      sessions.delete(address);
      close();
    };
    const clientName = 'cardarena-node-example/0.2';
    stream.write({ hello: { bot: name, games: [], max_matches: 4, client: clientName, version: VERSION } });
    stream.on('data', (message) => {
      if (message.kind === 'welcome') {
        state.welcomed = true;
        welcomedHere = true;
        welcomedAt = Date.now();
        state.lastWelcome = welcomedAt;
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
      if (useTls && !state.welcomed && TLS_FAILURE.test(err.details || '')) {
        handshakeFailed(err.details);
        return;
      }
      if (!useTls && !state.welcomed && err.code === grpc.status.UNAVAILABLE) {
        over = true; // decided once a bare TLS handshake there has been tried
        servesTls(address).then((tlsPort) => {
          if (!tlsPort) {
            retry(`stream error ${err.code} ${err.details}`, welcomedAt);
            return;
          }
          console.error(`${address}: the service serves TLS on this port: connect with --tls (add --ca-cert FILE `
            + 'for a private CA or a self-signed certificate): not retrying');
          if (isHome) stop(1);
          sessions.delete(address);
          close();
        });
        return;
      }
      if (useTls && !welcomedHere && err.code === grpc.status.UNAVAILABLE) {
        over = true; // decided once the server has been asked about the client certificate
        certificateRefused(address).then((refused) => {
          if (!refused) retry(`stream error ${err.code} ${err.details}`, welcomedAt);
          else if (!state.welcomed) handshakeFailed(CERTIFICATE_REFUSED);
          else retry(`TLS handshake failed: ${CERTIFICATE_REFUSED}`, welcomedAt);
        });
        return;
      }
      again(`stream error ${err.code} ${err.details}`);
    });
    stream.on('end', () => again('the server ended the stream'));
  };
  open();
}

// A gRPC server that requires client certificates refuses one (none, or one its CA did not sign)
// by closing the connection right after the TLS 1.3 handshake, without an alert, and grpc-js
// only says it could not connect. Ask once more with a bare TLS connection: a server that accepts
// the certificate starts HTTP/2 at once; one that refuses it closes before its first byte.
function certificateRefused(address) {
  return tlsProbe(address).then((p) => p.handshaken && !p.answered && !p.timedOut);
}

// A plaintext client of a port that serves TLS also only hears that it could not connect, as
// from a server going away: a port that completes a bare TLS handshake serves TLS.
function servesTls(address) {
  return tlsProbe(address).then((p) => p.handshaken);
}

// One bare TLS connection to `address` (the server's certificate not checked, this client's
// presented): whether the handshake completed, and whether the server then sent a byte.
function tlsProbe(address) {
  const at = address.lastIndexOf(':');
  const host = address.slice(0, at).replace(/^\[(.*)\]$/, '$1');
  return new Promise((resolve) => {
    let handshaken = false;
    let answered = false;
    let timedOut = false;
    const socket = tls.connect({
      host,
      port: Number(address.slice(at + 1)),
      servername: net.isIP(host) ? '' : host,
      ALPNProtocols: ['h2'],
      rejectUnauthorized: false, // only the server's verdict on this client's certificate matters
      key: pems.key || undefined,
      cert: pems.cert || undefined,
    });
    socket.setTimeout(5000, () => {
      timedOut = true;
      socket.destroy();
    });
    socket.on('secureConnect', () => { handshaken = true; });
    socket.on('data', () => {
      answered = true;
      socket.destroy();
    });
    socket.on('error', () => {});
    socket.on('close', () => resolve({ handshaken, answered, timedOut }));
  });
}

// What to check when the server refuses the session for good.
function refusedHint(err) {
  if (err.code === grpc.status.UNAUTHENTICATED && !/replaced|deleted/.test(err.details || '')) {
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
