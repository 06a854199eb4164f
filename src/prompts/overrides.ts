import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Prompt overrides from files (SERVICE_PROMPTS_DIR): the instructions of a prompt, replaced for one workspace or
 * one model family. Looked up in this order, the first file found wins:
 *
 *   <dir>/workspaces/<workspace id>/<prompt>.txt
 *   <dir>/models/<model family>/<prompt>.txt     (the family: the model name before ':', lower case: `gemma3`, `qwen2.5`)
 *   <dir>/<prompt>.txt
 *
 * Prompts: `extraction` (the extraction prompt's system message: the record format and its rules) and `answer` (the
 * answer prompt's role and rules; the context follows them). Files are read once per process. An override is
 * recorded by its id (`<prompt>@<sha256 prefix>`) beside the prompt version wherever the version is.
 */

export type OverridablePrompt = 'extraction' | 'answer';

export interface PromptOverride {
  text: string;
  /** `<prompt>@<first 12 hex of the text's sha256>`. */
  id: string;
}

const read = new Map<string, PromptOverride | null>();

export function modelFamily(model: string): string {
  return (model.split('/').pop() ?? model).split(':')[0].toLowerCase();
}

export function findPromptOverride(
  dir: string | null | undefined,
  prompt: OverridablePrompt,
  at: { workspaceId?: string; model?: string },
): PromptOverride | null {
  if (!dir) return null;
  const candidates = [
    ...(at.workspaceId ? [path.join(dir, 'workspaces', safe(at.workspaceId), `${prompt}.txt`)] : []),
    ...(at.model ? [path.join(dir, 'models', safe(modelFamily(at.model)), `${prompt}.txt`)] : []),
    path.join(dir, `${prompt}.txt`),
  ];
  for (const file of candidates) {
    const found = readOverride(file, prompt);
    if (found) return found;
  }
  return null;
}

function readOverride(file: string, prompt: OverridablePrompt): PromptOverride | null {
  if (!read.has(file)) {
    let text: string | null = null;
    try {
      text = fs.readFileSync(file, 'utf8').trim() || null;
    } catch {
      text = null;
    }
    read.set(file, text ? { text, id: `${prompt}@${createHash('sha256').update(text).digest('hex').slice(0, 12)}` } : null);
  }
  return read.get(file) ?? null;
}

/** A path segment made of the name's plain characters only: no `..`, no separators. */
function safe(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_');
}
