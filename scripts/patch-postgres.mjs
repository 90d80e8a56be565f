#!/usr/bin/env node
// Two guards for postgres.js 3.4.x, each applied once (idempotent, by its own mark); run by `npm run build` (and so by
// `npm test`, `npm start` and the Dockerfile).
// 1. Writing to a closed connection (porsager/postgres#1154, #1208; fix proposed in #1168/#1176/#1209, not released).
//    A small write is buffered behind a setImmediate; when the socket closes first, the immediate calls `socket.write`
//    on null and throws outside every promise, killing the process (seen here during a Postgres outage). The guard
//    rejects the pending queries with CONNECTION_CLOSED instead, and both teardown paths drop the stale timer and
//    buffered bytes so a reconnected socket never receives half a message from the old one. Regression test:
//    test/db/driver-closed-socket.test.ts.
// 2. A failed array-types fetch (porsager/postgres#279, #1192, #1205, #1223; open). A new connection's first statement
//    is the driver's own `pg_type` query, whose promise nobody holds: when it fails (the connection is cut or the pool
//    ended while it runs, a statement_timeout cancels it) the rejection is unhandled and the process dies. It killed
//    bench servers at start under load, when the database watchdog dropped a slow probe connection mid-fetch. The
//    guard closes that connection instead: the caller's first query already got the error, and the next query opens a
//    fresh connection that fetches the types again. Regression test: test/db/driver-types-fetch.test.ts.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const NEXT_WRITE = '/* veriscreen: guarded nextWrite */';
const TYPES_FETCH = '/* veriscreen: guarded fetchArrayTypes */';
// `postgres` exports no ./package.json; its CommonJS entry is cjs/src/index.js.
const root = dirname(dirname(dirname(createRequire(import.meta.url).resolve('postgres'))));
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** Each guard: its mark and its edits (each `from` must occur exactly once in the file). */
const guards = [
  {
    name: 'nextWrite',
    mark: NEXT_WRITE,
    edits: [
      [
        '  function nextWrite(fn) {\n    const x = socket.write(chunk, fn)',
        `  function nextWrite(fn) {\n    ${NEXT_WRITE}\n    if (!socket) {\n      nextWriteTimer !== null && clearImmediate(nextWriteTimer)\n      chunk = nextWriteTimer = null\n      error(Errors.connection('CONNECTION_CLOSED', options))\n      return false\n    }\n    const x = socket.write(chunk, fn)`,
      ],
      [
        '    clearImmediate(nextWriteTimer)\n    if (socket) {',
        '    clearImmediate(nextWriteTimer)\n    chunk = nextWriteTimer = null\n    if (socket) {',
      ],
      [
        '    clearImmediate(nextWriteTimer)\n    socket.removeListener',
        '    clearImmediate(nextWriteTimer)\n    chunk = nextWriteTimer = null\n    socket.removeListener',
      ],
    ],
  },
  {
    name: 'fetchArrayTypes',
    mark: TYPES_FETCH,
    edits: [
      [
        '        return fetchArrayTypes()\n',
        `        return fetchArrayTypes().catch(() => terminate()) ${TYPES_FETCH}\n`,
      ],
    ],
  },
];

for (const rel of ['src/connection.js', 'cjs/src/connection.js', 'cf/src/connection.js']) {
  const file = join(root, rel);
  if (!existsSync(file)) continue;
  let text = readFileSync(file, 'utf8');
  const applied = [];
  for (const guard of guards) {
    if (text.includes(guard.mark)) continue;
    for (const [from, to] of guard.edits) {
      if (text.split(from).length !== 2) {
        console.error(
          `patch-postgres: postgres ${version} ${rel} does not have the expected code for the ${guard.name} guard; check whether the fix is released`,
        );
        process.exit(1);
      }
      text = text.replace(from, to);
    }
    applied.push(guard.name);
  }
  if (applied.length) {
    writeFileSync(file, text);
    console.error(`patch-postgres: guarded ${applied.join(', ')} in ${rel} of postgres ${version}`);
  }
}
