// Where the server's log lines go: standard output behind a bounded buffer, so that an output that is slow, full or
// closed never holds the server. A line goes to process.stdout, which on a pipe writes without blocking and keeps what
// the reader has not taken; while it keeps more than LOG_BUFFER_BYTES, a new line is dropped and counted instead, the
// count logged once the output has taken everything again. Nothing waits for the output: main.ts waits for the lines
// at exit only until its shutdown deadline (server/docs/running-and-configuration.md, "Stopping it").

/**
 * The most the log keeps in memory for an output that does not take it, in bytes (UTF-16 units of its lines: bytes
 * for the ASCII of JSON lines), as Docker's non-blocking log mode does by default: beyond it lines are dropped, not
 * the server slowed. Changed here (a larger bound is that much more memory held while the reader stalls).
 */
export const LOG_BUFFER_BYTES = 1024 * 1024;

/** What the log writes to: process.stdout, or a stream like it (a test's). */
export interface LogStream {
  write(text: string, done?: (error?: Error | null) => void): unknown;
  /** Bytes (UTF-16 units) written to it that it has not handed to the system yet. */
  readonly writableLength: number;
  readonly destroyed: boolean;
  readonly isTTY?: boolean;
  on(event: 'error', listener: (error: Error) => void): unknown;
  once(event: 'drain', listener: () => void): unknown;
}

export class BoundedLog {
  /** Lines handed to the stream that it has not written yet. */
  private pending = 0;
  /** Lines dropped since the count was last reported. */
  private dropped = 0;
  /** The stream failed (a closed pipe: EPIPE): it takes nothing more. */
  private failed: Error | undefined;
  private waitingForDrain = false;
  private drainedWaiters: (() => void)[] = [];
  /** Reports a count of dropped lines, once the stream has taken everything again (set by `createLogger`). */
  onResumed: ((dropped: number) => void) | undefined;

  constructor(
    private readonly stream: LogStream,
    private readonly bound = LOG_BUFFER_BYTES,
  ) {
    stream.on('error', (error) => {
      this.failed ??= error;
    });
  }

  get isTTY(): boolean | undefined {
    return this.stream.isTTY;
  }

  /** Writes `line`, or drops and counts it while the stream holds more than the bound or has failed. */
  write(line: string): void {
    const held = this.stream.writableLength;
    if (this.failed || this.stream.destroyed || (held > 0 && held + line.length > this.bound)) {
      this.dropped++;
      this.reportOnDrain();
      return;
    }
    this.pending++;
    this.stream.write(line, this.written);
  }

  /** What the log has not written: lines waiting in the stream, and lines dropped whose count is not logged yet. */
  unwritten(): { waiting: number; dropped: number; failed?: string } {
    return { waiting: this.pending, dropped: this.dropped, ...(this.failed ? { failed: (this.failed as NodeJS.ErrnoException).code ?? this.failed.message } : {}) };
  }

  /** Resolves once the stream has written (or failed) every line handed to it. */
  drained(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainedWaiters.push(resolve));
  }

  /** Called by the stream for each line: written, or failed (then counted as dropped). */
  private readonly written = (error?: Error | null) => {
    this.pending--;
    if (error) {
      this.failed ??= error;
      this.dropped++;
    }
    if (this.pending === 0) for (const resolve of this.drainedWaiters.splice(0)) resolve();
  };

  /** Logs the count of dropped lines once the stream has taken what it held (`drain`), unless it failed. */
  private reportOnDrain(): void {
    if (this.waitingForDrain || this.failed || this.stream.destroyed) return;
    this.waitingForDrain = true;
    this.stream.once('drain', () => {
      this.waitingForDrain = false;
      if (this.dropped === 0 || this.failed) return;
      const dropped = this.dropped;
      this.dropped = 0;
      this.onResumed?.(dropped);
    });
  }
}

let stdoutLog: BoundedLog | undefined;
let stderrLog: BoundedLog | undefined;

/** The process's log on standard output: one for the process, whatever number of loggers write to it. */
export function standardOutputLog(): BoundedLog {
  return (stdoutLog ??= new BoundedLog(process.stdout as unknown as LogStream));
}

/** Standard error, bounded the same way: for the last lines of a process whose standard output does not take them. */
export function standardErrorLog(): BoundedLog {
  return (stderrLog ??= new BoundedLog(process.stderr as unknown as LogStream));
}
