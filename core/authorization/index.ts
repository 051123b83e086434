/** The person-facing grants' pure rules (authorization code with PKCE, RFC 7636/9700; device grant, RFC 8628): no I/O here. */
export { challengeProblem, verifierMatches, s256 } from './pkce.ts';
export {
  newUserCode,
  normaliseUserCode,
  answerPoll,
  USER_CODE_ALPHABET,
  USER_CODE_LENGTH,
  DEVICE_CODE_LIFETIME_SECONDS,
  DEFAULT_POLL_INTERVAL_SECONDS,
  SLOW_DOWN_STEP_SECONDS,
  type DeviceAuthorization,
  type DeviceStatus,
  type PollAnswer,
} from './device-code.ts';
export {
  renderConsentPage,
  renderUserCodePage,
  renderNoticePage,
  narrowedConsent,
  csrfToken,
  csrfMatches,
  consentHeaders,
  CONSENT_PAGE_HEADERS,
  type ConsentView,
} from './consent-page.ts';
