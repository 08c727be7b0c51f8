// Runs once before the test workers start.
import { ensurePgliteTemplate } from './pglite-template.js';

export default async function setup() {
  if (!process.env.DATABASE_URL) await ensurePgliteTemplate();
}
