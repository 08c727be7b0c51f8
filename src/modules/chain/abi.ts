// The parts of the USDC ABI the service uses (typed for viem), and the committed artifact of our test USDC
// (contracts/TestUSDC.sol, rebuilt with `npm run build:contracts`).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Abi, type Hex, parseAbi } from 'viem';

export const usdcAbi = parseAbi([
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
  'function balanceOf(address account) view returns (uint256)',
  'function decimals() view returns (uint8)',
  'function name() view returns (string)',
  'function version() view returns (string)',
  'function transfer(address to, uint256 value) returns (bool)',
  'function mint(address to, uint256 amount)',
  'function setMinter(address minter, bool allowed)',
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)',
  'function receiveWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
]);

export interface ContractArtifact {
  contractName: string;
  compiler: string;
  abi: Abi;
  bytecode: Hex;
}

/** Constructor: (name, symbol, version, owner). */
export function testUsdcArtifact(): ContractArtifact {
  const file = fileURLToPath(new URL('../../../contracts/artifacts/TestUSDC.json', import.meta.url));
  return JSON.parse(readFileSync(file, 'utf8')) as ContractArtifact;
}
