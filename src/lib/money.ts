// The one module that converts between integer credits and USDC decimal strings.
// 1 credit = 0.000001 USDC. Never a float.

export const CREDITS_PER_USDC = 1_000_000n;

/** Formats credits as USDC with exactly 6 decimals, e.g. 1500000n -> "1.500000", -5n -> "-0.000005". */
export function creditsToUsdc(credits: bigint): string {
  const negative = credits < 0n;
  const abs = negative ? -credits : credits;
  const whole = abs / CREDITS_PER_USDC;
  const frac = (abs % CREDITS_PER_USDC).toString().padStart(6, '0');
  return `${negative ? '-' : ''}${whole}.${frac}`;
}

/** Like creditsToUsdc but with as few decimals as needed ("1.5", "0.000001", "3"). Wallet API style. */
export function creditsToUsdcShort(credits: bigint): string {
  const full = creditsToUsdc(credits);
  return full.replace(/\.?0+$/, '');
}

/** Signed form: "+1.500000" / "-0.002000". */
export function creditsToSignedUsdc(credits: bigint, short = false): string {
  const s = short ? creditsToUsdcShort(credits) : creditsToUsdc(credits);
  return credits < 0n ? s : `+${s}`;
}

const USDC_PATTERN = /^(0|[1-9]\d{0,11})(\.\d{1,6})?$/;

/** True for a non-negative decimal string with at most 6 decimals (no sign, no exponent). */
export function isUsdcString(value: string): boolean {
  return USDC_PATTERN.test(value);
}

/** Parses a USDC decimal string into credits; throws RangeError on anything else. */
export function usdcToCredits(value: string): bigint {
  if (!isUsdcString(value)) throw new RangeError(`not a USDC amount: ${value}`);
  const [whole = '0', frac = ''] = value.split('.');
  return BigInt(whole) * CREDITS_PER_USDC + BigInt(frac.padEnd(6, '0'));
}

/** Parses a JSON number USDC amount (discovery filters) into credits, rounding to the nearest credit. */
export function usdcNumberToCredits(value: number): bigint {
  return BigInt(Math.round(value * 1_000_000));
}
