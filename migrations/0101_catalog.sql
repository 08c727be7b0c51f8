-- Catalogue additions: endpoints keep the order the provider listed them in, and the public list pages
-- (and filters) by category in id order.
ALTER TABLE endpoints ADD COLUMN position integer NOT NULL DEFAULT 0;
CREATE INDEX providers_category_idx ON providers (category, id);
