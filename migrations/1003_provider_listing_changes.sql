-- Self-service listing changes held for review (docs/providers.md): outside devnet, a change of base_url
-- or a price increase to a live listing waits here while the previous version stays live; the operator's
-- approve applies it. One pending change per provider; a newer submission replaces it. `input` is the
-- listing body as submitted, in json (not jsonb) so parameter maps keep their order when applied.
CREATE TABLE provider_listing_changes (
  provider_id text PRIMARY KEY REFERENCES providers (id) ON DELETE CASCADE,
  input json NOT NULL,
  requested_at timestamptz NOT NULL DEFAULT now()
);
