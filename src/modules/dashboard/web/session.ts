// Who the dashboard acts as. The session lives in sessionStorage (gone with the tab) and travels only in
// request headers, never in a URL. The dev wallet's key (devnet only) lives in localStorage on purpose:
// it is a throwaway test key a newcomer keeps across visits.
import type { Hex } from 'viem';

export type Session =
  | { kind: 'email'; token: string; expiresAt: string; accountId: string }
  | {
      kind: 'wallet';
      wallet: string;
      nonce: string;
      signature: string;
      expiresAt: string;
      accountId: string;
    };

const SESSION_KEY = 'svc.session';
const DEV_WALLET_KEY = 'svc.devWalletKey';

export function loadSession(): Session | null {
  const raw = sessionStorage.getItem(SESSION_KEY);
  if (!raw) return null;
  try {
    const session = JSON.parse(raw) as Session;
    return new Date(session.expiresAt).getTime() > Date.now() ? session : null;
  } catch {
    return null;
  }
}

export function saveSession(session: Session): void {
  sessionStorage.setItem(SESSION_KEY, JSON.stringify(session));
}

export function clearSession(): void {
  sessionStorage.removeItem(SESSION_KEY);
}

export function credentialHeaders(session: Session | null): Record<string, string> {
  if (!session) return {};
  if (session.kind === 'email') return { authorization: `Bearer ${session.token}` };
  return {
    'x-svc-wallet': session.wallet,
    'x-svc-nonce': session.nonce,
    'x-svc-signature': session.signature,
  };
}

export function devWalletKey(): Hex | null {
  const key = localStorage.getItem(DEV_WALLET_KEY);
  return key && /^0x[0-9a-f]{64}$/i.test(key) ? (key as Hex) : null;
}

export function storeDevWalletKey(key: Hex): void {
  localStorage.setItem(DEV_WALLET_KEY, key);
}

export function forgetDevWalletKey(): void {
  localStorage.removeItem(DEV_WALLET_KEY);
}

export function environment(): string {
  return document.querySelector('meta[name="svc-env"]')?.getAttribute('content') ?? 'production';
}
