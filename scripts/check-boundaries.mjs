#!/usr/bin/env node
// Module boundaries (docs/architecture.md), checked by `npm run lint`:
// 1. Code outside src/modules/<name>/ imports that module only through its index.ts.
// 2. No import cycle between modules (type-only imports included: a cycle of types is still a cycle of
//    knowledge).
// 3. Plumbing (db, http, errors, lib, config, jobs, adapters, deps) imports no module at all, and no module
//    imports the wiring (app, server, cli, cli-admin, wiring): layers point down.
// Prints every violation and exits 1 if there is any; `--stats` prints the counts only.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');
const src = join(root, 'src');
const PLUMBING = ['db', 'http', 'errors', 'lib', 'config.ts', 'jobs', 'adapters', 'deps.ts'];
const WIRING = ['app.ts', 'server.ts', 'cli.ts', 'cli-admin.ts', 'wiring.ts', 'side-services.ts'];

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return /\.ts$/.test(name) ? [path] : [];
  });
}

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;

/** `src/modules/<name>/...` → name; anything else → undefined. */
function moduleOf(path) {
  const rel = relative(src, path).split('/');
  return rel[0] === 'modules' && rel.length > 2 ? rel[1] : undefined;
}

function resolveImport(from, spec) {
  const target = resolve(dirname(from), spec);
  return target.replace(/\.js$/, '.ts');
}

const pastIndex = [];
const plumbingImports = [];
const upward = [];
const edges = new Map(); // module → Map(module → example "file → target")
for (const file of files(src)) {
  const text = readFileSync(file, 'utf8');
  const fromModule = moduleOf(file);
  const rel = relative(src, file);
  const inPlumbing = PLUMBING.some((p) => rel === p || rel.startsWith(`${p}/`));
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2];
    const target = resolveImport(file, spec);
    const toModule = moduleOf(target);
    if ((fromModule || inPlumbing) && WIRING.includes(relative(src, target))) {
      upward.push(`${relative(root, file)} → ${relative(root, target)}`);
    }
    if (!toModule || toModule === fromModule) continue;
    const where = `${relative(root, file)} → ${relative(root, target)}`;
    if (inPlumbing) plumbingImports.push(where);
    if (relative(join(src, 'modules', toModule), target) !== 'index.ts') pastIndex.push(where);
    if (fromModule) {
      if (!edges.has(fromModule)) edges.set(fromModule, new Map());
      if (!edges.get(fromModule).has(toModule)) edges.get(fromModule).set(toModule, where);
    }
  }
}

// Strongly connected components of the module graph (Tarjan): every component of more than one module
// is a cycle.
const cycles = [];
{
  let index = 0;
  const stack = [];
  const info = new Map();
  const visit = (v) => {
    info.set(v, { index, low: index, onStack: true });
    index++;
    stack.push(v);
    for (const w of edges.get(v)?.keys() ?? []) {
      if (!info.has(w)) {
        visit(w);
        info.get(v).low = Math.min(info.get(v).low, info.get(w).low);
      } else if (info.get(w).onStack) {
        info.get(v).low = Math.min(info.get(v).low, info.get(w).index);
      }
    }
    if (info.get(v).low === info.get(v).index) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        info.get(w).onStack = false;
        component.push(w);
      } while (w !== v);
      if (component.length > 1) cycles.push(component.sort());
    }
  };
  for (const v of edges.keys()) if (!info.has(v)) visit(v);
}

if (process.argv.includes('--stats')) {
  console.log(
    `module cycles (strongly connected groups): ${cycles.length} ${cycles.map((c) => `[${c.join(' ')}]`).join(' ')}`,
  );
  console.log(`imports past an index: ${pastIndex.length}`);
  console.log(`plumbing importing a module: ${plumbingImports.length}`);
  console.log(`modules or plumbing importing the wiring: ${upward.length}`);
  process.exit(0);
}
const problems = [
  ...pastIndex.map((w) => `import past the module's index.ts: ${w}`),
  ...plumbingImports.map((w) => `plumbing imports a module: ${w}`),
  ...upward.map((w) => `imports the wiring from below: ${w}`),
  ...cycles.map((c) => {
    const detail = c.flatMap((a) =>
      c.filter((b) => edges.get(a)?.has(b)).map((b) => `  ${edges.get(a).get(b)}`),
    );
    return `import cycle between modules ${c.join(', ')}:\n${detail.join('\n')}`;
  }),
];
for (const p of problems) console.error(p);
if (problems.length > 0) {
  console.error(`\n${problems.length} module boundary violation(s); see docs/architecture.md`);
  process.exit(1);
}
console.log('module boundaries: ok');
