#!/usr/bin/env node
// Guards postgres.js 3.4.x against writing to a closed connection (porsager/postgres#1154, #1208; fix proposed in
// #1168/#1176/#1209, not released). A small write is buffered behind a setImmediate; when the socket closes first,
// the immediate calls `socket.write` on null and throws outside every promise, killing the process (seen here during a
// Postgres outage). The guard rejects the pending queries with CONNECTION_CLOSED instead, and both teardown paths
// drop the stale timer and buffered bytes so a reconnected socket never receives half a message from the old one.
// Idempotent; run by `npm run build` (and so by `npm test`, `npm start` and the Dockerfile). Regression test:
// test/db/driver-closed-socket.test.ts.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const MARK = '/* veriscreen: guarded nextWrite */';
// `postgres` exports no ./package.json; its CommonJS entry is cjs/src/index.js.
const root = dirname(dirname(dirname(createRequire(import.meta.url).resolve('postgres'))));
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

const edits = [
  [
    '  function nextWrite(fn) {\n    const x = socket.write(chunk, fn)',
    `  function nextWrite(fn) {\n    ${MARK}\n    if (!socket) {\n      nextWriteTimer !== null && clearImmediate(nextWriteTimer)\n      chunk = nextWriteTimer = null\n      error(Errors.connection('CONNECTION_CLOSED', options))\n      return false\n    }\n    const x = socket.write(chunk, fn)`,
  ],
  [
    '    clearImmediate(nextWriteTimer)\n    if (socket) {',
    '    clearImmediate(nextWriteTimer)\n    chunk = nextWriteTimer = null\n    if (socket) {',
  ],
  [
    '    clearImmediate(nextWriteTimer)\n    socket.removeListener',
    '    clearImmediate(nextWriteTimer)\n    chunk = nextWriteTimer = null\n    socket.removeListener',
  ],
];

let changed = 0;
for (const rel of ['src/connection.js', 'cjs/src/connection.js', 'cf/src/connection.js']) {
  const file = join(root, rel);
  if (!existsSync(file)) continue;
  let text = readFileSync(file, 'utf8');
  if (text.includes(MARK)) continue;
  for (const [from, to] of edits) {
    if (text.split(from).length !== 2) {
      console.error(
        `patch-postgres: postgres ${version} ${rel} does not have the expected code; check whether the fix is released`,
      );
      process.exit(1);
    }
    text = text.replace(from, to);
  }
  writeFileSync(file, text);
  changed++;
}
if (changed > 0)
  console.error(`patch-postgres: guarded nextWrite in ${changed} file(s) of postgres ${version}`);
