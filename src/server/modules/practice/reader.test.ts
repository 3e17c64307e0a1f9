import { describe, expect, it } from 'vitest';
import type { RequestContext } from '../organizations/tenancy';
import type { PracticeRepository } from './practice.repository';
import { createPracticeReader } from './reader';

describe('the Today page’s background reads at shutdown', () => {
  it('close() does not wait for a read that goes on (a SIGTERM must not hang on a large first read)', async () => {
    let reached = false;
    const warned: string[] = [];
    // A read that never ends: the database's answer never comes (a large organisation's first read, in effect).
    const repo = {
      findReadStates: () => {
        reached = true;
        return new Promise<never>(() => {});
      },
    } as unknown as PracticeRepository;
    const reader = createPracticeReader({
      sources: {} as never,
      repo,
      stampOf: () => 's',
      publish: () => {},
      onStateChange: () => {},
      log: { warn: (_o, m) => warned.push(m) },
    });
    const ctx = {
      organizationId: 7,
      organization: { featurePayInvoices: true },
    } as unknown as RequestContext;
    reader.enqueue(ctx);
    await expect.poll(() => reached).toBe(true);
    expect(reader.size).toBe(1);

    const closing = reader.close(50);
    let closed = false;
    void closing.then(() => (closed = true));
    await expect.poll(() => closed, { timeout: 5_000 }).toBe(true);
    // Nothing new starts after close.
    reader.enqueue({ ...ctx, organizationId: 8 } as RequestContext);
    expect(reader.size).toBe(1);
    expect(warned).toEqual([]);
  });
});
