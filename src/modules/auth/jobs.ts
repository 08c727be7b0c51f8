// Housekeeping of sign-in state. Plain idempotent deletes: safe on any number of instances at once.
import { sql } from 'drizzle-orm';
import { rows } from '../../db/index.js';
import type { BackgroundJob } from '../../jobs/runner.js';

/** Expired state is kept a day (login codes count toward the per-address cap meanwhile), then deleted. */
const KEEP_EXPIRED_MS = 24 * 60 * 60 * 1000;

export const purgeSignInStateJob: BackgroundJob = {
  name: 'auth.purge-sign-in-state',
  intervalMs: 60 * 60 * 1000,
  async run(deps) {
    const cutoff = new Date(deps.clock.now().getTime() - KEEP_EXPIRED_MS).toISOString();
    const nonces = await rows(
      deps.db.orm,
      sql`DELETE FROM auth_wallet_nonces WHERE expires_at < ${cutoff}::timestamptz RETURNING nonce`,
    );
    const codes = await rows(
      deps.db.orm,
      sql`DELETE FROM auth_login_codes WHERE expires_at < ${cutoff}::timestamptz RETURNING id`,
    );
    return nonces.length + codes.length;
  },
};
