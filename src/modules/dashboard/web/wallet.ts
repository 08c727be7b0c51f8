// Wallet signatures for sign-in and wallet links: an injected EIP-1193 wallet (window.ethereum) or, in
// devnet, the page's own dev wallet (a generated key kept in localStorage).
import { type Hex, toHex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { apiData } from './api.js';
import { devWalletKey, storeDevWalletKey } from './session.js';

interface Eip1193 {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
}

export interface Signer {
  address: string;
  signMessage(message: string): Promise<string>;
}

export function injectedProvider(): Eip1193 | null {
  const eth = (window as unknown as { ethereum?: Eip1193 }).ethereum;
  return eth && typeof eth.request === 'function' ? eth : null;
}

export async function injectedSigner(): Promise<Signer> {
  const eth = injectedProvider();
  if (!eth) throw new Error('No browser wallet found.');
  const accounts = (await eth.request({ method: 'eth_requestAccounts' })) as string[];
  const address = accounts[0];
  if (!address) throw new Error('The wallet shared no account.');
  return {
    address,
    signMessage: async (message) =>
      (await eth.request({ method: 'personal_sign', params: [toHex(message), address] })) as string,
  };
}

/** The dev wallet's account, created on first use. */
export function devAccount(create: boolean) {
  let key = devWalletKey();
  if (!key && create) {
    key = generatePrivateKey();
    storeDevWalletKey(key);
  }
  return key ? privateKeyToAccount(key) : null;
}

export function devSigner(): Signer {
  const account = devAccount(true);
  if (!account) throw new Error('No dev wallet.');
  return { address: account.address, signMessage: (message) => account.signMessage({ message }) };
}

export interface SignedChallenge {
  wallet: string;
  nonce: string;
  signature: Hex;
  expiresAt: string;
}

/** POST /v1/auth/challenge, then the wallet signs the EIP-4361 message it returns. */
export async function signChallenge(signer: Signer): Promise<SignedChallenge> {
  const challenge = await apiData<{ nonce: string; message: string; expires_at: string }>(
    'POST',
    '/v1/auth/challenge',
    { wallet_address: signer.address },
  );
  const signature = (await signer.signMessage(challenge.message)) as Hex;
  return { wallet: signer.address, nonce: challenge.nonce, signature, expiresAt: challenge.expires_at };
}
