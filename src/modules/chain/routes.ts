// Public chain routes: where to deposit (every environment) and the devnet helpers (devnet only; elsewhere
// the routes do not exist, so they answer 404 SVC-VAL-006 like any unknown route).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { getAddress } from 'viem';
import { MIN_DEPOSIT_CREDITS } from '../../adapters/chain/networks.js';
import { readyChain } from '../../adapters/chain/runtime.js';
import { AppError } from '../../errors/catalogue.js';
import { Envelope, ErrorShapeA, envelope } from '../../http/envelope.js';
import { creditsToUsdcShort, isUsdcString, usdcToCredits } from '../../lib/money.js';
import { faucet } from './faucet.js';

const DepositAddress = Type.Object({
  network: Type.String({ description: 'CAIP-2 network id, e.g. eip155:8453' }),
  chain_id: Type.Integer(),
  usdc_address: Type.String(),
  platform_wallet: Type.String(),
  min_deposit_usdc: Type.String(),
  confirmations: Type.Integer(),
});

const Devnet = Type.Object({
  chain_id: Type.Integer(),
  rpc_url: Type.String(),
  usdc_address: Type.String(),
  platform_wallet: Type.String(),
});

const ADDRESS = '^0x[0-9a-fA-F]{40}$';
const FaucetBody = Type.Object(
  {
    address: Type.String({ pattern: ADDRESS }),
    amount_usdc: Type.String({ pattern: '^(0|[1-9]\\d{0,4})(\\.\\d{1,6})?$', description: 'at most 10000' }),
  },
  { additionalProperties: false },
);

/** docs/deposits.md: the faucet mints at most this much per request. */
const FAUCET_MAX_CREDITS = 10_000_000_000n;

export const chainRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { deps } = app;

  app.get(
    '/v1/wallet/deposit-address',
    {
      schema: {
        summary: 'Where to send USDC to fund a balance',
        tags: ['wallet'],
        response: { 200: Envelope(DepositAddress) },
      },
    },
    async (request) => {
      const chain = readyChain(deps.chain);
      return envelope(request, {
        network: chain.network.network,
        chain_id: chain.chainId,
        usdc_address: chain.usdcAddress.toLowerCase(),
        platform_wallet: chain.platformWallet.toLowerCase(),
        min_deposit_usdc: creditsToUsdcShort(MIN_DEPOSIT_CREDITS),
        confirmations: chain.confirmations,
      });
    },
  );

  if (deps.config.env !== 'devnet') return;

  app.get(
    '/v1/devnet',
    {
      schema: {
        summary: 'The local devnet chain (devnet only)',
        tags: ['devnet'],
        response: { 200: Envelope(Devnet) },
      },
    },
    async (request) => {
      const chain = readyChain(deps.chain);
      return envelope(request, {
        chain_id: chain.chainId,
        rpc_url: chain.rpcUrl,
        usdc_address: chain.usdcAddress.toLowerCase(),
        platform_wallet: chain.platformWallet.toLowerCase(),
      });
    },
  );

  app.post(
    '/v1/devnet/faucet',
    {
      schema: {
        summary: 'Mint test USDC and gas to an address (devnet only)',
        tags: ['devnet'],
        body: FaucetBody,
        response: {
          200: Envelope(Type.Object({ tx_hash: Type.String(), amount_usdc: Type.String() })),
          400: ErrorShapeA,
        },
      },
    },
    async (request) => {
      const { amount_usdc: amount } = request.body;
      const credits = isUsdcString(amount) ? usdcToCredits(amount) : -1n;
      if (credits <= 0n || credits > FAUCET_MAX_CREDITS) {
        throw new AppError('SVC-VAL-001', 'amount_usdc must be more than 0 and at most 10000', {
          errors: [{ path: '/amount_usdc', message: 'must be more than 0 and at most 10000' }],
        });
      }
      const tx = await faucet(deps, getAddress(request.body.address), credits);
      return envelope(request, { tx_hash: tx.txHash, amount_usdc: creditsToUsdcShort(credits) });
    },
  );
};
