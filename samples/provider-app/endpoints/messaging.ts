// Sample Messaging Desk (communication): e-mail address checks and SMS segment counting.
import { price, type SampleEndpoint, type SampleProvider } from '../types.js';

const ROLE_ACCOUNTS = new Set([
  'admin',
  'administrator',
  'billing',
  'contact',
  'help',
  'hello',
  'info',
  'marketing',
  'no-reply',
  'noreply',
  'office',
  'postmaster',
  'sales',
  'security',
  'support',
  'team',
  'webmaster',
  'abuse',
  'hostmaster',
]);
/** Well-known mailbox providers, to suggest a fix for a near miss ("gmial.com"). */
const COMMON_DOMAINS = [
  'gmail.com',
  'yahoo.com',
  'outlook.com',
  'hotmail.com',
  'icloud.com',
  'aol.com',
  'proton.me',
  'protonmail.com',
  'gmx.com',
  'gmx.de',
  'web.de',
  'yandex.ru',
  'live.com',
  'mail.com',
  'zoho.com',
];

function editDistance(a: string, b: string): number {
  const dp = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = dp[0] as number;
    dp[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = dp[j] as number;
      dp[j] = Math.min(above + 1, (dp[j - 1] as number) + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return dp[b.length] as number;
}

const LOCAL_PART = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const LABEL = /^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$/;

/** Syntax check (RFC 5321/5322 dot-atom form, the subset real mailboxes use); no network lookups. */
export function checkEmail(email: string) {
  const text = email.trim();
  const reasons: string[] = [];
  const at = text.lastIndexOf('@');
  const local = at > 0 ? text.slice(0, at) : '';
  const domain = at > 0 ? text.slice(at + 1).toLowerCase() : '';
  if (at <= 0 || at === text.length - 1) reasons.push('must contain one @ with text on both sides');
  else {
    if (local.length > 64) reasons.push('local part longer than 64 characters');
    if (!LOCAL_PART.test(local)) reasons.push('local part has characters or dots that are not allowed');
    const labels = domain.split('.');
    if (labels.length < 2) reasons.push('domain needs a dot (e.g. example.com)');
    if (!labels.every((l) => LABEL.test(l))) reasons.push('domain has an invalid label');
    if (!/^[a-z]{2,63}$/.test(labels.at(-1) ?? '')) reasons.push('top-level domain must be 2-63 letters');
  }
  if (text.length > 254) reasons.push('longer than 254 characters');
  const near = COMMON_DOMAINS.find((d) => d !== domain && editDistance(d, domain) <= 2);
  const valid = reasons.length === 0;
  return {
    email: text,
    valid,
    normalized: valid ? `${local}@${domain}` : null,
    local_part: local || null,
    domain: domain || null,
    is_role_account: ROLE_ACCOUNTS.has(local.toLowerCase()),
    suggestion: near && domain && !COMMON_DOMAINS.includes(domain) ? `${local}@${near}` : null,
    reasons,
  };
}

const email: SampleEndpoint = {
  definition: {
    slug: 'validate-email',
    method: 'POST',
    description:
      'Check that an e-mail address is well formed before sending to it: syntax validation, normalisation, role-account detection (info@, support@) and typo suggestions for common mail domains (gmial.com -> gmail.com).',
    tags: ['email', 'validation', 'address', 'typo', 'deliverability', 'signup'],
    parameters: {
      email: { type: 'string', required: true, description: 'The address to check', maxLength: 512 },
    },
    response_schema: {
      email: { type: 'string' },
      valid: { type: 'boolean' },
      normalized: { type: 'string' },
      local_part: { type: 'string' },
      domain: { type: 'string' },
      is_role_account: { type: 'boolean' },
      suggestion: { type: 'string', description: 'Likely intended address, or null' },
      reasons: { type: 'array', items: { type: 'string' } },
    },
    pricing: price('0.002'),
  },
  handle: ({ email: address }) => checkEmail(String(address)),
};

// GSM 03.38 default alphabet; the extension table costs two septets per character.
const GSM_BASIC = new Set(
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà',
);
const GSM_EXTENDED = new Set('^{}\\[~]|€\f');

export function smsSegments(text: string) {
  const chars = [...text];
  const nonGsm = [...new Set(chars.filter((c) => !GSM_BASIC.has(c) && !GSM_EXTENDED.has(c)))];
  if (nonGsm.length === 0) {
    const units = chars.reduce((n, c) => n + (GSM_EXTENDED.has(c) ? 2 : 1), 0);
    const perSegment = units <= 160 ? 160 : 153;
    return {
      encoding: 'GSM-7',
      characters: chars.length,
      units,
      segments: units === 0 ? 1 : Math.ceil(units / perSegment),
      per_segment: perSegment,
      non_gsm_characters: [],
    };
  }
  const units = text.length; // UTF-16 code units: an emoji takes two
  const perSegment = units <= 70 ? 70 : 67;
  return {
    encoding: 'UCS-2',
    characters: chars.length,
    units,
    segments: Math.ceil(units / perSegment),
    per_segment: perSegment,
    non_gsm_characters: nonGsm,
  };
}

const sms: SampleEndpoint = {
  definition: {
    slug: 'sms-segments',
    method: 'POST',
    description:
      'Count how many SMS segments (billable text-message parts) a message needs: detects GSM-7 versus UCS-2/Unicode encoding, counts extended characters and emoji, and lists the characters that force Unicode.',
    tags: ['sms', 'text-message', 'segments', 'gsm-7', 'unicode', 'messaging', 'cost'],
    parameters: {
      text: { type: 'string', required: true, description: 'Message body', maxLength: 10000 },
    },
    response_schema: {
      encoding: { type: 'string', enum: ['GSM-7', 'UCS-2'] },
      characters: { type: 'integer' },
      units: { type: 'integer', description: 'Septets (GSM-7) or UTF-16 code units (UCS-2)' },
      segments: { type: 'integer' },
      per_segment: { type: 'integer' },
      non_gsm_characters: { type: 'array', items: { type: 'string' } },
    },
    pricing: price('0.001'),
  },
  handle: ({ text }) => smsSegments(String(text)),
};

export const messaging: SampleProvider = {
  definition: {
    provider_id: 'sample-messaging',
    name: 'Sample Messaging Desk',
    description: 'Helpers for e-mail and SMS senders: address validation and SMS segment counting, offline.',
    category: 'communication',
    tags: ['email', 'sms', 'messaging', 'offline'],
  },
  endpoints: [email, sms],
};
