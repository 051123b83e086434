import { randomBytes } from 'node:crypto';
import { sql } from 'slonik';

/** A new record id: a short prefix naming its kind and 128 random bits. */
export const newId = (prefix: string) => `${prefix}_${randomBytes(16).toString('hex')}`;

/** `and <column> = tenant` when the caller reads as a tenant; nothing otherwise (as GET /audit does). */
export function tenantAnd(tenantId: string | undefined, column = 'tenant_id') {
  return tenantId === undefined ? sql.fragment`` : sql.fragment`and ${sql.identifier(column.split('.'))} = ${tenantId}`;
}
