-- The deposit watcher runs on one instance at a time: a lease on its cursor row (owner + expiry), taken
-- and renewed with a conditional UPDATE, so a crashed runner's lease simply runs out.
ALTER TABLE chain_cursors ADD COLUMN lease_owner text;
ALTER TABLE chain_cursors ADD COLUMN lease_until timestamptz;
