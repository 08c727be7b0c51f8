-- Catalogue additions: endpoints keep the order the provider listed them in, parameter maps and
-- response schemas keep their key order (json, not jsonb: agents read them as documentation), and the
-- public list pages (and filters) by category in id order.
ALTER TABLE endpoints ADD COLUMN position integer NOT NULL DEFAULT 0;
ALTER TABLE endpoints ALTER COLUMN parameters DROP DEFAULT;
ALTER TABLE endpoints ALTER COLUMN parameters TYPE json USING parameters::json;
ALTER TABLE endpoints ALTER COLUMN parameters SET DEFAULT '{}'::json;
ALTER TABLE endpoints ALTER COLUMN response_schema TYPE json USING response_schema::json;
CREATE INDEX providers_category_idx ON providers (category, id);
