import { ollamaHost, Secret, type ConfigReader } from '../../config/index.ts';

export interface BenchSettings {
  /** `OPENAI_BASE_URL`, default https://api.openai.com/v1 (any OpenAI-compatible server). */
  readonly openaiBaseUrl: string;
  /** `ANTHROPIC_BASE_URL`, default https://api.anthropic.com. */
  readonly anthropicBaseUrl: string;
  /** `OLLAMA_HOST`, default http://127.0.0.1:11434. */
  readonly ollamaBaseUrl: string;
  /** `OPENAI_API_KEY`, `ANTHROPIC_API_KEY`: sent only to their configured base URL, never shown. */
  readonly openaiApiKey: Secret | undefined;
  readonly anthropicApiKey: Secret | undefined;
  /** `SUITE_BENCH_LEASE_MS`: a runner's claim on a job; another runner takes the job this long after the runner died. */
  readonly leaseMs: number;
  /** `SUITE_BENCH_POLL_MS`: how often an idle runner looks for queued jobs. */
  readonly pollMs: number;
}

export interface BenchConfig {
  /** The benchmark service (docs/BENCHMARK.md): where each LLM provider is, its key, the runner's lease. */
  readonly bench: BenchSettings;
}

export function benchConfig({ str, int, fail }: ConfigReader): BenchConfig {
  const baseUrl = (variable: string, fallback: string) => baseUrlOf(variable, str(variable) ?? fallback, fail);
  const secretOf = (variable: string) => {
    const value = str(variable);
    return value === undefined ? undefined : new Secret(value);
  };
  return {
    bench: {
      openaiBaseUrl: baseUrl('OPENAI_BASE_URL', 'https://api.openai.com/v1'),
      anthropicBaseUrl: baseUrl('ANTHROPIC_BASE_URL', 'https://api.anthropic.com'),
      ollamaBaseUrl: ollamaHost(str('OLLAMA_HOST'), fail) ?? 'http://127.0.0.1:11434',
      openaiApiKey: secretOf('OPENAI_API_KEY'),
      anthropicApiKey: secretOf('ANTHROPIC_API_KEY'),
      leaseMs: int('SUITE_BENCH_LEASE_MS', 10_000, 300, 600_000),
      pollMs: int('SUITE_BENCH_POLL_MS', 1000, 10, 60_000),
    },
  };
}

/** An http(s) base URL without credentials, query or fragment, kept without a trailing slash. */
function baseUrlOf(variable: string, raw: string, fail: ConfigReader['fail']): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw fail(variable, 'must be an http:// or https:// URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw fail(variable, 'must be an http:// or https:// URL');
  if (url.username !== '' || url.password !== '') throw fail(variable, 'must not carry credentials');
  if (url.search !== '' || url.hash !== '') throw fail(variable, 'must not carry a query or fragment');
  return url.toString().replace(/\/+$/, '');
}
