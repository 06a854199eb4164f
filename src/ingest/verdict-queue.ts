import { scopeKey } from '../domain/ids';
import type { Scope } from '../domain/types';
import { askBatch, type PairAnswers } from '../graph/resolution/confirm';
import type { LlmProvider } from '../llm/ports';
import { type UsageContext, currentUsageContext, runInUsageContext } from '../llm/usage';
import { RESOLUTION_BATCH, type ResolutionPair } from '../prompts/entity-resolution';
import type { MergeClaims } from './embed/claims';

/**
 * Entity resolution's confirmation calls, shared by the documents in flight of a workspace (docs/architecture.md
 * §5.10). A document's pairs in the review band wait here with the pairs of the documents merged before and
 * after it, and go out RESOLUTION_BATCH to a call:
 *
 * - as soon as RESOLUTION_BATCH pairs wait;
 * - when every document in flight in the workspace has asked or passed resolution (`expect`: none is left whose
 *   pairs could join them);
 * - once VERDICT_WINDOW.merges documents have merged since the oldest pair came (documents that keep coming in
 *   while others are still extracting).
 *
 * All three are counted in documents and pairs, not in time, so that how many calls a corpus takes does not depend
 * on how loaded the machine is. VERDICT_WINDOW.deadlineMs bounds the wait in time, for documents in flight that
 * stall (liveness only).
 *
 * A call runs in the usage context of its first pair's document, which is charged the call; its tokens are shared
 * out among the documents by their pairs. A failed call fails the resolution of every document with a pair in it.
 */

export interface VerdictWindow {
  merges: number;
  deadlineMs: number;
}
export const VERDICT_WINDOW: VerdictWindow = { merges: 8, deadlineMs: 30_000 };

interface Asker {
  usage: UsageContext;
  answers: PairAnswers;
  /** Pairs not answered yet. */
  left: number;
  resolve: (answers: PairAnswers) => void;
  reject: (err: unknown) => void;
}

interface Waiting {
  pair: ResolutionPair;
  asker: Asker;
  /** Its place among the asker's pairs. */
  index: number;
  /** Claims given up in the runtime when it came, and when (for the window). */
  sinceReleases: number;
  since: number;
}

/** The pairs of one workspace for one model. */
interface Line {
  scope: Scope;
  llm: LlmProvider;
  waiting: Waiting[];
  timer: NodeJS.Timeout | null;
}

export class VerdictQueue {
  private readonly lines = new Map<string, Line>();
  /** Documents in flight by workspace that have not asked or passed resolution yet. */
  private readonly ahead = new Map<string, number>();

  constructor(
    private readonly claims: MergeClaims,
    private readonly window: VerdictWindow = VERDICT_WINDOW,
  ) {
    claims.onRelease(() => {
      for (const [key, line] of [...this.lines]) this.pump(key, line);
    });
  }

  /**
   * A document of `scope` in flight, whose pairs those waiting could share a call with: returns what to call once it
   * has asked or passed resolution (again is a no-op).
   */
  expect(scope: Scope): () => void {
    const workspace = scopeKey(scope);
    this.ahead.set(workspace, (this.ahead.get(workspace) ?? 0) + 1);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      const n = (this.ahead.get(workspace) ?? 1) - 1;
      if (n > 0) this.ahead.set(workspace, n);
      else this.ahead.delete(workspace);
      for (const [key, line] of [...this.lines]) if (scopeKey(line.scope) === workspace) this.pump(key, line);
    };
  }

  /** Asks `llm` about a document's pairs in the workspace `scope`; resolves once every one is answered. */
  ask(scope: Scope, llm: LlmProvider, pairs: ResolutionPair[]): Promise<PairAnswers> {
    const answers: PairAnswers = { verdicts: pairs.map(() => null), calls: 0, usage: { input_tokens: 0, output_tokens: 0 } };
    if (pairs.length === 0) return Promise.resolve(answers);
    const key = `${scopeKey(scope)}\u0000${llm.provider}\u0000${llm.model}`;
    let line = this.lines.get(key);
    if (!line) {
      line = { scope, llm, waiting: [], timer: null };
      this.lines.set(key, line);
    }
    const usage: UsageContext = { ...currentUsageContext(), workspace_id: scope.workspaceId, tenant_id: scope.tenantId };
    const sinceReleases = this.claims.releases;
    const since = Date.now();
    const done = new Promise<PairAnswers>((resolve, reject) => {
      const asker: Asker = { usage, answers, left: pairs.length, resolve, reject };
      (line as Line).waiting.push(...pairs.map((pair, index) => ({ pair, asker, index, sinceReleases, since })));
    });
    this.pump(key, line);
    return done;
  }

  private pump(key: string, line: Line): void {
    while (line.waiting.length >= RESOLUTION_BATCH) this.send(line, line.waiting.splice(0, RESOLUTION_BATCH));
    if (line.waiting.length > 0 && this.due(line)) this.send(line, line.waiting.splice(0));
    if (line.timer) clearTimeout(line.timer);
    line.timer = null;
    if (line.waiting.length === 0) {
      this.lines.delete(key);
      return;
    }
    const wait = Math.max(0, line.waiting[0].since + this.window.deadlineMs - Date.now());
    line.timer = setTimeout(() => this.pump(key, line), wait);
    line.timer.unref();
  }

  /** Whether the pairs waiting go out short of a full batch (see above). */
  private due(line: Line): boolean {
    const oldest = line.waiting[0];
    return (
      !this.ahead.has(scopeKey(line.scope)) ||
      this.claims.releases - oldest.sinceReleases >= this.window.merges ||
      Date.now() - oldest.since >= this.window.deadlineMs
    );
  }

  private send(line: Line, batch: Waiting[]): void {
    const first = batch[0].asker;
    runInUsageContext(first.usage, () =>
      askBatch(
        line.llm,
        batch.map((w) => w.pair),
      ),
    ).then(
      (answer) => {
        if (answer.made) first.answers.calls++;
        const share = new Map<Asker, number>();
        for (const w of batch) share.set(w.asker, (share.get(w.asker) ?? 0) + 1);
        // Tokens by pairs; what rounding leaves goes to the first.
        let input = answer.usage.input_tokens;
        let output = answer.usage.output_tokens;
        for (const [asker, n] of share) {
          if (asker === first) continue;
          const i = Math.floor((answer.usage.input_tokens * n) / batch.length);
          const o = Math.floor((answer.usage.output_tokens * n) / batch.length);
          asker.answers.usage.input_tokens += i;
          asker.answers.usage.output_tokens += o;
          input -= i;
          output -= o;
        }
        first.answers.usage.input_tokens += input;
        first.answers.usage.output_tokens += output;
        batch.forEach((w, i) => {
          w.asker.answers.verdicts[w.index] = answer.verdicts[i];
          if (--w.asker.left === 0) w.asker.resolve(w.asker.answers);
        });
      },
      (err: unknown) => {
        const failed = new Set(batch.map((w) => w.asker));
        for (const asker of failed) asker.reject(err);
        line.waiting = line.waiting.filter((w) => !failed.has(w.asker));
      },
    );
  }
}
