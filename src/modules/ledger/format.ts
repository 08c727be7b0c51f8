// Ledger entries as API objects: the billing "ledger transaction" (docs/billing.md) and the wallet history
// entry (docs/billing.md). Amounts go through src/lib/money.ts only.
import { toIso } from '../../db/index.js';
import { creditsToSignedUsdc, creditsToUsdc } from '../../lib/money.js';
import type { LedgerEntry } from './service.js';

export interface LedgerTransaction {
  id: string;
  type: string;
  amountCredits: string;
  amountUsdc: string;
  balanceAfter: string;
  description: string;
  referenceType: string | null;
  referenceId: string | null;
  providerId: string | null;
  capabilityId: string | null;
  createdAt: string;
}

export function toLedgerTransaction(e: LedgerEntry): LedgerTransaction {
  return {
    id: e.id,
    type: e.type,
    amountCredits: e.amount_credits.toString(),
    amountUsdc: creditsToUsdc(e.amount_credits),
    balanceAfter: e.balance_after.toString(),
    description: e.description,
    referenceType: e.reference_type,
    referenceId: e.reference_id,
    providerId: e.provider_id,
    capabilityId: e.endpoint_slug,
    createdAt: toIso(e.created_at),
  };
}

export type WalletEntryType = 'call' | 'deposit' | 'refund' | 'settlement';

/** Ledger types behind each wallet history type (admin and coupon credits show as deposits). */
export const WALLET_TYPE_SOURCES: Record<WalletEntryType, string[]> = {
  call: ['debit'],
  deposit: ['deposit', 'admin_credit', 'coupon_credit'],
  refund: ['refund'],
  // A card payment refunded by the processor takes its credits back: a settlement of the account.
  settlement: ['payment_refund'],
};

export function walletTypeOf(ledgerType: string, amount: bigint): WalletEntryType {
  for (const [walletType, sources] of Object.entries(WALLET_TYPE_SOURCES)) {
    if (sources.includes(ledgerType)) return walletType as WalletEntryType;
  }
  // Entry types added later: credits read as deposits, debits as settlements.
  return amount > 0n ? 'deposit' : 'settlement';
}

export interface WalletHistoryEntry {
  id: string;
  type: WalletEntryType;
  amount_usdc: string;
  description: string;
  call_id?: string;
  provider_id?: string;
  endpoint?: string;
  tx_hash?: string;
  timestamp: string;
}

export function toWalletEntry(e: LedgerEntry): WalletHistoryEntry {
  const type = walletTypeOf(e.type, e.amount_credits);
  return {
    id: e.id,
    type,
    amount_usdc: creditsToSignedUsdc(e.amount_credits, true),
    description: e.description,
    ...(e.call_id ? { call_id: e.call_id } : {}),
    ...(e.call_id && e.provider_id ? { provider_id: e.provider_id } : {}),
    ...(e.call_id && e.endpoint_slug ? { endpoint: e.endpoint_slug } : {}),
    ...(e.tx_hash ? { tx_hash: e.tx_hash } : {}),
    timestamp: toIso(e.created_at),
  };
}
