// Path ids (`/v1/providers/:providerId`, `/v1/keys/:keyId`, …) share one shape: our generated ids
// (`acc_…`, `key_…`), provider slugs and processor ids (`cs_test_…`) are all letters, digits, `_`, `-`, `.`
// and `:`. Anything else is refused by the route schema (400 SVC-VAL-001) before it reaches a query.
import { Type } from '@sinclair/typebox';

export const PATH_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.:-]*$';

export const PathId = (maxLength = 128) => Type.String({ minLength: 1, maxLength, pattern: PATH_ID_PATTERN });

/** The same, as a plain JSON schema for routes that do not use TypeBox. */
export const pathIdSchema = (maxLength = 128) =>
  ({ type: 'string', minLength: 1, maxLength, pattern: PATH_ID_PATTERN }) as const;
