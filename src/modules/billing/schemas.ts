// Route schemas of the billing API: validation, types and OpenAPI from one source. Responses are bare
// objects as docs/billing.md shows them.
import { Type } from '@sinclair/typebox';
import { TRANSACTION_TYPES } from './account-views.js';
import { ALERT_KEYS } from './controls.js';
import { COUPON_CODE_PATTERN } from './coupons.js';

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const Usdc = Type.String({ pattern: '^(0|[1-9]\\d{0,11})(\\.\\d{1,6})?$', description: 'USDC amount' });
const Credits = Type.String({ pattern: '^-?\\d+$', description: 'credits (1 credit = 0.000001 USDC)' });
// Checked again with the URL parser in the handler; {CHECKOUT_SESSION_ID} templates (as Stripe) allowed.
const HttpUrl = Type.String({ pattern: '^https?://[^\\s]+$', maxLength: 2048 });
const Day = Type.String({ description: 'YYYY-MM-DD (UTC)' });

export const CheckoutBody = Type.Object(
  {
    amountUsdCents: Type.Integer({ description: 'USD cents, 500 to 1000000' }),
    successUrl: HttpUrl,
    cancelUrl: HttpUrl,
  },
  { additionalProperties: false },
);

export const CheckoutSession = Type.Object({
  checkoutUrl: Type.String(),
  sessionId: Type.String(),
  creditsToReceive: Credits,
});

export const PageQuery = Type.Object(
  {
    page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  },
  { additionalProperties: false },
);

const PagePagination = Type.Object({ page: Type.Integer(), limit: Type.Integer(), total: Type.Integer() });

export const Payment = Type.Object({
  id: Type.String(),
  amountUsd: Type.String(),
  creditsGranted: Credits,
  status: Type.Union(['pending', 'completed', 'failed', 'expired', 'refunded'].map((s) => Type.Literal(s))),
  receiptUrl: Type.String(),
  createdAt: Type.String(),
  completedAt: Type.Union([Type.String(), Type.Null()]),
});

export const PaymentList = Type.Object({ payments: Type.Array(Payment), pagination: PagePagination });

export const Balance = Type.Object({
  balanceCredits: Credits,
  balanceUsdc: Type.String(),
  dailySpentCredits: Credits,
  dailySpentUsdc: Type.String(),
  dailySpendLimitCredits: Nullable(Type.String()),
  dailySpendLimitUsdc: Nullable(Type.String()),
  perCallLimitCredits: Nullable(Type.String()),
  perCallLimitUsdc: Nullable(Type.String()),
  lowBalanceAlertThreshold: Credits,
  status: Type.String(),
});

export const TransactionsQuery = Type.Object(
  {
    page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
    type: Type.Optional(Type.Union(TRANSACTION_TYPES.map((t) => Type.Literal(t)))),
    from: Type.Optional(Type.String({ description: 'ISO date or date-time, inclusive' })),
    to: Type.Optional(Type.String({ description: 'ISO date-time (exclusive) or date (through its end)' })),
  },
  { additionalProperties: false },
);

const NullableString = Type.Union([Type.String(), Type.Null()]);
export const Transaction = Type.Object({
  id: Type.String(),
  type: Type.String(),
  amountCredits: Credits,
  amountUsdc: Type.String(),
  balanceAfter: Credits,
  description: Type.String(),
  referenceType: NullableString,
  referenceId: NullableString,
  providerId: NullableString,
  capabilityId: NullableString,
  createdAt: Type.String(),
});
export const TransactionList = Type.Object({
  transactions: Type.Array(Transaction),
  pagination: PagePagination,
});

export const UsageQuery = Type.Object(
  {
    from: Type.Optional(Day),
    to: Type.Optional(Day),
    groupBy: Type.Union([Type.Literal('day'), Type.Literal('provider')], { default: 'day' }),
  },
  { additionalProperties: false },
);
export const ExportQuery = Type.Object(
  { from: Type.Optional(Day), to: Type.Optional(Day) },
  { additionalProperties: false },
);

const UsageSummary = Type.Object({
  totalCreditsSpent: Credits,
  totalUsdcSpent: Type.String(),
  totalCalls: Type.Integer(),
  dateRange: Type.Object({ from: Type.String(), to: Type.String() }),
});
export const UsageReport = Type.Union([
  Type.Object({
    summary: UsageSummary,
    daily: Type.Array(
      Type.Object({
        date: Type.String(),
        creditsSpent: Credits,
        usdcSpent: Type.String(),
        callCount: Type.Integer(),
        providerBreakdown: Type.Array(
          Type.Object({
            providerId: Type.String(),
            providerName: Type.String(),
            creditsSpent: Credits,
            callCount: Type.Integer(),
          }),
        ),
      }),
    ),
  }),
  Type.Object({
    summary: UsageSummary,
    providers: Type.Array(
      Type.Object({
        providerId: Type.String(),
        providerName: Type.String(),
        creditsSpent: Credits,
        usdcSpent: Type.String(),
        callCount: Type.Integer(),
      }),
    ),
  }),
]);

export const LimitsBody = Type.Object(
  {
    dailySpendLimitUsdc: Type.Optional(Nullable(Usdc)),
    perCallLimitUsdc: Type.Optional(Nullable(Usdc)),
  },
  { additionalProperties: false, minProperties: 1 },
);
export const Limits = Type.Object({
  dailySpendLimitUsdc: NullableString,
  perCallLimitUsdc: NullableString,
  dailySpendLimitCredits: NullableString,
  perCallLimitCredits: NullableString,
});

const EmailNotificationsInput = Type.Partial(
  Type.Object(Object.fromEntries(ALERT_KEYS.map((k) => [k, Type.Boolean()]))),
  { additionalProperties: false },
);
export const AlertsBody = Type.Object(
  {
    lowBalanceThresholdUsdc: Type.Optional(Nullable(Usdc)),
    emailNotifications: Type.Optional(EmailNotificationsInput),
  },
  { additionalProperties: false, minProperties: 1 },
);
export const Alerts = Type.Object({
  lowBalanceThresholdUsdc: Type.String(),
  emailNotifications: Type.Object(Object.fromEntries(ALERT_KEYS.map((k) => [k, Type.Boolean()]))),
});

export const RedeemBody = Type.Object(
  { code: Type.String({ minLength: 1, maxLength: 64 }) },
  { additionalProperties: false },
);
export const Redemption = Type.Object({
  code: Type.String(),
  creditsGranted: Credits,
  usdcEquivalent: Type.String(),
  description: Type.String(),
  newBalance: Credits,
});

export const CreateCouponBody = Type.Object(
  {
    code: Type.String({ pattern: COUPON_CODE_PATTERN }),
    credits_usdc: Usdc,
    description: Type.String({ minLength: 1, maxLength: 500 }),
    expires_at: Type.Optional(Type.String({ format: 'date-time' })),
    max_redemptions: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000_000 })),
  },
  { additionalProperties: false },
);

export const Coupon = Type.Object({
  id: Type.String(),
  code: Type.String(),
  credits: Credits,
  credits_usdc: Type.String(),
  description: Type.String(),
  expires_at: NullableString,
  max_redemptions: Type.Union([Type.Integer(), Type.Null()]),
  redemptions: Type.Integer(),
  created_at: Type.String(),
});
