/**
 * The cost rules of the spec ("Cost object rules"; Errors: "Rejected execution input"), each named
 * in the message when broken. Checked on the edge (400 INVALID_REQUEST) and again by the chain
 * writer, which never trusts a bus payload. The suite records cost as a claim; it never measures
 * it (core rule 4).
 */
export interface CostInput {
  amount?: unknown;
  currency?: unknown;
  source?: unknown;
  unit?: unknown;
  quantity?: unknown;
}

/** ISO 4217 alphabetic codes are three letters, written in upper case. */
const ISO_4217 = /^[A-Z]{3}$/;

export function costProblem(cost: CostInput): string | undefined {
  const { amount, currency, source, unit, quantity } = cost;
  if (typeof amount !== 'number' || !Number.isInteger(amount)) {
    return 'cost rule: amount must be an integer in minor currency units (a non-integer amount is rejected)';
  }
  if (amount < 0) return 'cost rule: amount must not be negative (a refund is its own execution)';
  if (!Number.isSafeInteger(amount)) return 'cost rule: amount must be at most 2^53 - 1 minor units';
  if (typeof currency !== 'string') return 'cost rule: currency is required (ISO 4217, upper case)';
  if (ISO_4217.test(currency.toUpperCase()) && currency !== currency.toUpperCase()) {
    return 'cost rule: currency must be upper case ISO 4217 (a lowercase currency is rejected)';
  }
  if (!ISO_4217.test(currency)) return 'cost rule: currency must be an ISO 4217 code of three upper-case letters';
  if (typeof source !== 'string' || source.length === 0) {
    return 'cost rule: source is required (a figure with no source is rejected)';
  }
  if (unit !== undefined && quantity === undefined) return 'cost rule: quantity is required when unit is present';
  if (quantity !== undefined && (typeof quantity !== 'number' || !Number.isFinite(quantity))) {
    return 'cost rule: quantity must be a number';
  }
  return undefined;
}
