// Deposits and linked wallets (docs/deposits.md): POST /v1/wallet/deposit, /v1/wallet/links.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { Envelope, ErrorShapeA, envelope, MetaSchema } from '../../http/envelope.js';
import { creditsToUsdcShort } from '../../lib/money.js';
import { accountOf, linkWallet, listLinks, unlinkWallet } from '../auth/index.js';
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
  // Every route here needs an active account: 401 SVC-AUTH-001, 403 SVC-AUTH-004.
  const authErrors = { 401: ErrorShapeA, 403: ErrorShapeA };

  app.post(
    '/v1/wallet/deposit',
    {
      schema: {
        summary: 'Credit a USDC transfer to the platform wallet, verified on-chain',
        tags: ['wallet'],
        security,
        body: DepositBody,
        response: {
          201: Envelope(DepositSchema),
          400: Type.Unsafe<unknown>({
            ...ErrorShapeA,
            description:
              'SVC-VAL-001 bad hash, SVC-PAY-002 not found, SVC-PAY-005 not ours, SVC-PAY-004 below 5 USDC',
          }),
          ...authErrors,
          409: Type.Unsafe<unknown>({
            ...ErrorShapeA,
            description: 'SVC-PAY-003 already credited, SVC-PAY-006 not yet confirmed',
          }),
        },
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
        response: {
          201: Envelope(Link),
          400: ErrorShapeA,
          401: Type.Unsafe<unknown>({
            ...ErrorShapeA,
            description: 'SVC-AUTH-001: no credential, or a bad signature / expired nonce',
          }),
          403: ErrorShapeA,
          409: Type.Unsafe<unknown>({
            ...ErrorShapeA,
            description: 'SVC-VAL-007: linked to another account',
          }),
        },
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
        response: { 200: Type.Object({ data: Type.Array(Link), meta: MetaSchema }), ...authErrors },
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
        response: {
          200: Envelope(Type.Object({ wallet_address: Type.String(), unlinked: Type.Boolean() })),
          400: ErrorShapeA,
          ...authErrors,
          404: Type.Unsafe<unknown>({
            ...ErrorShapeA,
            description: 'SVC-VAL-006: not linked to this account',
          }),
          409: Type.Unsafe<unknown>({
            ...ErrorShapeA,
            description: "SVC-VAL-007: the account's last way to sign in",
          }),
        },
      },
      config: { auth: 'account' },
    },
    async (request) => {
      await unlinkWallet(deps, accountOf(request).accountId, request.params.address);
      return envelope(request, { wallet_address: request.params.address.toLowerCase(), unlinked: true });
    },
  );
};
