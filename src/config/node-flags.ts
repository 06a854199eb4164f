/** The V8/Node flags this process was started with: its command line and NODE_OPTIONS (read here, with the rest of the environment). */
export function nodeFlags(env: NodeJS.ProcessEnv = process.env): string[] {
  return [...process.execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/).filter(Boolean)];
}
