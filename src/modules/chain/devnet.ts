// The devnet chain `npm start` runs by itself (docs/deposits.md): anvil on loopback with its state in
// <data dir>/devnet, our test USDC deployed once (address remembered in devnet/chain.json), and a platform
// key generated into <data dir>/secrets and funded with gas.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  type Address,
  createPublicClient,
  createTestClient,
  createWalletClient,
  getAddress,
  type Hex,
  http,
  parseEther,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { DEVNET } from '../../adapters/chain/networks.js';
import type { Config } from '../../config.js';
import { loadOrCreateSecret } from '../../lib/secrets.js';
import { testUsdcArtifact } from './abi.js';
import { startAnvil } from './anvil.js';

/** anvil's first well-known development account: deploys the test contracts, nothing else. */
export const ANVIL_DEPLOYER_KEY: Hex = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

export interface DeployTokenOptions {
  rpcUrl: string;
  owner: Address;
  name?: string;
  symbol?: string;
  version?: string;
}

/** Deploys a TestUSDC (owner = minter) from the anvil deployer account; returns its address. */
export async function deployTestToken(opts: DeployTokenOptions): Promise<Address> {
  const transport = http(opts.rpcUrl);
  const chain = { ...foundry, id: DEVNET.chainId };
  const account = privateKeyToAccount(ANVIL_DEPLOYER_KEY);
  const wallet = createWalletClient({ chain, transport, account });
  const client = createPublicClient({ chain, transport, pollingInterval: 100 });
  const artifact = testUsdcArtifact();
  const hash = await wallet.deployContract({
    abi: artifact.abi,
    bytecode: artifact.bytecode,
    args: [
      opts.name ?? DEVNET.usdcDomain.name,
      opts.symbol ?? 'USDC',
      opts.version ?? DEVNET.usdcDomain.version,
      opts.owner,
    ],
  });
  const receipt = await client.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success' || !receipt.contractAddress)
    throw new Error('test USDC deployment failed');
  return getAddress(receipt.contractAddress);
}

/** Gives `address` at least `ether` of gas money (devnet only: anvil_setBalance). */
export async function fundGas(rpcUrl: string, address: Address, ether = '100') {
  const transport = http(rpcUrl);
  const chain = { ...foundry, id: DEVNET.chainId };
  const test = createTestClient({ chain, transport, mode: 'anvil' });
  const client = createPublicClient({ chain, transport });
  const wanted = parseEther(ether);
  if ((await client.getBalance({ address })) < wanted) await test.setBalance({ address, value: wanted });
}

export interface DevnetChain {
  rpcUrl: string;
  usdcAddress: Address;
  platformWallet: Address;
  platformWalletKey: Hex;
  stop(): Promise<void>;
}

interface ChainFile {
  usdc_address: string;
  deployed_at: string;
}

/**
 * Starts anvil with its state in `<dataDir>/devnet/anvil-state.json` (saved every 5 s and on exit), makes
 * sure the platform key exists and has gas, and deploys the test USDC unless the remembered one is there.
 */
export async function startDevnetChain(config: Config, log: (msg: string) => void): Promise<DevnetChain> {
  const dir = path.join(config.dataDir, 'devnet');
  mkdirSync(dir, { recursive: true });
  await stopOrphan(dir);
  const key = loadOrCreateSecret(config.dataDir, 'platform-wallet-key', () => generatePrivateKey())
    .value as Hex;
  const platformWallet = privateKeyToAccount(key).address;
  const anvil = await startAnvil({
    port: config.chain.devnetChainPort,
    chainId: DEVNET.chainId,
    statePath: path.join(dir, 'anvil-state.json'),
    stateIntervalSeconds: 5,
  });
  writeFileSync(path.join(dir, 'anvil.pid'), String(anvil.child.pid));
  try {
    await fundGas(anvil.rpcUrl, platformWallet, '1000');
    const chainFile = path.join(dir, 'chain.json');
    const remembered = existsSync(chainFile)
      ? (JSON.parse(readFileSync(chainFile, 'utf8')) as ChainFile).usdc_address
      : undefined;
    const client = createPublicClient({ transport: http(anvil.rpcUrl) });
    let usdcAddress = remembered ? getAddress(remembered) : undefined;
    if (usdcAddress && !(await client.getCode({ address: usdcAddress }))) {
      // The state file was lost: a new token is deployed; the ledger check at start refuses to run if
      // deposits were already credited from the old chain (src/modules/chain/consistency.ts).
      log(`devnet: the test USDC at ${usdcAddress} is gone from the chain state; deploying a new one`);
      usdcAddress = undefined;
    }
    if (!usdcAddress) {
      usdcAddress = await deployTestToken({ rpcUrl: anvil.rpcUrl, owner: platformWallet });
      const file: ChainFile = {
        usdc_address: usdcAddress.toLowerCase(),
        deployed_at: new Date().toISOString(),
      };
      writeFileSync(chainFile, `${JSON.stringify(file, null, 2)}\n`);
    }
    log(`devnet chain on ${anvil.rpcUrl} (USDC ${usdcAddress}, platform wallet ${platformWallet})`);
    return {
      rpcUrl: anvil.rpcUrl,
      usdcAddress,
      platformWallet,
      platformWalletKey: key,
      async stop() {
        await anvil.stop();
        rmSync(path.join(dir, 'anvil.pid'), { force: true });
      },
    };
  } catch (err) {
    await anvil.stop();
    throw err;
  }
}

/** The config with the self-started chain filled in. */
export function withDevnetChain(config: Config, chain: DevnetChain): Config {
  return {
    ...config,
    chain: {
      ...config.chain,
      rpcUrl: chain.rpcUrl,
      chainId: DEVNET.chainId,
      usdcAddress: chain.usdcAddress.toLowerCase(),
      platformWallet: chain.platformWallet.toLowerCase(),
      platformWalletKey: chain.platformWalletKey,
    },
  };
}

/**
 * An anvil left behind by a service killed with -9 would keep writing the same state file: stop it. Only
 * a process whose command line is anvil with this data dir's state file is touched.
 */
async function stopOrphan(dir: string) {
  const pidFile = path.join(dir, 'anvil.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  const isOurAnvil = () => {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      return cmdline.includes('anvil') && cmdline.includes(path.join(dir, 'anvil-state.json'));
    } catch {
      return false; // gone already, or not Linux
    }
  };
  if (isOurAnvil()) {
    process.kill(pid, 'SIGINT');
    for (let i = 0; i < 100 && isOurAnvil(); i++) await new Promise((r) => setTimeout(r, 100));
  }
  rmSync(pidFile, { force: true });
}
