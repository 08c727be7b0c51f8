// Deposits and linked wallets (DESIGN.md section 11): POST /v1/wallet/deposit, /v1/wallet/links.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { Envelope, envelope, MetaSchema } from '../../http/envelope.js';
import { creditsToUsdcShort } from '../../lib/money.js';
import { accountOf } from '../auth/index.js';
import { linkWallet, listLinks, unlinkWallet } from './links.js';
import { submitDeposit } from './service.js';

const DepositBody = Type.Object(
  { tx_hash: Type.String({ pattern: '^0x[0-9a-fA-F]{64}$', description: 'hash of a USDC transfer' }) },
  { additionalProperties: false },
);

const DepositSchema = Type.Object({
  deposit_id: Type.String(),
  amount_usdc: Type.String(),
  status: Type.Literal('confirmed'),
  new_balance_usdc: Type.String(),
  tx_hash: Type.String(),
});

const Link = Type.Object({ wallet_address: Type.String(), linked_at: Type.String() });
const LinkBody = Type.Object(
  {
    wallet_address: Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' }),
    nonce: Type.String({ minLength: 1, maxLength: 200 }),
    signature: Type.String({ minLength: 1, maxLength: 10_000 }),
  },
  { additionalProperties: false },
);

export const depositRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { deps } = app;
  const security: Record<string, string[]>[] = [{ apiKey: [] }, { bearer: [] }];

  app.post(
    '/v1/wallet/deposit',
    {
      schema: {
        summary: 'Credit a USDC transfer to the platform wallet, verified on-chain',
        tags: ['wallet'],
        security,
        body: DepositBody,
        response: { 201: Envelope(DepositSchema) },
      },
      config: { auth: 'account' },
    },
    async (request, reply) => {
      const deposit = await submitDeposit(deps, accountOf(request).accountId, request.body.tx_hash);
      return reply.status(201).send(
        envelope(request, {
          deposit_id: deposit.id,
          amount_usdc: creditsToUsdcShort(deposit.amountCredits),
          status: 'confirmed' as const,
          new_balance_usdc: creditsToUsdcShort(deposit.newBalanceCredits),
          tx_hash: deposit.txHash,
        }),
      );
    },
  );

  app.post(
    '/v1/wallet/links',
    {
      schema: {
        summary: 'Link a wallet to the account (signature of a /v1/auth/challenge message)',
        tags: ['wallet'],
        security,
        body: LinkBody,
        response: { 201: Envelope(Link) },
      },
      config: { auth: 'account' },
    },
    async (request, reply) => {
      const link = await linkWallet(deps, accountOf(request).accountId, request.body);
      return reply.status(201).send(envelope(request, link));
    },
  );

  app.get(
    '/v1/wallet/links',
    {
      schema: {
        summary: "The account's linked wallets",
        tags: ['wallet'],
        security,
        response: { 200: Type.Object({ data: Type.Array(Link), meta: MetaSchema }) },
      },
      config: { auth: 'account' },
    },
    async (request) => envelope(request, await listLinks(deps.db.orm, accountOf(request).accountId)),
  );

  app.delete(
    '/v1/wallet/links/:address',
    {
      schema: {
        summary: 'Unlink a wallet',
        tags: ['wallet'],
        security,
        params: Type.Object({ address: Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' }) }),
        response: { 200: Envelope(Type.Object({ wallet_address: Type.String(), unlinked: Type.Boolean() })) },
      },
      config: { auth: 'account' },
    },
    async (request) => {
      await unlinkWallet(deps, accountOf(request).accountId, request.params.address);
      return envelope(request, { wallet_address: request.params.address.toLowerCase(), unlinked: true });
    },
  );
};
