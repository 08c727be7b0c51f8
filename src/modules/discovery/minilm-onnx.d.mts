// Types of minilm-onnx.mjs (plain JavaScript for the encoder's worker thread), for the benches and tests.
import type { WordPieceTokenizer } from './wordpiece.mjs';

export interface MiniLmEncoder {
  engine: string;
  dims: number;
  embed(texts: string[], stop?: () => boolean, late?: Float32Array[]): Promise<Float32Array>;
  tokenizer: WordPieceTokenizer;
  rows(text: string): Promise<{ ids: number[]; rows: Float32Array; projected: Float32Array }>;
}
export function loadMiniLmEncoder(runtime?: string, options?: { int8?: boolean }): Promise<MiniLmEncoder>;
