/** The extraction prompts live with the other prompts (src/prompts/extraction.ts). */
export * from '../../prompts/extraction';
