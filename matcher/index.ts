// Public API of the matching engine.
export { compare } from './compare.js';
export { buildIndex, indexStats } from './index-build.js';
export {
  assertIndexFormat,
  assertLayoutFits,
  INDEX_FORMAT,
  IndexFormatError,
  IndexLayoutError,
} from './layout.js';
export { normalizedText, normalizeName } from './normalize.js';
export { ALGORITHMS, DEFAULT_POLICY, effectiveThreshold, resolvePolicy } from './policy.js';
export { openIndex, type Screener } from './screen.js';
export { deserializeIndex, serializeIndex } from './serialize.js';
export type * from './types.js';
