// A cardarena bot in Node.js: plays a random legal action for every request.
// Usage: CARDARENA_TOKEN=... node random_bot.js [host:port] [bot-name]
// It loads proto/cardarena/v1/arena.proto (the same files the server is generated from).
'use strict';
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

const address = process.argv[2] || '127.0.0.1:50051';
const name = process.argv[3] || '';
const token = process.env.CARDARENA_TOKEN;
if (!token) {
  console.error('set CARDARENA_TOKEN');
  process.exit(2);
}
const exitAfter = Number(process.env.CARDARENA_EXIT_AFTER_MATCHES || 0);

const client = new v1.Arena(address, grpc.credentials.createInsecure());
const metadata = new grpc.Metadata();
metadata.add('authorization', `Bearer ${token}`);
const stream = client.Play(metadata);
let ended = 0;

stream.write({ hello: { bot: name, games: [], max_matches: 4, client: 'cardarena-node-example/0.1' } });
stream.on('data', (message) => {
  switch (message.kind) {
    case 'action_request': {
      const request = message.action_request;
      const pick = request.legal[Math.floor(Math.random() * request.legal.length)];
      stream.write({ action: { match_id: request.match_id, seq: request.seq, action_id: pick.id } });
      break;
    }
    case 'ping':
      stream.write({ pong: { nonce: message.ping.nonce } });
      break;
    case 'match_end':
      ended += 1;
      console.log(JSON.stringify({ match_end: message.match_end.match_id, status: message.match_end.status }));
      if (exitAfter && ended >= exitAfter) {
        stream.end();
        process.exit(0);
      }
      break;
    default:
      break;
  }
});
stream.on('error', (err) => {
  console.error(`stream error: ${err.code} ${err.details}`);
  process.exit(1);
});
process.on('SIGTERM', () => { stream.end(); process.exit(0); });
