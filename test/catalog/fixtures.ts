// A valid provider definition for the admin API; tests change one field at a time.
export function providerInput(overrides: Record<string, unknown> = {}) {
  return {
    name: 'Acme Weather',
    description: 'Weather data for anywhere on Earth',
    category: 'data_intelligence',
    website: 'https://acme.example.com',
    base_url: 'https://api.acme.example.com/v2',
    tags: ['weather', 'forecast'],
    endpoints: [
      {
        slug: 'current',
        method: 'GET',
        description: 'Current weather for a place',
        tags: ['weather', 'live'],
        parameters: {
          place: { type: 'string', required: true, description: 'Place name' },
          units: { type: 'string', required: false, description: 'metric or us', enum: ['metric', 'us'] },
        },
        response_schema: { temp: { type: 'number' }, summary: { type: 'string' } },
        pricing: { model: 'per_call', price_per_call_usdc: '0.0015' },
      },
      {
        slug: 'forecast',
        method: 'POST',
        path: '/forecast/daily',
        description: 'Seven-day forecast',
        parameters: {
          place: { type: 'string', required: true, description: 'Place name' },
          days: { type: 'integer', required: false, description: 'Days ahead', minimum: 1, maximum: 7 },
        },
        pricing: { model: 'per_call', price_per_call_usdc: '0.002' },
        timeout_ms: 5000,
      },
    ],
    ...overrides,
  };
}

/** Same fixture with the first endpoint changed. */
export function withEndpoint(change: Record<string, unknown>) {
  const input = providerInput();
  const [first, ...rest] = input.endpoints;
  return { ...input, endpoints: [{ ...first, ...change }, ...rest] };
}
