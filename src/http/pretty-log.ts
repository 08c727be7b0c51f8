// Readable log lines for a person at a terminal (devnet, stdout a TTY): pino still writes its JSON line,
// this destination turns it into `12:03:04.567 INFO  POST /v1/execute/:providerId/:endpointSlug 200 3.1 ms
// req_… acc_…` plus any other fields as key=value. No worker thread and no dependency: it runs only where
// a person reads the output, never in production, where the JSON goes to the log shipper as it is.

const LEVELS: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO ',
  40: 'WARN ',
  50: 'ERROR',
  60: 'FATAL',
};
const COLOURS: Record<number, string> = { 40: '\x1b[33m', 50: '\x1b[31m', 60: '\x1b[31m' };
const DIM = '\x1b[2m';
const RESET = '\x1b[0m';
/** Fields shown in the line's fixed part, or not at all. */
const SHOWN = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'reqId', 'err']);
const ACCESS = new Set(['method', 'route', 'status', 'ms', 'account']);

function clock(time: unknown): string {
  const d = new Date(typeof time === 'number' ? time : Date.now());
  return d.toISOString().slice(11, 23);
}

function value(v: unknown): string {
  return typeof v === 'string' ? (/\s/.test(v) ? JSON.stringify(v) : v) : JSON.stringify(v);
}

/** One JSON log line as a readable line (returned unchanged when it is not JSON). */
export function formatLogLine(line: string, colour: boolean): string {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.endsWith('\n') ? line : `${line}\n`;
  }
  const level = Number(o.level);
  const paint = (s: string, c: string | undefined) => (colour && c ? `${c}${s}${RESET}` : s);
  const parts = [paint(clock(o.time), DIM), paint(LEVELS[level] ?? String(o.level), COLOURS[level])];
  const isAccess = o.msg === 'request' && o.route !== undefined;
  if (isAccess) {
    parts.push(`${o.method} ${o.route} ${o.status} ${o.ms} ms`);
    if (o.account) parts.push(String(o.account));
  } else parts.push(String(o.msg ?? ''));
  for (const [k, v] of Object.entries(o)) {
    if (SHOWN.has(k) || (isAccess && ACCESS.has(k)) || v === undefined) continue;
    parts.push(paint(`${k}=${value(v)}`, DIM));
  }
  if (o.reqId) parts.push(paint(String(o.reqId), DIM));
  let out = parts.join(' ');
  const err = o.err as { stack?: string; message?: string } | undefined;
  if (err) out += `\n  ${(err.stack || err.message || '').split('\n').join('\n  ')}`;
  return `${out}\n`;
}

/** A pino destination that prints readable lines on `out` (a terminal). */
export function prettyLogStream(out: NodeJS.WriteStream = process.stdout): { write(line: string): void } {
  const colour = out.hasColors?.() ?? false;
  return { write: (line: string) => void out.write(formatLogLine(line, colour)) };
}
