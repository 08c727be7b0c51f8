// How a schema error reads in an answer's `details.errors` (docs/architecture.md, "Errors").

/** One schema error as Ajv reports it (Fastify's `error.validation` items have the same shape). */
export interface SchemaIssue {
  instancePath?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** One invalid field of `details.errors`: a dotted path ("filters.category", "" for the whole value). */
export interface FieldError {
  path: string;
  message: string;
}

/**
 * Schema errors → `details.errors: [{path, message}]`, one per error, the path including a missing or
 * unknown property's name. Every validation error of the API (routes, provider parameters, MCP tool
 * arguments, the catalogue's CLI input) is mapped here, so they read the same everywhere.
 */
export function fieldErrors(issues: readonly SchemaIssue[] | null | undefined): FieldError[] {
  return (issues ?? []).map((issue) => {
    const base = (issue.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
    const extra = issue.params?.additionalProperty;
    const missing = issue.params?.missingProperty;
    const name = typeof extra === 'string' ? extra : typeof missing === 'string' ? missing : undefined;
    const path = name === undefined ? base : base ? `${base}.${name}` : name;
    return { path, message: typeof extra === 'string' ? 'is not allowed' : (issue.message ?? 'is invalid') };
  });
}

/** The first error as the message of the answer: "limit must be <= 50"; `whole` names an empty path. */
export function firstFieldError(errors: readonly FieldError[], whole = 'body'): string | undefined {
  const first = errors[0];
  return first ? `${first.path || whole} ${first.message}` : undefined;
}

/** Every field error on one line, for a terminal: "limit must be <= 50; body.name is not allowed". */
export function fieldErrorsText(errors: readonly FieldError[], whole = 'body'): string {
  return errors.map((e) => `${e.path || whole} ${e.message}`).join('; ');
}
