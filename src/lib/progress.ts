// A progress indicator for long steps of the command line (waiting for block confirmations): a spinner
// with the elapsed seconds, on stderr, only when stderr is a terminal and the output is not --json, so
// pipes, logs and machine-readable output never see it.
const FRAMES = ['|', '/', '-', '\\'];

export interface Progress {
  /** Clears the indicator's line. */
  stop(): void;
}

export interface ProgressStream {
  isTTY?: boolean;
  write(chunk: string): boolean;
}

export function startProgress(
  label: string,
  opts: { stream?: ProgressStream; enabled?: boolean; intervalMs?: number } = {},
): Progress {
  const stream = opts.stream ?? process.stderr;
  if (opts.enabled === false || !stream.isTTY) return { stop() {} };
  const started = Date.now();
  let frame = 0;
  const draw = () => {
    const seconds = Math.floor((Date.now() - started) / 1000);
    stream.write(`\r${FRAMES[frame++ % FRAMES.length]} ${label} (${seconds} s)\x1b[K`);
  };
  draw();
  const timer = setInterval(draw, opts.intervalMs ?? 250);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      stream.write('\r\x1b[K');
    },
  };
}
