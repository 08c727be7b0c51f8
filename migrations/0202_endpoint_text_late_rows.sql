-- Discovery: each stored text's late-interaction rows beside its sentence vector (docs/discovery.md,
-- "Late interaction"): MiniLM's rows of the text's content tokens, projected to 96 numbers each, as int8
-- components times `late_scale`. NULL where the encoder gave none (its fallback engines, an API).
ALTER TABLE endpoint_text_vectors ADD COLUMN late_components bytea, ADD COLUMN late_scale real;
