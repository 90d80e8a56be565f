import { Writable } from 'node:stream';
import { pino } from 'pino';

export type LogLine = Record<string, unknown>;

/** A debug-level pino logger that keeps everything written to it: the raw text (`output()`) and the parsed lines. */
export function captureLogs() {
  let output = '';
  const sink = new Writable({
    write(chunk, _enc, cb) {
      output += String(chunk);
      cb();
    },
  });
  return {
    log: pino({ level: 'debug' }, sink),
    output: () => output,
    lines: (): LogLine[] =>
      output
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as LogLine),
  };
}
