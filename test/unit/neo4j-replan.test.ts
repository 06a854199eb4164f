import { REPLAN_SKIP, ReplanPacer } from '../../src/store/neo4j/replan';

describe('ReplanPacer', () => {
  const statement = 'MATCH (e:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id}) RETURN e';

  function pacer(maxMs = 40_000) {
    let now = 1_000_000;
    const replans = new ReplanPacer({ firstMs: 10_000, maxMs }, () => now);
    return { replans, at: (ms: number) => (now = 1_000_000 + ms) };
  }

  it('sends a statement as written the first time, then keeps its plan until the first interval has passed', () => {
    const { replans, at } = pacer();
    expect(replans.text(statement)).toBe(statement);
    at(1);
    expect(replans.text(statement)).toBe(REPLAN_SKIP + statement);
    at(9_999);
    expect(replans.text(statement)).toBe(REPLAN_SKIP + statement);
    at(10_000);
    expect(replans.text(statement)).toBe(statement);
    expect(replans.text(statement)).toBe(REPLAN_SKIP + statement);
  });

  it('doubles the interval at each check, up to the longest', () => {
    const { replans, at } = pacer();
    const checks: number[] = [];
    for (let ms = 0; ms <= 200_000; ms += 1_000) {
      at(ms);
      if (replans.text(statement) === statement) checks.push(ms);
    }
    // 10 s, then 20, 40, and 40 s apart from then on.
    expect(checks).toEqual([0, 10_000, 30_000, 70_000, 110_000, 150_000, 190_000]);
  });

  it('paces each statement on its own', () => {
    const { replans, at } = pacer();
    const other = 'MATCH (c:Chunk {tenant_id: $tenant_id, workspace_id: $workspace_id}) RETURN c';
    expect(replans.text(statement)).toBe(statement);
    at(5_000);
    expect(replans.text(other)).toBe(other);
    expect(replans.text(statement)).toBe(REPLAN_SKIP + statement);
    at(10_000);
    expect(replans.text(statement)).toBe(statement);
    expect(replans.text(other)).toBe(REPLAN_SKIP + other);
    at(15_000);
    expect(replans.text(other)).toBe(other);
  });
});
