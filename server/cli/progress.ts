/** A one-line progress display on stderr for long CLI runs (ingest, screen): shown only when stderr is a terminal,
 * so a redirected or piped stderr gets nothing but the command's own lines. */
export interface ProgressState {
  /** what is happening now ("reading lists", "screening") */
  phase: string;
  /** things done so far, with their noun ("12345 subjects") */
  count: number;
  noun: string;
  /** 0..1 when the total is known (a bar is drawn), else only the count and the elapsed time */
  fraction?: number | undefined;
}

export interface Progress {
  /** redraws at most every REDRAW_MS, and at once when the phase changes */
  update(state: ProgressState): void;
  /** draws the last state and clears the line, so the lines that follow start clean */
  end(): void;
}

const REDRAW_MS = 100;
const BAR_WIDTH = 30;

export function progressLine(state: ProgressState, elapsedMs: number): string {
  const secs = Math.floor(elapsedMs / 1000);
  const clock = `${Math.floor(secs / 60)}:${String(secs % 60).padStart(2, '0')}`;
  const count = `${state.count.toLocaleString('en-US')} ${state.noun}`;
  if (state.fraction === undefined) return `${state.phase}  ${count}  ${clock}`;
  const f = Math.min(1, Math.max(0, state.fraction));
  const filled = Math.round(f * BAR_WIDTH);
  const pct = `${Math.floor(f * 100)}%`.padStart(4);
  return `${state.phase} [${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${pct}  ${count}  ${clock}`;
}

/** Shows nothing (stderr is not a terminal, or the output itself goes to the terminal). */
export const noProgress: Progress = { update() {}, end() {} };

export function progress(stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!stream.isTTY) return noProgress;
  const started = performance.now();
  let last: ProgressState | undefined;
  let drawnAt = 0;
  let drawn = false;
  const draw = (state: ProgressState) => {
    const line = progressLine(state, performance.now() - started);
    const width = Math.max(20, (stream.columns || 80) - 1);
    stream.write(`\r\x1b[K${line.slice(0, width)}`);
    drawnAt = performance.now();
    drawn = true;
  };
  return {
    update(state) {
      const phaseChanged = state.phase !== last?.phase;
      last = state;
      if (phaseChanged || performance.now() - drawnAt >= REDRAW_MS) draw(state);
    },
    end() {
      if (last) draw(last);
      if (drawn) stream.write('\r\x1b[K');
      last = undefined;
    },
  };
}
