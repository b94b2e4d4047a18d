// The end of a turn of the event loop: `atTurnEnd` defers a task until the requests that arrived together have all been
// handled, in two stages, every `commit` (the store's, store/db.ts) before any `answer` (speed/write-together.ts), so
// no answer leaves before the writes it may show are committed (server/docs/design.md, "The end of a turn").

type Stage = 'commit' | 'answer';

const tasks: Record<Stage, (() => void)[]> = { commit: [], answer: [] };
let scheduled = false;

/**
 * Runs the stage's tasks in order, and those they add to it while it runs (a connection's write that hands over its
 * next buffered chunks at once, see write-together.ts).
 */
function run(stage: Stage): void {
  const queue = tasks[stage];
  let next = 0;
  try {
    while (next < queue.length) queue[next++]!();
  } finally {
    // A task that threw must not strand the ones after it: they stay queued for the next turn.
    queue.splice(0, next);
  }
}

function endTurn(): void {
  scheduled = false;
  try {
    // Commits asked for after the commit stage ran (by promise continuations between the two immediates) still come
    // before the answers.
    run('commit');
    run('answer');
  } finally {
    // Commits asked for while the answers left, and the tasks after one that threw, go to the next turn.
    if (tasks.commit.length > 0 || tasks.answer.length > 0) schedule();
  }
}

function schedule(): void {
  scheduled = true;
  setImmediate(run, 'commit');
  setImmediate(endTurn);
}

/** Runs `task` at the end of this turn of the event loop, in its stage: every `commit` task before any `answer` task. */
export function atTurnEnd(stage: Stage, task: () => void): void {
  tasks[stage].push(task);
  if (!scheduled) schedule();
}
