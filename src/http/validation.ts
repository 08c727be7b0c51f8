// Two Ajv instances: bodies are validated strictly (no type coercion: "5" is not 5, unknown fields are
// refused), query strings and path params are coerced from strings as HTTP requires.
import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

const common: Options = { allErrors: true, removeAdditional: false, useDefaults: true, strict: false };

function withFormats(ajv: Ajv): Ajv {
  (addFormats as unknown as (a: Ajv) => Ajv)(ajv);
  return ajv;
}

export const strictAjv = withFormats(new Ajv({ ...common, coerceTypes: false }));
const coercingAjv = withFormats(new Ajv({ ...common, coerceTypes: 'array' }));

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? strictAjv : coercingAjv;
  return ajv.compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>;
};
