// Billing: card top-ups (local and Stripe), coupons, spending limits and alert settings, the billing
// views of balance, transactions and usage.
export { ALERT_DEFAULTS, ALERT_KEYS, type AlertKey } from './controls.js';
export { createCoupon, redeemCoupon } from './coupons.js';
export { expirePaymentsJob } from './jobs.js';
export { billingRoutes } from './routes.js';
