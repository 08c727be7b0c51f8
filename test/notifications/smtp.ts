// A real SMTP server (smtp-server) on an ephemeral port that keeps what it receives, plus a small MIME
// reader for the multipart/alternative messages nodemailer builds. Can be stopped and started again on
// the same port to play an outage.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  envelopeFrom: string;
  envelopeTo: string[];
  headers: Record<string, string>;
  subject: string;
  text: string;
  html: string;
  raw: string;
}

export class TestSmtpServer {
  readonly received: ReceivedMail[] = [];
  /** Recipients refused with a permanent 550. */
  readonly refuse = new Set<string>();
  /** Recipients refused with a temporary 451 (greylisting). */
  readonly greylist = new Set<string>();
  private server: SMTPServer | undefined;
  port = 0;

  async start(): Promise<this> {
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['AUTH', 'STARTTLS'],
      logger: false,
      onRcptTo: (address, _session, cb) => {
        if (this.refuse.has(address.address)) {
          const err = Object.assign(new Error('mailbox unavailable'), { responseCode: 550 });
          cb(err);
          return;
        }
        if (this.greylist.has(address.address)) {
          cb(Object.assign(new Error('greylisted, try again later'), { responseCode: 451 }));
          return;
        }
        cb();
      },
      onData: (stream, session, cb) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          this.received.push({
            envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            envelopeTo: session.envelope.rcptTo.map((r) => r.address),
            ...parseMessage(raw),
            raw,
          });
          cb();
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.server.address() as AddressInfo).port;
    this.server = server;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  get url() {
    return `smtp://127.0.0.1:${this.port}`;
  }

  to(address: string): ReceivedMail[] {
    return this.received.filter((m) => m.envelopeTo.includes(address));
  }
}

function parseHeaders(block: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of block.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  return headers;
}

function splitHead(raw: string): [Record<string, string>, string] {
  const m = /\r?\n\r?\n/.exec(raw);
  if (!m) return [parseHeaders(raw), ''];
  return [parseHeaders(raw.slice(0, m.index)), raw.slice(m.index + m[0].length)];
}

function decodeBody(body: string, encoding: string | undefined): string {
  const enc = (encoding ?? '7bit').toLowerCase();
  if (enc === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (enc === 'quoted-printable') {
    const bytes = body
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-F]{2})/gi, (_m, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
    return Buffer.from(bytes, 'latin1').toString('utf8');
  }
  return body;
}

function decodeWords(value: string): string {
  return value.replace(/=\?utf-8\?([QB])\?([^?]*)\?=\s*/gi, (_m, kind: string, text: string) =>
    kind.toUpperCase() === 'B'
      ? Buffer.from(text, 'base64').toString('utf8')
      : decodeBody(text.replace(/_/g, ' '), 'quoted-printable'),
  );
}

function parseMessage(raw: string): Omit<ReceivedMail, 'envelopeFrom' | 'envelopeTo' | 'raw'> {
  const [headers, body] = splitHead(raw);
  let text = '';
  let html = '';
  const boundary = /boundary="?([^";]+)"?/i.exec(headers['content-type'] ?? '')?.[1];
  const parts = boundary ? body.split(`--${boundary}`).slice(1, -1) : [raw];
  for (const part of parts) {
    const [h, b] = splitHead(part.replace(/^\r?\n/, ''));
    const decoded = decodeBody(b.replace(/\r?\n$/, ''), h['content-transfer-encoding']).replace(
      /\r\n/g,
      '\n',
    );
    if ((h['content-type'] ?? '').startsWith('text/plain')) text = decoded;
    if ((h['content-type'] ?? '').startsWith('text/html')) html = decoded;
  }
  return { headers, subject: decodeWords(headers.subject ?? ''), text, html };
}
