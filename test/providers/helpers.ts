// Shared steps of the self-service provider tests: calls to /v1/provider/* as an account.
import type { TestApp } from '../helpers/app.js';

export function asAccount(
  t: TestApp,
  apiKey: string,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  payload?: unknown,
) {
  return t.inject({
    method,
    url,
    headers: { 'x-svc-api-key': apiKey },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
}

/** A one-endpoint listing pointing at a local provider server's /echo. */
export function echoListing(providerId: string, baseUrl: string, price = '0.01') {
  return {
    provider_id: providerId,
    name: `Listing ${providerId}`,
    description: 'A self-service listing',
    category: 'utility',
    base_url: baseUrl,
    endpoints: [
      {
        slug: 'echo',
        method: 'POST',
        description: 'Echoes a quokka-shaped payload back',
        parameters: { text: { type: 'string', required: false, description: 'Text to echo' } },
        pricing: { model: 'per_call', price_per_call_usdc: price },
      },
    ],
  };
}
