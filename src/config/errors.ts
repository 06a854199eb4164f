/** Start-up configuration is wrong; `problems` holds one line per problem, each naming the variable or key. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(
      problems.length === 1
        ? `invalid configuration: ${problems[0]}`
        : `invalid configuration (${problems.length} problems):\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    );
    this.name = 'ConfigError';
  }
}
