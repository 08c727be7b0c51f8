// Sign-in and identity endpoints (docs/auth.md): e-mail login, wallet challenge, status.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../errors/catalogue.js';
import { Envelope, ErrorShapeA, envelope } from '../../http/envelope.js';
import { requestLoginCode, verifyLoginCode } from './login.js';
import { createChallenge } from './wallet-signin.js';

const Email = Type.String({ format: 'email', maxLength: 254 });
const WalletAddress = Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' });

const LoginBody = Type.Object({ email: Email }, { additionalProperties: false });
const VerifyBody = Type.Object(
  { email: Email, code: Type.String({ pattern: '^[0-9]{6}$' }) },
  { additionalProperties: false },
);
const ChallengeBody = Type.Object({ wallet_address: WalletAddress }, { additionalProperties: false });

const LoginAccepted = Type.Object({ status: Type.Literal('code_sent'), expires_at: Type.String() });
const Session = Type.Object({
  session_token: Type.String(),
  expires_at: Type.String(),
  account_id: Type.String(),
});
const Challenge = Type.Object({ nonce: Type.String(), message: Type.String(), expires_at: Type.String() });
const Status = Type.Object({
  tier: Type.Union([
    Type.Literal('anonymous'),
    Type.Literal('wallet_identified'),
    Type.Literal('authenticated'),
  ]),
  trust_tier: Type.Union([
    Type.Literal('new'),
    Type.Literal('established'),
    Type.Literal('trusted'),
    Type.Null(),
  ]),
  account_id: Type.Union([Type.String(), Type.Null()]),
  wallet: Type.Union([Type.String(), Type.Null()]),
  rate_limit: Type.Object({ limit: Type.Number(), remaining: Type.Number(), reset: Type.Number() }),
});

export interface AuthRoutesOptions {
  /**
   * The caller's trust tier and rate-limit state for `GET /v1/auth/status`: a port the wiring fills with
   * the rate limiter's answer (identity sits below rate limiting and must not import it).
   */
  rateLimitStatus(request: FastifyRequest): Promise<{
    trust_tier: 'new' | 'established' | 'trusted' | null;
    rate_limit: { limit: number; remaining: number; reset: number };
  }>;
}

export const authRoutes: FastifyPluginAsyncTypebox<AuthRoutesOptions> = async (app, { rateLimitStatus }) => {
  const { deps } = app;

  app.post(
    '/v1/auth/login',
    {
      schema: {
        tags: ['auth'],
        summary: 'E-mail a 6-digit sign-in code (always 202: no account enumeration)',
        body: LoginBody,
        response: { 202: Envelope(LoginAccepted), 400: ErrorShapeA },
      },
    },
    async (request, reply) => {
      const { expires_at } = await requestLoginCode(deps, request.body.email);
      return reply.status(202).send(envelope(request, { status: 'code_sent' as const, expires_at }));
    },
  );

  app.post(
    '/v1/auth/verify',
    {
      schema: {
        tags: ['auth'],
        summary: 'Exchange an e-mailed code for a session token (creates the account on first use)',
        body: VerifyBody,
        response: { 200: Envelope(Session), 400: ErrorShapeA, 401: ErrorShapeA, 403: ErrorShapeA },
      },
    },
    async (request) => envelope(request, await verifyLoginCode(deps, request.body.email, request.body.code)),
  );

  app.post(
    '/v1/auth/challenge',
    {
      schema: {
        tags: ['auth'],
        summary: 'EIP-4361 message and nonce (1 hour) for wallet sign-in',
        body: ChallengeBody,
        response: { 200: Envelope(Challenge), 400: ErrorShapeA },
      },
    },
    async (request) => envelope(request, await createChallenge(deps, request.body.wallet_address)),
  );

  app.get(
    '/v1/auth/status',
    {
      schema: {
        tags: ['auth'],
        summary: 'Who the caller is, its trust tier and its rate limit (same as MCP svc_auth_status)',
        response: { 200: Envelope(Status), 401: ErrorShapeA, 403: ErrorShapeA },
      },
    },
    async (request) => {
      const caller = request.caller;
      // Asking "who am I" with a bad credential must not look like anonymous success.
      if (caller.kind === 'invalid') throw new AppError('SVC-AUTH-001');
      const { trust_tier, rate_limit } = await rateLimitStatus(request);
      return envelope(request, {
        tier:
          caller.kind === 'account'
            ? ('authenticated' as const)
            : caller.kind === 'wallet'
              ? ('wallet_identified' as const)
              : ('anonymous' as const),
        trust_tier,
        account_id: caller.kind === 'account' ? caller.accountId : null,
        wallet: caller.kind === 'account' || caller.kind === 'wallet' ? (caller.wallet ?? null) : null,
        rate_limit,
      });
    },
  );
};
