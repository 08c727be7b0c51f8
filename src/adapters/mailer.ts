// The mailer adapter, wired once at start (src/deps.ts): SMTP through nodemailer when SMTP_URL is set,
// otherwise the outbox mode, which writes each message as an .eml file under <data dir>/outbox/ so a
// newcomer can open what would have been sent.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { Config } from '../config.js';

export interface MailMessage {
  /** Stable Message-ID so a receiver can drop a redelivered copy. */
  messageId: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Notification kind, sent as `X-Svc-Notification`. */
  kind: string;
}

export interface Mailer {
  mode: 'smtp' | 'outbox';
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/** The SMTP reply code of a failed send (4xx/5xx), or undefined when no server answered (connection). */
export function smtpReplyCode(err: unknown): number | undefined {
  const code = (err as { responseCode?: unknown } | null)?.responseCode;
  return typeof code === 'number' && code >= 400 && code < 600 ? code : undefined;
}

export function createMailer(config: Config): Mailer {
  return config.smtpUrl ? smtpMailer(config, config.smtpUrl) : outboxMailer(config);
}

function envelope(config: Config, m: MailMessage) {
  return {
    from: config.mailFrom,
    to: m.to,
    subject: m.subject,
    text: m.text,
    html: m.html,
    messageId: m.messageId,
    headers: { 'X-Svc-Notification': m.kind },
  };
}

function smtpMailer(config: Config, url: string): Mailer {
  // URL query parameters are nodemailer options and win over these (e.g. `?ignoreTLS=true`,
  // `?tls.rejectUnauthorized=false`, `?pool=false`). A small connection pool reuses SMTP sessions across
  // mails (one connection per mail costs a handshake each). Short timeouts keep a dead server from holding
  // a claimed row for long; the row is retried later.
  const transport = nodemailer.createTransport({
    url,
    pool: true,
    maxConnections: 2,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  });
  return {
    mode: 'smtp',
    async send(m) {
      await transport.sendMail(envelope(config, m));
    },
    close() {
      transport.close();
    },
  };
}

function outboxMailer(config: Config): Mailer {
  const dir = path.join(config.dataDir, 'outbox');
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    mode: 'outbox',
    async send(m) {
      const info = await transport.sendMail(envelope(config, m));
      mkdirSync(dir, { recursive: true });
      const id = m.messageId.replace(/^<|@.*$/g, '');
      const file = path.join(dir, `${id}-${m.kind}.eml`);
      // Write then rename, so a reader never sees half a message.
      writeFileSync(`${file}.tmp`, info.message as Buffer);
      renameSync(`${file}.tmp`, file);
    },
    close() {
      transport.close();
    },
  };
}
