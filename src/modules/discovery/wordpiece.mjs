// BERT's uncased WordPiece tokenizer, as Hugging Face's `tokenizers` runs it from a tokenizer.json
// (BertNormalizer with lowercasing, BertPreTokenizer, WordPiece, [CLS] … [SEP]). Plain JavaScript, for
// the encoder's worker thread (minilm-onnx.mjs).

const CHINESE = [
  [0x4e00, 0x9fff],
  [0x3400, 0x4dbf],
  [0x20000, 0x2a6df],
  [0x2a700, 0x2b73f],
  [0x2b740, 0x2b81f],
  [0x2b820, 0x2ceaf],
  [0xf900, 0xfaff],
  [0x2f800, 0x2fa1f],
];
const isChinese = (cp) => CHINESE.some(([from, to]) => cp >= from && cp <= to);
const isWhitespace = (ch) => ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r' || /\p{Zs}/u.test(ch);
const isControl = (ch) => !isWhitespace(ch) && /\p{C}/u.test(ch);
/** ASCII symbols count as punctuation for BERT, as does every Unicode punctuation category. */
const isPunctuation = (ch) => {
  const cp = ch.codePointAt(0);
  return (cp >= 33 && cp <= 47) ||
    (cp >= 58 && cp <= 64) ||
    (cp >= 91 && cp <= 96) ||
    (cp >= 123 && cp <= 126)
    ? true
    : /\p{P}/u.test(ch);
};

export class WordPieceTokenizer {
  /** @param {{model: {vocab: Record<string, number>, unk_token: string, max_input_chars_per_word: number}}} json */
  constructor(json) {
    this.vocab = new Map(Object.entries(json.model.vocab));
    this.unknown = this.idOf(json.model.unk_token);
    this.maxWordChars = json.model.max_input_chars_per_word;
    this.first = this.idOf('[CLS]');
    this.last = this.idOf('[SEP]');
  }

  /** The token of an id (the vocabulary read backwards, built on first use). */
  tokenOf(id) {
    this.tokens ??= [...this.vocab.keys()].reduce((all, token) => {
      all[this.vocab.get(token)] = token;
      return all;
    }, []);
    return this.tokens[id] ?? '';
  }

  idOf(token) {
    const id = this.vocab.get(token);
    if (id === undefined) throw new Error(`token ${token} missing from the vocabulary`);
    return id;
  }

  /** Lowercased, accents stripped, controls dropped, whitespace made spaces, CJK characters spaced out. */
  normalise(text) {
    let out = '';
    for (const ch of text) {
      const cp = ch.codePointAt(0);
      if (cp === 0 || cp === 0xfffd || isControl(ch)) continue;
      if (isWhitespace(ch)) out += ' ';
      else if (isChinese(cp)) out += ` ${ch} `;
      else out += ch;
    }
    return out
      .normalize('NFD')
      .replace(/\p{Mn}/gu, '')
      .toLowerCase();
  }

  /** Words split at whitespace, each punctuation character a word of its own. */
  words(text) {
    const words = [];
    let word = '';
    for (const ch of this.normalise(text)) {
      if (isWhitespace(ch) || isPunctuation(ch)) {
        if (word) words.push(word);
        word = '';
        if (!isWhitespace(ch)) words.push(ch);
      } else word += ch;
    }
    if (word) words.push(word);
    return words;
  }

  /** Longest known prefix first, the rest as "##" pieces; a word with an unknown piece is [UNK]. */
  pieces(word, into) {
    const chars = [...word];
    if (chars.length > this.maxWordChars) return into.push(this.unknown);
    const ids = [];
    for (let start = 0; start < chars.length; ) {
      let end = chars.length;
      let id;
      for (; end > start; end--) {
        id = this.vocab.get((start > 0 ? '##' : '') + chars.slice(start, end).join(''));
        if (id !== undefined) break;
      }
      if (end === start) return into.push(this.unknown);
      ids.push(id);
      start = end;
    }
    into.push(...ids);
  }

  /** Token ids of `text`, [CLS] and [SEP] included, at most `maxTokens` of them (the rest is cut). */
  encode(text, maxTokens) {
    const ids = [];
    for (const word of this.words(text)) {
      this.pieces(word, ids);
      if (ids.length >= maxTokens - 2) break;
    }
    return [this.first, ...ids.slice(0, maxTokens - 2), this.last];
  }
}
