// `npm run test:unit`: the test files that need no service, build, browser or identity model
// (test/helpers/test-needs.ts reads that from their imports), with the base config's settings. The services' addresses
// point nowhere, so a file that reaches for one fails here instead of quietly using the shared instances.
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { unitTestFiles } from './test/helpers/test-needs';
import base from './vitest.config';

const NOWHERE = '127.0.0.1:1';

export default defineConfig({
  test: {
    ...base.test,
    include: unitTestFiles(dirname(fileURLToPath(import.meta.url))),
    env: {
      TEST_PG_URL: `postgres://postgres@${NOWHERE}`,
      DATABASE_URL: `postgres://postgres@${NOWHERE}/none`,
      REDIS_URL: `redis://${NOWHERE}`,
      NATS_URL: `nats://${NOWHERE}`,
    },
  },
});
