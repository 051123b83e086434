import { FIELD_LIST_END, KNOWN_SERVICES, STOP_WORDS, VERBS, type KnownService, type VerbClass } from './lexicon.ts';

/**
 * What a prompt asks for, read by rules: the service (a known one by name, else the word before
 * "API" or the first capitalised word, else one after "for"/"to"/"with"), its base URL (one written
 * in the prompt wins), how the token is sent, and the actions (each verb of the lexicon with the noun
 * after it, and the fields named after "with"). Same prompt, same intent: nothing here is random,
 * timed or learned.
 */

export interface FieldIntent {
  readonly name: string;
  readonly kind: 'string' | 'integer' | 'object';
  readonly required: boolean;
  readonly description: string;
}

export interface ActionIntent {
  readonly name: string;
  readonly verb: VerbClass;
  readonly resource: string;
  readonly collection: string;
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** With `{id}` where the item's id goes. */
  readonly path: string;
  readonly effect: 'read' | 'write';
  readonly description: string;
  readonly fields: readonly FieldIntent[];
}

export interface ConnectorIntent {
  readonly id: string;
  readonly title: string;
  readonly baseUrl: string | undefined;
  readonly authHeader: string;
  readonly authPrefix: string;
  readonly verifyPath: string;
  readonly actions: readonly ActionIntent[];
}

export const MAX_ACTIONS = 8;
const MAX_FIELDS = 10;

interface Word {
  readonly lower: string;
  readonly raw: string;
}

export function readIntent(prompt: string): ConnectorIntent | { problem: string } {
  const words: Word[] = [...prompt.matchAll(/[A-Za-z][A-Za-z0-9]*/g)].map((m) => ({ raw: m[0], lower: m[0].toLowerCase() }));
  if (!words.some((w) => w.lower.length >= 2))
    return { problem: 'prompt must describe the connector in words (letters a-z), e.g. "create and get tickets in the Acme API"' };
  const url = baseUrlIn(prompt);
  const known = words.map((w) => KNOWN_SERVICES[w.lower]).find((s): s is KnownService => s !== undefined);
  const name = known !== undefined ? undefined : serviceWord(words, url);
  const id = known !== undefined ? words.find((w) => KNOWN_SERVICES[w.lower] === known)!.lower : slug(name ?? 'custom');
  const title = known?.title ?? (name !== undefined ? name.charAt(0).toUpperCase() + name.slice(1) : 'Custom');
  const auth = authIn(prompt.toLowerCase(), known);
  return {
    id,
    title,
    baseUrl: url ?? known?.baseUrl,
    ...auth,
    verifyPath: known?.verifyPath ?? '/',
    actions: actionsIn(words, new Set([id, ...(name !== undefined ? [name.toLowerCase()] : [])])),
  };
}

