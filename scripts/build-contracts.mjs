// Rebuilds contracts/artifacts/TestUSDC.json (abi + bytecode) from contracts/TestUSDC.sol with the pinned
// `solc` npm package (the compiler in WebAssembly; no native toolchain). `npm run build:contracts`.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import solc from 'solc';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const source = 'TestUSDC.sol';
const input = {
  language: 'Solidity',
  sources: { [source]: { content: readFileSync(path.join(root, 'contracts', source), 'utf8') } },
  settings: {
    optimizer: { enabled: true, runs: 200 },
    evmVersion: 'cancun',
    outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
  },
};
const output = JSON.parse(solc.compile(JSON.stringify(input)));
const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
for (const e of output.errors ?? []) console.error(e.formattedMessage);
if (errors.length > 0) process.exit(1);
const contract = output.contracts[source].TestUSDC;
const artifact = {
  contractName: 'TestUSDC',
  compiler: `solc ${solc.version()}`,
  abi: contract.abi,
  bytecode: `0x${contract.evm.bytecode.object}`,
};
mkdirSync(path.join(root, 'contracts', 'artifacts'), { recursive: true });
writeFileSync(
  path.join(root, 'contracts', 'artifacts', 'TestUSDC.json'),
  `${JSON.stringify(artifact, null, 2)}\n`,
);
console.log(`contracts/artifacts/TestUSDC.json written (${artifact.compiler})`);
