/** The subject rule (NFC, no edge spaces, nothing invisible or look-alike), applied at enrolment, issuance and recording. */
export { normaliseSubject, isNormalSubject, type SubjectVerdict } from './subject.ts';
