// Devnet faucet: mints test USDC with the platform key (the token's owner) through the one platform
// transaction sender, and gives the address gas. Waits for the mint so the caller can spend right away.
import { type Address, encodeFunctionData } from 'viem';
import { chainUnavailable, readyChain } from '../../adapters/chain/runtime.js';
import type { AppDeps } from '../../deps.js';
import { newId } from '../../lib/ids.js';
import { usdcAbi } from './abi.js';
import { fundGas } from './devnet.js';
import { type PlatformTx, sendPlatformTransaction, waitForPlatformTransaction } from './platform-tx.js';

export async function faucet(deps: AppDeps, to: Address, credits: bigint): Promise<PlatformTx> {
  const chain = readyChain(deps.chain);
  try {
    await fundGas(chain.rpcUrl, to, '1');
  } catch {
    throw chainUnavailable();
  }
  const sent = await sendPlatformTransaction(deps, {
    purpose: 'faucet',
    reference: newId('fct'),
    to: chain.usdcAddress,
    data: encodeFunctionData({ abi: usdcAbi, functionName: 'mint', args: [to, credits] }),
  });
  const mined = await waitForPlatformTransaction(deps, sent.id, 30_000);
  if (mined.status !== 'confirmed') throw chainUnavailable();
  return mined;
}
