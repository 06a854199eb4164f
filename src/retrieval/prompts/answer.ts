/** The answer prompt lives with the other prompts (src/prompts/answer.ts). */
export * from '../../prompts/answer';
