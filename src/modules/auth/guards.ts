// What a route reads of its caller once its policy (`config.auth`, enforced by src/http/route-policy.ts)
// has let the request in.
export { type AccountCaller, accountOf } from '../../http/caller.js';
