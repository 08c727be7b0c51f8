// A real local chain for tests: one anvil per test file (started in beforeAll, ~0.3 s), our test USDC
// deployed by anvil's first account (the token's owner), and per service a fresh platform key made a
// minter and given gas, so apps in one file never share a nonce sequence. `env` goes to createTestApp.
import {
  type Address,
  createPublicClient,
  createTestClient,
  createWalletClient,
  encodeFunctionData,
  type Hex,
  http,
  type PrivateKeyAccount,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import {
  ANVIL_DEPLOYER_KEY,
  deployTestToken,
  fundGas,
  startAnvil,
  usdcAbi,
} from '../../src/modules/chain/index.js';

export interface TestChain {
  rpcUrl: string;
  usdc: Address;
  client: ReturnType<typeof createPublicClient>;
  test: ReturnType<typeof createTestClient>;
  /** Env for createTestApp: this chain, this USDC, a new platform key (minter, with gas). */
  serviceEnv(opts?: { confirmations?: number }): Promise<Record<string, string>>;
  /** A new wallet with gas and `usdc` test USDC (atomic units). */
  newWallet(usdcCredits?: bigint): Promise<PrivateKeyAccount>;
  /** Mints test USDC (atomic units) to an address, from the token's owner. */
  mint(to: Address, credits: bigint, token?: Address): Promise<void>;
  /** Sends an ERC-20 transfer from `from`; returns its hash once mined. */
  transfer(from: PrivateKeyAccount, to: Address, credits: bigint, token?: Address): Promise<Hex>;
  /** Deploys another token from the same artifact (a different ERC-20). */
  deployToken(name: string, symbol: string): Promise<Address>;
  mine(blocks: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startTestChain(): Promise<TestChain> {
  const anvil = await startAnvil();
  const transport = http(anvil.rpcUrl);
  const chain = foundry;
  const client = createPublicClient({ chain, transport, pollingInterval: 50 });
  const test = createTestClient({ chain, transport, mode: 'anvil' });
  const owner = privateKeyToAccount(ANVIL_DEPLOYER_KEY);
  const ownerWallet = createWalletClient({ chain, transport, account: owner });
  const usdc = await deployTestToken({ rpcUrl: anvil.rpcUrl, owner: owner.address });

  const send = async (data: Hex, to: Address, from: PrivateKeyAccount = owner) => {
    const wallet = from === owner ? ownerWallet : createWalletClient({ chain, transport, account: from });
    const hash = await wallet.sendTransaction({ to, data });
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
    return hash;
  };
  const mint = async (to: Address, credits: bigint, token: Address = usdc) => {
    await send(encodeFunctionData({ abi: usdcAbi, functionName: 'mint', args: [to, credits] }), token);
  };

  return {
    rpcUrl: anvil.rpcUrl,
    usdc,
    client,
    test,
    async serviceEnv(opts = {}) {
      const key = generatePrivateKey();
      const platform = privateKeyToAccount(key);
      await fundGas(anvil.rpcUrl, platform.address, '100');
      await send(
        encodeFunctionData({ abi: usdcAbi, functionName: 'setMinter', args: [platform.address, true] }),
        usdc,
      );
      return {
        SVC_CHAIN_RPC_URL: anvil.rpcUrl,
        SVC_CHAIN_ID: '31337',
        SVC_USDC_ADDRESS: usdc,
        SVC_PLATFORM_WALLET: platform.address,
        SVC_PLATFORM_WALLET_KEY: key,
        SVC_DEPOSIT_CONFIRMATIONS: String(opts.confirmations ?? 1),
        // Tests drive the watcher themselves.
        SVC_DEPOSIT_WATCH: 'off',
      };
    },
    async newWallet(credits = 0n) {
      const account = privateKeyToAccount(generatePrivateKey());
      await fundGas(anvil.rpcUrl, account.address, '1');
      if (credits > 0n) await mint(account.address, credits);
      return account;
    },
    mint,
    async transfer(from, to, credits, token = usdc) {
      return send(
        encodeFunctionData({ abi: usdcAbi, functionName: 'transfer', args: [to, credits] }),
        token,
        from,
      );
    },
    async deployToken(name, symbol) {
      return deployTestToken({ rpcUrl: anvil.rpcUrl, owner: owner.address, name, symbol });
    },
    async mine(blocks) {
      await test.mine({ blocks });
    },
    stop: () => anvil.stop(),
  };
}
