// Input handling of the sample app: GET query strings are coerced by the declared parameter types, and
// every input is checked against the parameter map (the service validates before forwarding, but a
// provider should not trust that alone).
import type { ParameterInput } from '../../src/modules/catalog/schemas.js';
import { type SampleInput, SampleInputError } from './types.js';

type Parameters = Record<string, ParameterInput>;

function coerce(raw: string, p: ParameterInput): unknown {
  switch (p.type) {
    case 'integer':
    case 'number': {
      const n = Number(raw);
      return raw.trim() === '' || Number.isNaN(n) ? raw : n;
    }
    case 'boolean':
      return raw === 'true' ? true : raw === 'false' ? false : raw;
    case 'array':
    case 'object':
      try {
        return JSON.parse(raw);
      } catch {
        return raw;
      }
    default:
      return raw;
  }
}

export function inputFromQuery(query: URLSearchParams, parameters: Parameters): SampleInput {
  const input: SampleInput = {};
  for (const [name, value] of query) {
    const p = parameters[name];
    input[name] = p ? coerce(value, p) : value;
  }
  return input;
}

export function inputFromJson(body: string): SampleInput {
  if (body.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new SampleInputError('body is not valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new SampleInputError('body must be a JSON object');
  }
  return parsed as SampleInput;
}

function typeOk(value: unknown, type: ParameterInput['type']): boolean {
  switch (type) {
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'array':
      return Array.isArray(value);
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    default:
      return typeof value === type;
  }
}

/** Checks required, type, enum and bounds; fills defaults. Returns the input to hand to the handler. */
export function checkInput(input: SampleInput, parameters: Parameters): SampleInput {
  const out: SampleInput = { ...input };
  for (const name of Object.keys(input)) {
    if (!(name in parameters)) throw new SampleInputError(`unknown parameter "${name}"`);
  }
  for (const [name, p] of Object.entries(parameters)) {
    const value = out[name];
    if (value === undefined) {
      if (p.required) throw new SampleInputError(`"${name}" is required`);
      if (p.default !== undefined) out[name] = p.default;
      continue;
    }
    if (!typeOk(value, p.type)) throw new SampleInputError(`"${name}" must be of type ${p.type}`);
    if (p.enum && !p.enum.includes(value as string | number | boolean)) {
      throw new SampleInputError(`"${name}" must be one of ${p.enum.join(', ')}`);
    }
    if (typeof value === 'number') {
      if (p.minimum !== undefined && value < p.minimum)
        throw new SampleInputError(`"${name}" must be ≥ ${p.minimum}`);
      if (p.maximum !== undefined && value > p.maximum)
        throw new SampleInputError(`"${name}" must be ≤ ${p.maximum}`);
    }
    if (typeof value === 'string') {
      if (p.minLength !== undefined && value.length < p.minLength) {
        throw new SampleInputError(`"${name}" must have at least ${p.minLength} characters`);
      }
      if (p.maxLength !== undefined && value.length > p.maxLength) {
        throw new SampleInputError(`"${name}" must have at most ${p.maxLength} characters`);
      }
    }
    if (Array.isArray(value) && p.maxItems !== undefined && value.length > p.maxItems) {
      throw new SampleInputError(`"${name}" must have at most ${p.maxItems} items`);
    }
  }
  return out;
}
