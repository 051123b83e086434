/**
 * What `suite start` shows a person once it is up, apart from the log: on the run that generated
 * the secrets, the admin key and a `curl` line that mints a first token; on every run, the
 * listeners. cli/command.ts writes it to standard error, after the start-up log lines, so that it
 * stands on its own on a terminal and never enters a JSON log stream read from standard output.
 */
export interface FirstScreen {
  /** Present on the run that generated the secrets (the one run that shows the admin key). */
  firstRun?: { secretsFile: string; adminKey: string } | undefined;
  /** Base URL of the token listener, for the curl line. */
  tokenUrl: string;
  listeners: readonly { service: string; url: string }[];
  color: boolean;
}

const RULE = '='.repeat(72);

export function firstScreen(s: FirstScreen): string {
  const bold = (t: string) => (s.color ? `\x1b[1m${t}\x1b[0m` : t);
  const lines = ['', RULE];
  if (s.firstRun) {
    const key = s.firstRun.adminKey;
    lines.push(
      `First run: secrets generated in ${s.firstRun.secretsFile} (owner-only).`,
      '',
      `Admin key (shown once): ${bold(key)}`,
      '',
      'Mint a first token:',
      '',
      // Flush left and without colour: copied as it stands into a shell.
      `curl -s -X POST ${s.tokenUrl}/auth/token \\`,
      `  -H 'X-Suite-Admin-Key: ${key}' -H 'content-type: application/json' \\`,
      `  -d '{"sub":"agent-1","scope":["audit:read"]}'`,
      RULE,
    );
  }
  // Unindented: scripts wait for `^token\s+http://` (bench/).
  for (const l of s.listeners) lines.push(`${l.service.padEnd(10)} ${l.url}`);
  lines.push(RULE, '');
  return `${lines.join('\n')}\n`;
}
