import type { ConfigReader } from '../../config/index.ts';

export interface TokenConfig {
  /** `SUITE_SIGNUP_ENABLED`: `GET /signup` and `POST /signup` exist; off by default (docs/TENANCY.md, "Signup"). */
  readonly signupEnabled: boolean;
  /** `BILLING_WEBHOOK_SECRET`: the secrets of `POST /billing/webhook`'s signature, comma-separated; unset: every call refused. */
  readonly billingWebhookSecret: string | undefined;
}

export function tokenConfig({ str, bool }: ConfigReader): TokenConfig {
  return { signupEnabled: bool('SUITE_SIGNUP_ENABLED', false), billingWebhookSecret: str('BILLING_WEBHOOK_SECRET') };
}
