// Checks on a provider definition that a JSON Schema cannot express well, reported exactly like schema
// errors (SVC-VAL-001, details.errors[{path, message}]). Also the entry point for input that did not come
// through a Fastify route (CLI, bundled samples): parseProviderInput runs the schema and these checks.
import { AppError } from '../../errors/catalogue.js';
import { type FieldError, fieldErrors } from '../../errors/field-errors.js';
import { strictAjv } from '../../http/validation.js';
import { isUsdcString, usdcToCredits } from '../../lib/money.js';
import {
  type AdminProviderInput,
  AdminProviderInputSchema,
  type ParameterInput,
  type ProviderInput,
} from './schemas.js';

function invalid(errors: FieldError[]): AppError {
  const first = errors[0];
  const message = first ? `${first.path} ${first.message}` : 'Invalid request';
  return new AppError('SVC-VAL-001', message, { errors });
}

/** Throws SVC-VAL-001 listing every problem; returns the input otherwise. */
export function checkProviderInput<T extends ProviderInput>(input: T): T {
  const errors: FieldError[] = [];
  const urlError = httpUrlError(input.base_url, true);
  if (urlError) errors.push({ path: 'base_url', message: urlError });
  if (input.website !== undefined) {
    const websiteError = httpUrlError(input.website, false);
    if (websiteError) errors.push({ path: 'website', message: websiteError });
  }
  const firstIndexOfSlug = new Map<string, number>();
  input.endpoints.forEach((endpoint, i) => {
    const at = `endpoints.${i}`;
    const earlier = firstIndexOfSlug.get(endpoint.slug);
    if (earlier === undefined) firstIndexOfSlug.set(endpoint.slug, i);
    else errors.push({ path: `${at}.slug`, message: `duplicates endpoints.${earlier}.slug` });
    const price = endpoint.pricing.price_per_call_usdc;
    if (!isUsdcString(price) || usdcToCredits(price) <= 0n) {
      errors.push({
        path: `${at}.pricing.price_per_call_usdc`,
        message: 'must be a positive decimal string with at most 6 decimals',
      });
    }
    for (const [name, parameter] of Object.entries(endpoint.parameters)) {
      for (const e of parameterErrors(parameter)) {
        errors.push({ path: `${at}.parameters.${name}.${e.path}`, message: e.message });
      }
    }
  });
  if (errors.length) throw invalid(errors);
  return input;
}

/** Explains why `value` is not an acceptable http(s) URL, or returns undefined. */
function httpUrlError(value: string, isBaseUrl: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute http(s) URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must use http or https';
  if (url.username || url.password) return 'must not contain credentials';
  // URL drops an empty "?" or "#", so look at the raw text too.
  if (isBaseUrl && (url.search || url.hash || /[?#]/.test(value))) {
    return 'must not contain a query string or fragment';
  }
  return undefined;
}

const STRING_ONLY = ['minLength', 'maxLength', 'pattern', 'format'] as const;
const NUMBER_ONLY = ['minimum', 'maximum'] as const;
const ARRAY_ONLY = ['items', 'maxItems'] as const;

function matchesType(value: unknown, type: ParameterInput['type']): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number';
    case 'integer':
      return Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
  }
}

/** JSON Schema extras must suit the parameter's type and agree with each other. */
function parameterErrors(p: ParameterInput): FieldError[] {
  const errors: FieldError[] = [];
  const numeric = p.type === 'number' || p.type === 'integer';
  for (const k of STRING_ONLY) {
    if (p[k] !== undefined && p.type !== 'string')
      errors.push({ path: k, message: 'applies to strings only' });
  }
  for (const k of NUMBER_ONLY) {
    if (p[k] !== undefined && !numeric) errors.push({ path: k, message: 'applies to numbers only' });
  }
  for (const k of ARRAY_ONLY) {
    if (p[k] !== undefined && p.type !== 'array') errors.push({ path: k, message: 'applies to arrays only' });
  }
  if (p.minimum !== undefined && p.maximum !== undefined && p.minimum > p.maximum) {
    errors.push({ path: 'minimum', message: 'must not exceed maximum' });
  }
  if (p.minLength !== undefined && p.maxLength !== undefined && p.minLength > p.maxLength) {
    errors.push({ path: 'minLength', message: 'must not exceed maxLength' });
  }
  if (p.pattern !== undefined) {
    try {
      new RegExp(p.pattern, 'u');
    } catch {
      errors.push({ path: 'pattern', message: 'is not a valid regular expression' });
    }
  }
  p.enum?.forEach((v, i) => {
    if (!matchesType(v, p.type)) errors.push({ path: `enum.${i}`, message: `must be of type ${p.type}` });
  });
  if (p.default !== undefined && !matchesType(p.default, p.type)) {
    errors.push({ path: 'default', message: `must be of type ${p.type}` });
  }
  return errors;
}

const validateSchema = strictAjv.compile(AdminProviderInputSchema);

/** Schema + semantic checks for input that did not pass through a route (CLI, samples). */
export function parseProviderInput(value: unknown): AdminProviderInput {
  if (!validateSchema(value)) throw invalid(fieldErrors(validateSchema.errors));
  return checkProviderInput(value as AdminProviderInput);
}
