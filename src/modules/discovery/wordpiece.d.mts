// Types of wordpiece.mjs (plain JavaScript for the encoder's worker thread), for the tests.
export class WordPieceTokenizer {
  constructor(json: {
    model: { vocab: Record<string, number>; unk_token: string; max_input_chars_per_word: number };
  });
  /** Token ids of `text`, [CLS] and [SEP] included, at most `maxTokens` of them. */
  encode(text: string, maxTokens: number): number[];
  /** The token of an id ('' for none). */
  tokenOf(id: number): string;
  readonly vocab: Map<string, number>;
}
