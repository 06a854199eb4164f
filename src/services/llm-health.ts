import type { ProviderRegistry } from '../llm/ports';

const LLM_CHECK_TTL_MS = 5_000;

interface LlmCheck {
  at: number;
  ok: boolean;
  provider: string;
  refreshing: Promise<boolean> | null;
}

/**
 * Whether the default provider answers, as the probes of one runtime see it (Runtime.llmHealth). Only the first
 * check of a provider is waited for; after that a probe answers with the last result and a check older than
 * LLM_CHECK_TTL_MS is redone in the background, so a probe never waits on a provider busy with ingestion.
 */
export class LlmHealth {
  private last: LlmCheck | null = null;
  private readonly checking = new Set<Promise<boolean>>();

  constructor(private readonly providers: ProviderRegistry) {}

  async healthy(): Promise<boolean> {
    const provider = this.providers.defaultLlmProviderName();
    const last = this.last;
    if (!last || last.provider !== provider) return this.check(provider);
    if (Date.now() - last.at >= LLM_CHECK_TTL_MS && !last.refreshing) last.refreshing = this.check(provider);
    return last.ok;
  }

  /** Waits for the checks under way. */
  async close(): Promise<void> {
    await Promise.all([...this.checking]);
  }

  private check(provider: string): Promise<boolean> {
    const checked = (async () => {
      const results = await this.providers.check().catch(() => []);
      const ok = results.some((r) => r.name === provider && r.status === 'healthy');
      this.last = { at: Date.now(), ok, provider, refreshing: null };
      return ok;
    })();
    this.checking.add(checked);
    void checked.finally(() => this.checking.delete(checked));
    return checked;
  }
}
