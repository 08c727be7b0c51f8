// Rebuilds src/modules/discovery/resources/int8-dots.wasm from int8-dots.wat beside it with the pinned
// `wabt` npm package (the WebAssembly toolkit compiled to WebAssembly; no native toolchain).
// `npm run build:wasm`; `--check` exits 1 when the committed binary differs from its source.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import initWabt from 'wabt';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), '../src/modules/discovery/resources');
const wabt = await initWabt();
const source = path.join(dir, 'int8-dots.wat');
const module = wabt.parseWat(source, readFileSync(source, 'utf8'), { simd: true });
module.validate();
const binary = Buffer.from(module.toBinary({}).buffer);
const target = path.join(dir, 'int8-dots.wasm');
if (process.argv.includes('--check')) {
  const same = binary.equals(readFileSync(target));
  console.log(same ? 'int8-dots.wasm matches its source' : 'int8-dots.wasm differs from int8-dots.wat');
  process.exit(same ? 0 : 1);
}
writeFileSync(target, binary);
console.log(`wrote ${target} (${binary.length} bytes)`);
