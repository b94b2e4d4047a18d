// What the machine does to the store for a while, the database unreachable or the storage full: each engine reports its
// failures here (`failed`) and throws the `Refusal` it gets back (a 503 with `Retry-After`); a condition starts at the
// first failure, is checked by the store until it is over, and is logged once at each end. Nothing is refused in
// advance (server/docs/store.md, "When the machine fails under it").
import { randomUUID } from 'node:crypto';
import { type ConditionKind, Refusal } from '../common/errors.ts';

export type { ConditionKind };

/** A condition that began: its kind, and the failure that showed it (`code: message`). */
export interface ConditionStart {
  kind: ConditionKind;
  cause: string;
}

/** A condition that ended: how long it lasted, and what it refused meanwhile. */
export interface ConditionEnd extends ConditionStart {
  durationMs: number;
  /** Requests answered 503 because of it. */
  refusedRequests: number;
  /** Steps of the job runner (claims, lease renewals, jobs' writes) refused, each tried again later. */
  retriedJobSteps: number;
}

export interface ConditionWatcher {
  started?(start: ConditionStart): void;
  ended?(end: ConditionEnd): void;
}

/** What a refused request is told: the cause, and what to do. */
export const REFUSAL_MESSAGES: Record<ConditionKind, string> = {
  'database-unreachable': 'Service unavailable: the database is unreachable; try again shortly',
  'storage-full': 'Service unavailable: the storage is full, so writes are refused until space is freed (reads are served)',
};

/**
 * `Retry-After` of a refusal, in seconds: a database that restarts is back within seconds; a full disk waits for
 * someone to free space, so clients are asked to wait longer (and the client's retry policy, whose longest wait is
 * 30 s by default, still waits for it).
 */
export const RETRY_AFTER_SECONDS: Record<ConditionKind, number> = { 'database-unreachable': 1, 'storage-full': 10 };

/** How often the store checks whether a condition is over, in ms. */
const CHECK_EVERY_MS: Record<ConditionKind, number> = { 'database-unreachable': 250, 'storage-full': 1000 };

/**
 * The key of `meta` that a check for room writes, a new random value each time (a row written unchanged may write no
 * page): a write that fits says there is room.
 */
export const STORAGE_CHECK_KEY = 'storage-check';

/** What a check for room writes under STORAGE_CHECK_KEY. */
export const storageCheckValue = () => randomUUID();

/** A check that has not settled by then counts as failed (a connection that hangs must not stop the checks). */
const CHECK_TIMEOUT_MS = 5000;

/** A condition under way. */
interface Episode {
  kind: ConditionKind;
  cause: string;
  /** `performance.now()` when it began. */
  began: number;
  refusedRequests: number;
  retriedJobSteps: number;
  /** The next check, while one waits. */
  timer?: NodeJS.Timeout;
  /** A check is under way. */
  checking: boolean;
}

/** `code: message` of a failure (SQLite's and PostgreSQL's errors carry a code). */
export function causeOf(error: unknown): string {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' && message !== '' ? message : String(error);
  return typeof code === 'string' && !text.includes(code) ? `${code}: ${text}` : text;
}

export class StoreConditions {
  private readonly current = new Map<ConditionKind, Episode>();
  /** When the last condition of each kind ended (`performance.now()`). */
  private readonly lastEnded = new Map<ConditionKind, number>();
  private readonly watchers = new Set<ConditionWatcher>();
  private closed = false;

  /** `checks`: per kind, what resolves once the condition is over and rejects while it lasts. */
  constructor(private readonly checks: Record<ConditionKind, () => Promise<void>>) {}

  /** Tells `watcher` of each condition's start and end from now on; the function returned stops that. */
  watch(watcher: ConditionWatcher): () => void {
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }

  /** Whether a condition of this kind lasts. */
  has(kind: ConditionKind): boolean {
    return this.current.has(kind);
  }

  /**
   * The error to throw for a failure of `kind` (`cause`) of an operation that began at `began` (`performance.now()`;
   * now by default). Starts a condition of that kind unless one lasts, or the operation began before the last one
   * ended: a failure reported late (an attempt that met the end of the last outage), which is not a new condition.
   */
  failed(kind: ConditionKind, cause: unknown, began = performance.now()): Refusal {
    let episode = this.current.get(kind);
    if (episode === undefined && !this.closed && began >= (this.lastEnded.get(kind) ?? Number.NEGATIVE_INFINITY)) {
      episode = { kind, cause: causeOf(cause), began: performance.now(), refusedRequests: 0, retriedJobSteps: 0, checking: false };
      this.current.set(kind, episode);
      this.tell((watcher) => watcher.started?.({ kind, cause: episode!.cause }));
      this.checkLater(episode);
    }
    const counted = episode;
    return new Refusal(kind, REFUSAL_MESSAGES[kind], RETRY_AFTER_SECONDS[kind], (by) => {
      if (counted === undefined) return;
      if (by === 'request') counted.refusedRequests++;
      else counted.retriedJobSteps++;
    });
  }

  /**
   * Checks at once, rather than at the next check's time, whether the condition of this kind is over: something it
   * refused just succeeded (a write committed while the storage was full).
   */
  recheck(kind: ConditionKind): void {
    const episode = this.current.get(kind);
    if (episode === undefined || episode.checking) return;
    clearTimeout(episode.timer);
    this.check(episode);
  }

  /** Stops checking (the store closes): conditions under way end unannounced. */
  close(): void {
    this.closed = true;
    for (const episode of this.current.values()) clearTimeout(episode.timer);
    this.current.clear();
  }

  private checkLater(episode: Episode): void {
    episode.timer = setTimeout(() => this.check(episode), CHECK_EVERY_MS[episode.kind]);
    episode.timer.unref();
  }

  private check(episode: Episode): void {
    episode.timer = undefined;
    if (this.closed || this.current.get(episode.kind) !== episode) return;
    episode.checking = true;
    let timeout: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timeout = setTimeout(() => reject(new Error('the check did not settle')), CHECK_TIMEOUT_MS);
    });
    Promise.race([this.checks[episode.kind](), late])
      .then(
        () => this.end(episode),
        () => this.checkLater(episode),
      )
      .finally(() => {
        clearTimeout(timeout);
        episode.checking = false;
      });
  }

  private end(episode: Episode): void {
    if (this.closed || this.current.get(episode.kind) !== episode) return;
    const now = performance.now();
    this.current.delete(episode.kind);
    this.lastEnded.set(episode.kind, now);
    const { kind, cause, refusedRequests, retriedJobSteps } = episode;
    this.tell((watcher) => watcher.ended?.({ kind, cause, durationMs: Math.round(now - episode.began), refusedRequests, retriedJobSteps }));
  }

  /** Tells each watcher; one that throws does not stop the others, nor the store. */
  private tell(call: (watcher: ConditionWatcher) => void): void {
    for (const watcher of this.watchers) {
      try {
        call(watcher);
      } catch (error) {
        process.emitWarning(error instanceof Error ? error : new Error(String(error)), 'StoreConditionWatcherWarning');
      }
    }
  }
}
