// Types of late-tokens.mjs (plain JavaScript for the encoder's worker thread), for the ranking and the tests.
export const MODEL_DIMS: number;
export const TOKEN_DIMS: number;
export const MAX_TOKEN_ROWS: number;
export function tokenProjection(): Float32Array;
export function contentToken(token: string): boolean;
export function lateRows(
  ids: number[],
  projected: Float32Array,
  tokenOf: (id: number) => string,
): Float32Array;
