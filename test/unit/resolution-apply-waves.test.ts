import { sleep } from '../../src/domain/abort';
import { resolveEntityAlias } from '../../src/graph/aliases';
import { applyMerges } from '../../src/graph/resolution/resolve';
import { makeEntity } from '../contract/fixtures';
import { graphDeps, scope } from './graph-fixtures';

/**
 * Entity resolution applies a run's merges in waves (src/graph/resolution/resolve.ts): merges that name no entity of
 * an earlier one run side by side; one that names an entity of an earlier merge waits for it.
 */

describe('applying merges', () => {
  it('runs merges of separate entities side by side and one that follows an earlier merge after it', async () => {
    const deps = graphDeps();
    await deps.stores.graph.upsertEntities(
      scope,
      ['A', 'B', 'C', 'D', 'E'].map((id) => makeEntity(id, { source_chunk_ids: [`doc-1-chunk-${id}`] })),
    );
    let inFlight = 0;
    let most = 0;
    const embedded: string[] = [];
    deps.embedRecords = async (_scope, kind, records) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await sleep(20);
      inFlight--;
      if (kind === 'entity') embedded.push(...records.map((r) => r.id));
      return records.map(() => [1, 0, 0]);
    };
    const merges = [
      { source_id: 'A', target_id: 'B', reason: 'same' },
      { source_id: 'C', target_id: 'D', reason: 'same' },
      // Names B, which the first merge keeps: it runs once that merge is done, and merges into its survivor.
      { source_id: 'E', target_id: 'B', reason: 'same' },
    ];
    const result = await applyMerges(deps, scope, merges);

    expect(result.skipped).toEqual([]);
    expect(result.applied.map((m) => `${m.source_id}>${m.target_id}`)).toEqual(['A>B', 'C>D', 'E>B']);
    // The first two merges' embeddings were in flight together; the third's came after both.
    expect(most).toBe(2);
    expect(embedded.slice(2)).toEqual(['B']);
    expect((await deps.stores.graph.getEntities(scope, ['A', 'B', 'C', 'D', 'E'])).map((e) => e.id).sort()).toEqual(['B', 'D']);
    expect(await resolveEntityAlias(deps.stores.kv, scope, 'E')).toBe('B');
  });

  it('lets every merge of a wave end before it reports a failure', async () => {
    const deps = graphDeps();
    await deps.stores.graph.upsertEntities(
      scope,
      ['A', 'B', 'C', 'D'].map((id) => makeEntity(id)),
    );
    let finished = 0;
    deps.embedRecords = async (_scope, _kind, records) => {
      await sleep(records.some((r) => r.id === 'B') ? 1 : 30);
      if (records.some((r) => r.id === 'B')) throw new Error('embedding service down');
      finished++;
      return records.map(() => [1, 0, 0]);
    };
    await expect(
      applyMerges(deps, scope, [
        { source_id: 'A', target_id: 'B', reason: 'same' },
        { source_id: 'C', target_id: 'D', reason: 'same' },
      ]),
    ).rejects.toThrow('embedding service down');
    // The other merge of the wave had ended (its embedding done) when the failure came back.
    expect(finished).toBeGreaterThan(0);
  });
});
