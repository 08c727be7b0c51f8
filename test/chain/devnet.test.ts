// The devnet chain `npm start` runs by itself: anvil from the npm package, state in the data dir (a second
// start finds the same contract and balances), and the start-up check that refuses a chain behind the
// ledger (a lost state file) instead of crediting again.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { createPublicClient, http } from 'viem';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { closeDeps, createDeps } from '../../src/deps.js';
import {
  assertChainNotBehindLedger,
  ChainBehindLedger,
  createChainRuntime,
  faucet,
  startDevnetChain,
  usdcAbi,
  withDevnetChain,
} from '../../src/modules/chain/index.js';
import { loadPgliteTemplate } from '../helpers/pglite-template.js';

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-devnet-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const baseConfig = () =>
  loadConfig({
    SVC_ENV: 'devnet',
    SVC_DATA_DIR: dataDir,
    SVC_ADMIN_TOKEN: 'test-admin-token-0123456789abcdef',
    SVC_ENCRYPTION_KEY: 'a'.repeat(64),
    LOG_LEVEL: 'silent',
  });

async function depsOn(config: ReturnType<typeof loadConfig>) {
  return createDeps(config, { inMemoryDb: true, pgliteTemplate: await loadPgliteTemplate() });
}

describe('devnet chain', () => {
  it('keeps its state across restarts and refuses a chain behind the ledger', {
    timeout: 90_000,
  } /* three chain starts */, async () => {
    const receiver = '0x000000000000000000000000000000000000bEEF';
    const first = await startDevnetChain(baseConfig(), () => {});
    const deps = await depsOn(withDevnetChain(baseConfig(), first));
    let minted: `0x${string}`;
    try {
      minted = (await faucet(deps, receiver, 3_000_000n)).txHash;
      const block =
        (await deps.chain.publicClient?.getTransactionReceipt({ hash: minted }))?.blockNumber ?? 0n;
      // The ledger remembers a transfer credited from this chain (as a credited deposit would be).
      await deps.db.orm.execute(
        sql`INSERT INTO chain_transfers (chain_id, tx_hash, log_index, kind, from_address, to_address,
                                         amount_credits, block_number)
            VALUES (31337, ${minted}, 0, 'x402', ${receiver.toLowerCase()}, ${receiver.toLowerCase()}, 1, ${block})`,
      );
      await expect(assertChainNotBehindLedger(deps)).resolves.toBeUndefined();
    } finally {
      await first.stop();
    }

    const second = await startDevnetChain(baseConfig(), () => {});
    try {
      expect(second.usdcAddress).toBe(first.usdcAddress);
      expect(second.platformWallet).toBe(first.platformWallet);
      const client = createPublicClient({ transport: http(second.rpcUrl) });
      const balance = await client.readContract({
        address: second.usdcAddress,
        abi: usdcAbi,
        functionName: 'balanceOf',
        args: [receiver],
      });
      expect(balance).toBe(3_000_000n);
      const again = { ...deps, chain: createChainRuntime(withDevnetChain(baseConfig(), second)) };
      await expect(assertChainNotBehindLedger(again)).resolves.toBeUndefined();
    } finally {
      await second.stop();
    }

    // The state file is lost: a fresh chain must not be trusted with the ledger's history.
    rmSync(path.join(dataDir, 'devnet', 'anvil-state.json'));
    const third = await startDevnetChain(baseConfig(), () => {});
    try {
      const fresh = { ...deps, chain: createChainRuntime(withDevnetChain(baseConfig(), third)) };
      await expect(assertChainNotBehindLedger(fresh)).rejects.toBeInstanceOf(ChainBehindLedger);
    } finally {
      await third.stop();
      await closeDeps(deps);
    }
  });
});
