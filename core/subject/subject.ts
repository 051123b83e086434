/**
 * The one rule for subjects (the `sub` of a token, an enrolled identity, an execution's actor),
 * applied at enrolment, at issuance and at recording (issue 25, finding 9; docs/IDENTITIES.md,
 * "Subjects"). A subject must not read the same as another one: `agent-1 `, `agent-1` with a
 * zero-width space, and full-width `ａｇｅｎｔ-1` were all accepted as distinct subjects, so an enrolled
 * identity could be shadowed by a name that looks like it.
 *
 * Modelled on the PRECIS IdentifierClass (RFC 8264 §4.2, §9) without its ASCII-letters-only core:
 *
 * - normalised: Unicode NFC (RFC 8264 §5.2.5). Two spellings that are canonically equivalent are the
 *   same text by Unicode's own definition; a keyboard may produce either, so the subject is stored in
 *   one of them and both find it.
 * - refused:
 *   - leading or trailing white space (invisible at the end of a name in every view of it);
 *   - control characters (Cc), format characters (Cf: zero-width spaces and joiners, the bidi
 *     controls, the BOM, soft hyphen), line and paragraph separators, private-use and surrogate code
 *     points, and any other default-ignorable code point (RFC 8264 §9.13, §9.14, "DISALLOWED");
 *   - compatibility characters, whose NFKC form differs (RFC 8264 §9.17 HasCompat): full-width and
 *     half-width forms, ligatures, no-break and ideographic spaces, superscripts. Folding them
 *     silently would merge names a user typed differently; refusing says so.
 *
 * Refused rather than cleaned: a caller whose subject breaks the rule is told (400 naming the field),
 * and no stored subject was ever changed without the caller's knowledge but for NFC.
 */

const DISALLOWED = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cs}\p{Default_Ignorable_Code_Point}]/u;
const EDGE_SPACE = /^\s|\s$/u;

export type SubjectVerdict = { ok: true; subject: string } | { ok: false; problem: string };

/** The subject in its one stored form (NFC), or why it is refused; `problem` never quotes the value. */
export function normaliseSubject(text: string): SubjectVerdict {
  if (text.length === 0) return { ok: false, problem: 'is empty' };
  if (!text.isWellFormed()) return { ok: false, problem: 'holds a lone surrogate' };
  const nfc = text.normalize('NFC');
  if (EDGE_SPACE.test(nfc)) return { ok: false, problem: 'begins or ends with white space' };
  const disallowed = DISALLOWED.exec(nfc);
  if (disallowed !== null) {
    return { ok: false, problem: `holds an invisible or control character (U+${codePoint(disallowed[0])}) at position ${disallowed.index}` };
  }
  if (nfc.normalize('NFKC') !== nfc) {
    return { ok: false, problem: 'holds a compatibility character (a full-width or half-width form, a ligature, a special space); write it in its plain form' };
  }
  return { ok: true, subject: nfc };
}

/** Whether `text` is a subject already in its stored form (what a token the issuer minted carries). */
export function isNormalSubject(text: string): boolean {
  const verdict = normaliseSubject(text);
  return verdict.ok && verdict.subject === text;
}

function codePoint(char: string): string {
  return (char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
}