function baseUrlIn(prompt: string): string | undefined {
  const match = /https?:\/\/[A-Za-z0-9.-]+(?::[0-9]{1,5})?(?:\/[A-Za-z0-9._~/-]*)?/.exec(prompt);
  if (match === null) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(match[0]);
  } catch {
    return undefined;
  }
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}`.replace(/\/+$/, '');
}

function serviceWord(words: readonly Word[], url: string | undefined): string | undefined {
  const usable = (w: Word | undefined): w is Word => w !== undefined && w.lower.length >= 2 && !STOP_WORDS.has(w.lower) && !Object.hasOwn(VERBS, w.lower);
  const beforeApi = words.findIndex((w, i) => i > 0 && (w.lower === 'api' || w.lower === 'service') && usable(words[i - 1]));
  if (beforeApi > 0) return words[beforeApi - 1]!.raw;
  const capitalised = words.find((w) => /^[A-Z]/.test(w.raw) && usable(w));
  if (capitalised !== undefined) return capitalised.raw;
  if (url !== undefined) {
    // The registrable part of the host: api.acme.io -> acme.
    // The first label that is not a generic one: api.acme.io -> acme, api.weather.example.net -> weather.
    const label = new URL(url).hostname.split('.').find((p) => !['api', 'www', 'rest', 'app'].includes(p));
    if (label !== undefined && /^[a-z][a-z0-9-]*$/.test(label)) return label;
  }
  const after = words.findIndex((w, i) => ['for', 'to', 'with'].includes(w.lower) && usable(words[i + 1]));
  return after >= 0 ? words[after + 1]!.raw : undefined;
}

function authIn(lower: string, known: KnownService | undefined): { authHeader: string; authPrefix: string } {
  if (/\bx-api-key\b|\bapi[ -]?key\b|\bapikey\b/.test(lower)) return { authHeader: 'x-api-key', authPrefix: '' };
  if (/\bbasic auth/.test(lower)) return { authHeader: 'authorization', authPrefix: 'Basic ' };
  if (known !== undefined) return { authHeader: known.authHeader, authPrefix: known.authPrefix };
  return { authHeader: 'authorization', authPrefix: 'Bearer ' };
}

export function slug(word: string): string {
  const s = word
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return /^[a-z]/.test(s) ? s : `c${s}`.slice(0, 40);
}

function singular(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 4 && /(ses|xes|ches|shes)$/.test(word)) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !/(ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

function plural(word: string): string {
  if (/[^aeiou]y$/.test(word)) return `${word.slice(0, -1)}ies`;
  if (/(s|x|ch|sh)$/.test(word)) return `${word}es`;
  return `${word}s`;
}

/** A verb of the lexicon, also in its third person ("posts", "fetches"). */
function verbOf(word: string): string | undefined {
  const forms = [word, ...(word.endsWith('es') ? [word.slice(0, -2)] : []), ...(word.endsWith('s') ? [word.slice(0, -1)] : [])];
  return forms.find((f) => Object.hasOwn(VERBS, f));
}

const METHOD: Readonly<Record<VerbClass, ActionIntent['method']>> = { create: 'POST', read: 'GET', list: 'GET', update: 'PATCH', delete: 'DELETE' };

function actionsIn(words: readonly Word[], serviceWords: ReadonlySet<string>): ActionIntent[] {
  const actions: ActionIntent[] = [];
  const names = new Set<string>();
  for (let i = 0; i < words.length && actions.length < MAX_ACTIONS; i += 1) {
    const verbWord = verbOf(words[i]!.lower);
    if (verbWord === undefined) continue;
    const verb = VERBS[verbWord]!;
    let j = i + 1;
    while (j < words.length && (STOP_WORDS.has(words[j]!.lower) || serviceWords.has(words[j]!.lower)) && VERBS[words[j]!.lower] === undefined) j += 1;
    // "list and search pages": a verb followed by another verb shares the noun that ends the chain.
    let n = j;
    while (n < words.length && (STOP_WORDS.has(words[n]!.lower) || serviceWords.has(words[n]!.lower) || VERBS[words[n]!.lower] !== undefined)) n += 1;
    const next = words[j];
    const noun = words[n];
    const resource = noun !== undefined && /^[a-z][a-z0-9]{1,29}$/.test(noun.lower) ? singular(noun.lower) : 'item';
    const fields = verb === 'create' || verb === 'update' ? fieldsAfter(words, j + 1) : [];
    if (next !== undefined && VERBS[next.lower] === undefined) i = j;
    const action = actionOf(verbWord, verb, resource, fields);
    if (names.has(action.name)) continue;
    names.add(action.name);
    actions.push(action);
  }
  if (actions.length === 0) actions.push(actionOf('list', 'list', 'item', []));
  return actions;
}

/** `with a title, a body and labels` -> title, body, labels. */
function fieldsAfter(words: readonly Word[], from: number): string[] {
  if (words[from]?.lower !== 'with') return [];
  const fields: string[] = [];
  for (let k = from + 1; k < words.length && fields.length < MAX_FIELDS; k += 1) {
    const w = words[k]!.lower;
    if (FIELD_LIST_END.has(w) || VERBS[w] !== undefined) break;
    if (STOP_WORDS.has(w) || w === 'id' || w in Object.prototype || w.length > 40 || fields.includes(w)) continue;
    fields.push(w);
  }
  return fields;
}

function actionOf(verbWord: string, verb: VerbClass, resource: string, named: readonly string[]): ActionIntent {
  const collection = plural(resource);
  const id: FieldIntent = { name: 'id', kind: 'string', required: true, description: `Id of the ${resource}` };
  const given = named.map((name): FieldIntent => ({ name, kind: 'string', required: verb === 'create', description: `The ${resource}'s ${name}` }));
  const generic: FieldIntent = { name: 'fields', kind: 'object', required: true, description: `The ${resource}'s fields, as the API names them` };
  const fields: Record<VerbClass, FieldIntent[]> = {
    create: given.length > 0 ? given : [generic],
    read: [id],
    list: [
      { name: 'query', kind: 'string', required: false, description: `Search text for ${collection}` },
      { name: 'limit', kind: 'integer', required: false, description: `Most ${collection} returned (1-100)` },
    ],
    update: [id, ...(given.length > 0 ? given : [generic])],
    delete: [id],
  };
  const a = /^[aeiou]/.test(resource) ? 'an' : 'a';
  const words: Record<VerbClass, string> = {
    create: `${verbWord.charAt(0).toUpperCase()}${verbWord.slice(1)} ${a} ${resource}`,
    read: `Read one ${resource} by id`,
    list: `List ${collection}, optionally matching a search`,
    update: `Change fields of ${a} ${resource}`,
    delete: `${verbWord.charAt(0).toUpperCase()}${verbWord.slice(1)} ${a} ${resource}`,
  };
  const itemPath = `/${collection}/{id}`;
  return {
    name: `${verbWord}_${verb === 'list' ? collection : resource}`,
    verb,
    resource,
    collection,
    method: METHOD[verb],
    path: verb === 'create' || verb === 'list' ? `/${collection}` : itemPath,
    effect: verb === 'read' || verb === 'list' ? 'read' : 'write',
    description: `${words[verb]} (${METHOD[verb]} ${verb === 'create' || verb === 'list' ? `/${collection}` : itemPath})`,
    fields: fields[verb],
  };
}
