// Piscina worker for test/identity/document.test.ts: one document reader per thread, from the build in dist/.
import { createDocumentReader } from '../../dist/identity/document/index.js';

const reader = await createDocumentReader();

export default function read(image) {
  return reader.read(new Uint8Array(image));
}
