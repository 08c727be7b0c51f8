// Bundles the browser app (web/) with esbuild in memory, once per app and on first request, so `npm start`
// needs no build step and the served code always matches the source (docs/dashboard.md, "Build").
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export interface DashboardAssets {
  /** file name (app.js, app.css) → contents */
  files: Map<string, Uint8Array>;
}

const WEB_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'web');

export async function bundleDashboard(): Promise<DashboardAssets> {
  const result = await build({
    entryPoints: { app: path.join(WEB_DIR, 'main.ts'), style: path.join(WEB_DIR, 'style.css') },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    outdir: '/dashboard-assets',
    write: false,
    logLevel: 'silent',
  });
  const files = new Map<string, Uint8Array>();
  for (const file of result.outputFiles) files.set(path.basename(file.path), file.contents);
  return { files };
}
