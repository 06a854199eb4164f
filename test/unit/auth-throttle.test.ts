import type { RateLimitedError } from '../../src/domain/errors';
import { LoginThrottle } from '../../src/services/auth/throttle';

describe('login throttle counters', () => {
  const limits = { perUserAtAddress: 5, perUser: 100, perAddress: 20, windowMs: 15 * 60_000 };
  const lockOf = async (throttle: LoginThrottle, user: string, address: string, now: number) => {
    try {
      await throttle.check(user, address, now);
      return null;
    } catch (err) {
      return (err as RateLimitedError).details.lock;
    }
  };

  it('locks a user name everywhere only after the per-user cap, spread over many addresses', async () => {
    const throttle = new LoginThrottle(limits);
    const locks: string[] = [];
    for (let i = 0; i < 100; i++) locks.push(...(await throttle.fail('ada', `10.0.${Math.floor(i / 4)}.${i % 4}`, 0)));
    expect(locks).toEqual(['user']);
    expect(await lockOf(throttle, 'ADA', '192.0.2.1', 1)).toBe('user');
    expect(await lockOf(throttle, 'ada', '192.0.2.1', limits.windowMs)).toBeNull();
  });

  it('reports each lock once, when its count is reached, and a success clears the user name', async () => {
    const throttle = new LoginThrottle(limits);
    const locks: string[][] = [];
    for (let i = 0; i < 6; i++) locks.push(await throttle.fail('bob', '192.0.2.2', 0));
    expect(locks.flat()).toEqual(['user_at_address']);
    expect(await lockOf(throttle, 'bob', '192.0.2.2', 1)).toBe('user_at_address');
    await throttle.succeed('bob', '192.0.2.2');
    expect(await lockOf(throttle, 'bob', '192.0.2.2', 1)).toBeNull();
  });
});
