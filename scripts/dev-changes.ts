// The changes `npm run dev` acts on: the files saved, by kind, collected until `debounceMs` pass without another (the
// events of one save come close together), then handled together. Handling runs one batch at a time, in
// the order of the work queued: changes that come while a batch is handled make the next batch.
export type Batch<Kind extends string> = Record<Kind, Set<string>>;

export class ChangeBatches<Kind extends string> {
  private pending: Batch<Kind>;
  private timer: NodeJS.Timeout | undefined;
  private busy: Promise<void> = Promise.resolve();
  private closed = false;

  /** `handle` gets each batch; `failed` what it threw (the next batches are still handled). */
  constructor(
    private readonly kinds: readonly Kind[],
    private readonly debounceMs: number,
    private readonly handle: (batch: Batch<Kind>) => Promise<void>,
    private readonly failed: (error: unknown) => void,
  ) {
    this.pending = this.empty();
  }

  /** A file of `kind` changed; ignored once closed. */
  add(kind: Kind, file: string): void {
    if (this.closed) return;
    this.pending[kind].add(file);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.enqueue(() => this.take()), this.debounceMs);
  }

  /** Runs `work` after the work queued before it (batches, or dev's first start). */
  enqueue(work: () => Promise<void>): void {
    this.busy = this.busy.then(work).catch(this.failed);
  }

  /** Takes no more changes; resolves when the work queued is done. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.busy.catch(() => undefined);
  }

  /** Handles the changes collected so far, unless there are none. */
  private async take(): Promise<void> {
    const batch = this.pending;
    this.pending = this.empty();
    if (this.kinds.every((kind) => batch[kind].size === 0)) return;
    await this.handle(batch);
  }

  private empty(): Batch<Kind> {
    return Object.fromEntries(this.kinds.map((kind) => [kind, new Set<string>()])) as Batch<Kind>;
  }
}
