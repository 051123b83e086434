import type { StandardSchemaV1 } from '@standard-schema/spec';
import { SchemaValidationError, type Interceptor, type QueryResultRow } from 'slonik';
import type { Static, TSchema } from 'typebox';
import { Compile } from 'typebox/compile';

/**
 * Typed, validated rows with slonik 49: `sql.type(parser)` takes a Standard Schema, types the result
 * from it, and hands it to interceptors as `resultParser`; slonik itself validates nothing. TypeBox
 * (our schema library) does not implement Standard Schema, so `rowSchema` adapts a TypeBox schema,
 * and `rowValidation` (installed on every suite pool) checks each row against it:
 *
 *   const HeadRow = rowSchema(Type.Object({ seq: Type.Number(), hash: Type.String() }));
 *   const head = await db.maybeOne(sql.type(HeadRow)`SELECT seq, hash FROM chain_heads WHERE chain = ${chain}`);
 *   //    ^? { seq: number; hash: string } | null
 *
 * Compile once at module level (as above), not per query: compiling is the expensive part.
 */
export function rowSchema<T extends TSchema>(schema: T): StandardSchemaV1<Static<T>, Static<T>> {
  const validator = Compile(schema);
  return {
    '~standard': {
      version: 1,
      vendor: 'typebox',
      validate(value: unknown): StandardSchemaV1.Result<Static<T>> {
        if (validator.Check(value)) return { value: value as Static<T> };
        return {
          issues: validator.Errors(value).map((error) => ({
            message: error.message,
            path: error.instancePath.split('/').filter((segment) => segment !== ''),
          })),
        };
      },
    },
  };
}

/**
 * Validates every row of a query built with `sql.type(schema)` (`sql.unsafe` carries a schema that
 * accepts anything). A mismatch throws slonik's SchemaValidationError: the schema drifted from the
 * query or the table, and a loud error beats a wrong value travelling on.
 */
export const rowValidation: Interceptor = {
  name: 'suite-row-validation',
  transformRow(context, query, row): QueryResultRow {
    const parser = context.resultParser;
    if (parser === undefined) return row;
    const result = parser['~standard'].validate(row);
    if (result instanceof Promise) {
      throw new TypeError('Row schemas must validate synchronously (got a Promise)');
    }
    if (result.issues !== undefined) throw new SchemaValidationError(query, row, result.issues);
    return result.value as QueryResultRow;
  },
};
