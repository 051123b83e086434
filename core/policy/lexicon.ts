/**
 * The policy generator's word tables (docs/AI-POLICY.md shows them as tables). Changing an entry
 * changes what a description means, so it changes GENERATOR too: a policy names the table version
 * that produced it.
 */

export const GENERATOR = 'suite-policy-rules/1';

/** Canonical actions; `*` only from the explicit phrase "all actions". */
export type Action = 'read' | 'write' | 'delete' | 'send' | 'execute' | '*';

function forms(actions: Action[], words: string): Array<[string, Action[]]> {
  return words.split(' ').map((w) => [w, actions]);
}

/**
 * Verb forms, one word each (multi-word phrases are in ACTION_PHRASES). Third-person forms that are
 * common nouns ("lists", "updates", "changes") are left out on purpose: "read updates" must not
 * read as two verbs.
 */
const ACTION_WORDS = new Map<string, Action[]>([
  ...forms(
    ['read'],
    'read reads reading view viewing viewed list listing listed see seeing seen search searching searched ' +
      'fetch fetches fetching fetched get getting query querying queried browse browsing browsed access accessing accessed ' +
      'inspect inspecting inspected look retrieve retrieves retrieving retrieved download downloading downloaded read-only readonly',
  ),
  ...forms(
    ['write'],
    'write writes writing written update updating updated create creates creating created edit editing edited ' +
      'modify modifies modifying modified add adding added change changing changed insert inserting inserted upload uploading ' +
      'uploaded draft drafting drafted',
  ),
  ...forms(
    ['delete'],
    'delete deletes deleting deleted remove removes removing removed erase erasing erased purge purging purged ' + 'destroy destroying destroyed',
  ),
  ...forms(['send'], 'send sends sending sent reply replying replied forward forwarding forwarded'),
  ...forms(['execute'], 'execute executes executing executed run running trigger triggering triggered invoke invoking invoked'),
  ...forms(['read', 'write'], 'manage manages managing managed'),
]);

/** Multi-word action phrases, tried before single words. */
const ACTION_PHRASES: Array<[string[], Action[]]> = [
  [
    ['full', 'access'],
    ['read', 'write', 'delete'],
  ],
  [['all', 'actions'], ['*']],
];

/** The action phrase starting at `words[i]`: its actions and length in words. */
export function actionAt(words: readonly string[], i: number): { actions: Action[]; length: number } | undefined {
  for (const [phrase, actions] of ACTION_PHRASES) {
    if (phrase.every((w, k) => words[i + k] === w)) return { actions, length: phrase.length };
  }
  const one = ACTION_WORDS.get(words[i] ?? '');
  return one ? { actions: one, length: 1 } : undefined;
}

/** Nouns that name a well-known resource; any other noun becomes a resource of its own name. */
const RESOURCE_WORDS = new Map<string, string>([
  ...aliases('crm', 'crm'),
  ...aliases('calendar', 'calendar calendars meeting meetings appointment appointments'),
  ...aliases('email', 'email emails e-mail e-mails mail mails inbox inboxes mailbox mailboxes'),
  ...aliases('tickets', 'ticket tickets'),
  ...aliases('payments', 'payment payments refund refunds transaction transactions'),
  ...aliases('invoices', 'invoice invoices billing'),
  ...aliases('files', 'file files document documents docs drive'),
  ...aliases('contacts', 'contact contacts'),
  ...aliases('users', 'user users account accounts'),
  ...aliases('repos', 'repo repos repository repositories'),
  ...aliases('database', 'database databases db'),
  ...aliases('logs', 'log logs'),
  ...aliases('chat', 'chat chats slack'),
]);

function aliases(resource: string, words: string): Array<[string, string]> {
  return words.split(' ').map((w) => [w, resource]);
}

export function knownResource(word: string): string | undefined {
  return RESOURCE_WORDS.get(word);
}

/** A noun used as a resource name must be a scope segment (actors/capability/scope.ts). */
export const GENERIC_RESOURCE = /^[a-z][a-z0-9_-]{0,39}$/;

/** Words that negate the nearest action (docs/AI-POLICY.md, "Negation"). */
export const NEGATIONS = new Set([
  'not',
  'never',
  'no',
  'cannot',
  "can't",
  'cant',
  "don't",
  'dont',
  "doesn't",
  'doesnt',
  "mustn't",
  "shouldn't",
  "won't",
  'nor',
  'forbidden',
  'prohibited',
  'disallowed',
  'banned',
]);

/** Words skipped before an object ("read *the* crm", "write *to* the calendar"). */
export const LEADING = new Set([
  'the',
  'a',
  'an',
  'any',
  'some',
  'my',
  'our',
  'your',
  'their',
  'his',
  'her',
  'its',
  'this',
  'that',
  'these',
  'those',
  'to',
  'from',
  'in',
  'on',
  'of',
  'at',
  'into',
  'onto',
  'about',
  'over',
  'all',
  'every',
  'each',
  'existing',
  'new',
]);

/** Pronouns standing for the resources named last. */
export const PRONOUNS = new Set(['it', 'them', 'they', 'these', 'those']);

/** Words joining two actions or two objects. */
export const CONNECTORS = new Set(['and', 'or', ',', '&', '/', 'and/or', 'plus']);

/** Words that are never a resource and end a noun phrase. */
const STOP = new Set([
  ...LEADING,
  ...NEGATIONS,
  ...PRONOUNS,
  ...CONNECTORS,
  'with',
  'for',
  'by',
  'under',
  'within',
  'during',
  'without',
  'via',
  'through',
  'across',
  'per',
  'than',
  'as',
  'so',
  'if',
  'when',
  'while',
  'where',
  'which',
  'who',
  'whom',
  'whose',
  'then',
  'also',
  'only',
  'just',
  'too',
  'but',
  'except',
  'i',
  'we',
  'you',
  'he',
  'she',
  'us',
  'me',
  'him',
  'can',
  'could',
  'may',
  'might',
  'must',
  'shall',
  'should',
  'will',
  'would',
  'do',
  'does',
  'did',
  'be',
  'is',
  'are',
  'was',
  'were',
  'been',
  'being',
  'am',
  'has',
  'have',
  'had',
  'able',
  'allowed',
  'permitted',
  'permission',
  'permissions',
  'please',
  'everything',
  'anything',
  'nothing',
  'something',
  'up',
  'out',
  'more',
  'most',
  'less',
  'least',
  'other',
  'else',
  'here',
  'there',
  'now',
  'once',
  'twice',
  'always',
]);

/**
 * Whether a word can be part of a noun phrase. Adverbs in -ly ("daily", "only", "automatically") are
 * not: "read reports daily" is about reports.
 */
export function isContentWord(word: string): boolean {
  if (STOP.has(word)) return false;
  if (word.length > 4 && word.endsWith('ly')) return false;
  return /^[\p{L}]/u.test(word);
}
