import { DEVICE_CODE_GRANT, oauthError } from '../../../core/oauth/index.ts';
import { pollDeviceCode, recordIssued } from '../authorizations.ts';
import type { GrantModule } from './types.ts';

/**
 * The device grant's token request (RFC 8628 §3.4, §3.5): each poll answers `authorization_pending`
 * until a person decides on the consent page, `slow_down` (interval raised by five seconds) when
 * polled faster than the interval, `access_denied`, or `expired_token`; once approved, one poll gets
 * the token, for the person who approved, with what they approved.
 */
export const deviceCodeGrant: GrantModule = {
  type: DEVICE_CODE_GRANT,
  publicClients: true,
  async handle({ params, client, now, deps }) {
    const deviceCode = params.device_code;
    if (deviceCode === undefined || deviceCode.length > 512) return { ok: false, error: oauthError('invalid_request', 'device_code is required') };
    const polled = await pollDeviceCode(deps.storage.pool, deviceCode, now, client.clientId);
    if (polled.kind === 'unknown') return { ok: false, error: oauthError('invalid_grant', 'unknown device code') };
    const { answer, authorization: a } = polled;
    switch (answer.answer) {
      case 'authorization_pending':
        return { ok: false, error: oauthError('authorization_pending', 'the person has not decided yet') };
      case 'slow_down':
        return { ok: false, error: oauthError('slow_down', `polled faster than the interval: poll every ${answer.intervalSeconds} s`) };
      case 'access_denied':
        return { ok: false, error: oauthError('access_denied', 'the person denied the request') };
      case 'expired_token':
        return { ok: false, error: oauthError('expired_token', 'the device code has expired: start again') };
      case 'invalid_grant':
        return { ok: false, error: oauthError('invalid_grant', 'the device code was already used') };
      case 'issue':
        break;
    }
    return {
      ok: true,
      note: `device code approved by ${a.approvedBy}`,
      mint: {
        sub: a.approvedBy ?? client.clientId,
        scope: a.approvedScope ?? [],
        lifetimeSeconds: a.approvedLifetimeSeconds ?? 300,
        ...(a.resource !== null ? { aud: a.resource } : {}),
        ...(a.tenantId !== null ? { tenantId: a.tenantId } : {}),
        ...(client.grantTypes.includes('refresh_token') && a.familyId !== null ? { refresh: { familyId: a.familyId } } : {}),
        recordIssued: (tx, jti) => recordIssued(tx, a.requestId, jti),
      },
    };
  },
};
