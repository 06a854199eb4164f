/** The keyword prompt lives with the other prompts (src/prompts/keywords.ts). */
export * from '../../prompts/keywords';
