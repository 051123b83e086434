import type { ApprovalRule, TimeWindowRule } from './conditions.ts';
import type { LimitRule } from './limits.ts';
import type { Problem } from './grants.ts';

/** The shapes policy generation takes and gives (generate.ts), apart so that explain.ts can name them without a cycle. */
export interface PolicyRequest {
  description: string;
  subject?: string;
}

export type RuleBody = LimitRule | TimeWindowRule | ApprovalRule | { kind: 'deny'; scopes: string[] };
export type PolicyRule = RuleBody & { id: string; appliesTo: string[] };

export interface Matched {
  phrase: string;
  kind: 'grant' | 'deny' | 'rule' | 'expiry' | 'waiver';
  produces: string[];
}

export interface GeneratedPolicy {
  scopes: string[];
  policy: {
    policyRef: string;
    policyVersion: string;
    generator: string;
    subject?: string;
    scopes: string[];
    rules: PolicyRule[];
    expiresIn?: string;
  };
  matched: Matched[];
  unmatched: Problem[];
  warnings: string[];
  explanation: string;
}
