// USDC decimal strings ↔ integer credits (1 credit = 0.000001 USDC), exact with bigint.

export function usdcToCredits(usdc: string): bigint {
  const match = /^(-)?(\d+)(?:\.(\d{1,6}))?$/.exec(usdc.trim());
  if (!match) throw new RangeError(`not a USDC amount with at most 6 decimals: ${usdc}`);
  const credits = BigInt(match[2] ?? '0') * 1_000_000n + BigInt((match[3] ?? '').padEnd(6, '0'));
  return match[1] ? -credits : credits;
}

export function creditsToUsdc(credits: bigint): string {
  const sign = credits < 0n ? '-' : '';
  const abs = credits < 0n ? -credits : credits;
  return `${sign}${abs / 1_000_000n}.${(abs % 1_000_000n).toString().padStart(6, '0')}`;
}
