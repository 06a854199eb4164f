import * as bootstrap from '../../src/services/auth/bootstrap';
import { loadConfig } from '../../src/config/load';
import type { CpuPool } from '../../src/ingest/offload/cpu-pool';
import { createLogger } from '../../src/logger';
import { createRuntime } from '../../src/runtime';

describe('a runtime whose start fails', () => {
  afterEach(() => jest.restoreAllMocks());

  it('closes everything it owns so far, its worker threads included, then throws the failure', async () => {
    jest.spyOn(bootstrap, 'bootstrapAdmin').mockRejectedValue(new Error('the account store refused the first admin'));
    let cpuClosed = 0;
    const cpu: CpuPool = {
      run: () => Promise.reject(new Error('not used')),
      close: async () => void (cpuClosed += 1),
    };
    const config = loadConfig(
      { SERVICE_LLM_PROVIDER: 'mock', SERVICE_EMBEDDING_PROVIDER: 'mock', SERVICE_MASTER_API_KEY: 'k'.repeat(32) },
      { cwd: `${__dirname}/../..`, homeDir: '/nonexistent' },
    );
    await expect(createRuntime(config, createLogger('silent'), { cpu })).rejects.toThrow('the account store refused the first admin');
    expect(cpuClosed).toBe(1);
  });
});
