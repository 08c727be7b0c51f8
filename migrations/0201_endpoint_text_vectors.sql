-- Discovery: sentence vectors of endpoint texts (docs/discovery.md, "Sentence embeddings"), kept by
-- encoder and text hash so that every text is encoded once, not by every instance at every start (the
-- shipped encoder takes ~30 ms of CPU per endpoint text). A vector is a pure function of its text: a row
-- never changes, and two instances writing the same row is harmless (ON CONFLICT DO NOTHING).
CREATE TABLE endpoint_text_vectors (
  encoder text NOT NULL,
  text_sha256 bytea NOT NULL,
  -- Unit vector as int8 components times `scale`.
  components bytea NOT NULL,
  scale real NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (encoder, text_sha256)
);
