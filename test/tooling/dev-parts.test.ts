// The parts of `npm run dev` that stand alone: the changes collected and handled in turn (scripts/dev-changes.ts), and
// the line a type-check ends with (scripts/dev-typecheck.ts). dev.test.ts proves the whole loop as a process.
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { type Batch, ChangeBatches } from '../../scripts/dev-changes.ts';
import { checkResult } from '../../scripts/dev-typecheck.ts';

describe('ChangeBatches', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  type Kind = 'spec' | 'server';
  /** Batches whose handling waits for `release()` when `hold` is set; `handled` lists each batch as sorted files. */
  function batches(options: { hold?: boolean; fail?: string } = {}) {
    const handled: string[][] = [];
    const failures: unknown[] = [];
    let release = () => {};
    const changes = new ChangeBatches<Kind>(
      ['spec', 'server'],
      100,
      async (batch: Batch<Kind>) => {
        handled.push([...[...batch.spec].map((file) => `spec:${file}`), ...[...batch.server].map((file) => `server:${file}`)].sort());
        if (options.fail && batch.spec.has(options.fail)) throw new Error(`failed on ${options.fail}`);
        if (options.hold) await new Promise<void>((resolve) => (release = resolve));
      },
      (error) => failures.push(error),
    );
    return { changes, handled, failures, release: () => release() };
  }

  test('collects the changes until the quiet time passes, then handles them together, each file once', async () => {
    const { changes, handled } = batches();
    changes.add('spec', 'a.tsp');
    await vi.advanceTimersByTimeAsync(60);
    changes.add('server', 'b.ts');
    changes.add('spec', 'a.tsp');
    await vi.advanceTimersByTimeAsync(60);
    expect(handled).toEqual([]);
    await vi.advanceTimersByTimeAsync(60);
    expect(handled).toEqual([['server:b.ts', 'spec:a.tsp']]);
  });

  test('changes made while a batch is handled make one next batch, handled after it', async () => {
    const { changes, handled, release } = batches({ hold: true });
    changes.add('spec', 'a.tsp');
    await vi.advanceTimersByTimeAsync(100);
    changes.add('server', 'b.ts');
    await vi.advanceTimersByTimeAsync(100);
    changes.add('server', 'c.ts');
    await vi.advanceTimersByTimeAsync(100);
    expect(handled).toEqual([['spec:a.tsp']]);
    release();
    await vi.advanceTimersByTimeAsync(0);
    // b.ts and c.ts came, each after its quiet time, while the first batch was handled: handled together after it.
    expect(handled).toEqual([['spec:a.tsp'], ['server:b.ts', 'server:c.ts']]);
    release();
  });

  test('work queued runs in order with the batches; a failure is reported and the next batch still handled', async () => {
    const { changes, handled, failures } = batches({ fail: 'bad.tsp' });
    const order: string[] = [];
    changes.enqueue(async () => void order.push('first start'));
    changes.add('spec', 'bad.tsp');
    await vi.advanceTimersByTimeAsync(100);
    changes.add('spec', 'good.tsp');
    await vi.advanceTimersByTimeAsync(100);
    expect(order).toEqual(['first start']);
    expect(handled).toEqual([['spec:bad.tsp'], ['spec:good.tsp']]);
    expect(failures.map((error) => (error as Error).message)).toEqual(['failed on bad.tsp']);
  });

  test('once closed, takes no more changes, and waits for the work under way', async () => {
    const { changes, handled, release } = batches({ hold: true });
    changes.add('spec', 'a.tsp');
    await vi.advanceTimersByTimeAsync(100);
    changes.add('spec', 'waiting.tsp');
    let closed = false;
    const closing = changes.close().then(() => (closed = true));
    changes.add('spec', 'late.tsp');
    await vi.advanceTimersByTimeAsync(200);
    expect(closed).toBe(false);
    release();
    await closing;
    expect(handled).toEqual([['spec:a.tsp']]);
  });
});

describe('checkResult', () => {
  test('a check that passes, one with type errors (all its lines), and one that stopped', () => {
    expect(checkResult('', 0, null, '1.2 s')).toBe('types: the project type-checks (1.2 s)');
    const output = 'server/a.ts(1,1): error TS2322: wrong.\n  more about it\n\nserver/b.ts(2,2): error TS2304: missing.\n';
    expect(checkResult(output, 2, null, '3.0 s')).toBe(
      'types: 2 type error(s) (3.0 s):\nserver/a.ts(1,1): error TS2322: wrong.\n  more about it\nserver/b.ts(2,2): error TS2304: missing.',
    );
    expect(checkResult('out of memory\n', null, 'SIGKILL', '9.0 s')).toBe('the type-check stopped (exit code SIGKILL):\nout of memory');
    expect(checkResult('', 1, null, '0.1 s')).toBe('the type-check stopped (exit code 1)');
  });
});
