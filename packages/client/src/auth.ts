// Credentials: an API key, a session token, or a wallet signature (EIP-4361 challenge signed with
// EIP-191 personal_sign by a viem account, refreshed before it expires).
import { CLIENT_ERROR_CODES, SvcError } from './errors.js';

/** The part of a viem `LocalAccount` (or any signer) the client needs: viem stays an optional peer. */
export interface WalletSigner {
  address: string;
  signMessage(args: { message: string }): Promise<string>;
}

export interface Challenge {
  nonce: string;
  message: string;
  expires_at: string;
}

/** A signature is renewed this long before its challenge expires, so no request races the expiry. */
export const WALLET_REFRESH_MARGIN_MS = 5 * 60 * 1000;

export class WalletSession {
  private current: { nonce: string; signature: string; expiresAt: number } | undefined;
  private pending: Promise<void> | undefined;

  constructor(
    readonly signer: WalletSigner,
    private readonly requestChallenge: (address: string) => Promise<Challenge>,
    private readonly now: () => number = Date.now,
  ) {}

  /** The three signature headers, signing a fresh challenge first when none is valid for long enough. */
  async headers(): Promise<Record<string, string>> {
    if (!this.current || this.current.expiresAt - WALLET_REFRESH_MARGIN_MS <= this.now()) {
      // Concurrent requests share one challenge.
      this.pending ??= this.refresh().finally(() => {
        this.pending = undefined;
      });
      await this.pending;
    }
    const current = this.current;
    if (!current)
      throw new SvcError({ code: CLIENT_ERROR_CODES.auth, status: 0, message: 'wallet sign-in failed' });
    return {
      'x-svc-wallet': this.signer.address,
      'x-svc-nonce': current.nonce,
      'x-svc-signature': current.signature,
    };
  }

  /** When the current signature expires (ms since epoch), or undefined before the first request. */
  get expiresAt(): number | undefined {
    return this.current?.expiresAt;
  }

  async refresh(): Promise<void> {
    const challenge = await this.requestChallenge(this.signer.address);
    const signature = await this.signer.signMessage({ message: challenge.message });
    this.current = { nonce: challenge.nonce, signature, expiresAt: Date.parse(challenge.expires_at) };
  }
}
