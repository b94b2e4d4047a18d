// The conformance runner's Git smart HTTP server (conformance/runner/git-http.ts): what an implementation's Git client does
// with the runner's repository works, with isomorphic-git (the reference server's client) and with Git itself:
// clone, shallow clone, push a new branch, fetch it back, and a push over a ref that moved meanwhile is refused.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import git from 'isomorphic-git';
import http from 'isomorphic-git/http/node';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CONTENT_REF, createBareRepository, type LocalFixtures, type LocalRepository, serveFixtures } from '../../conformance/runner/fixtures.ts';

const run = promisify(execFile);
const gitCli = (args: string[], cwd?: string) => run('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd, encoding: 'utf8' });
const hasGit = await run('git', ['--version']).then(() => true, () => false);

let repository: LocalRepository;
let fixtures: LocalFixtures;
let url: string;
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'git-http-test-'));
const author = { name: 't', email: 't@example.com' };
const branch = CONTENT_REF.replace('refs/heads/', '');

beforeAll(async () => {
  repository = await createBareRepository();
  fixtures = await serveFixtures({ host: '127.0.0.1', gitdir: repository.url });
  url = fixtures.gitUrl!;
});
afterAll(async () => {
  await fixtures?.close();
  repository?.remove();
  fs.rmSync(work, { recursive: true, force: true });
});

describe('the runner serves its repository over smart HTTP', () => {
  test('isomorphic-git clones the content branch, pushes a new branch, clones it back shallow', async () => {
    const dir = path.join(work, 'iso');
    await git.clone({ fs, http, dir, url, ref: branch, singleBranch: true });
    expect(fs.readdirSync(dir).sort()).toEqual(['.git', '.gitbook', 'README.md', 'SUMMARY.md', 'guide.md', 'reference.md']);
    fs.writeFileSync(path.join(dir, 'new.md'), '# New\n');
    await git.add({ fs, dir, filepath: 'new.md' });
    const pushed = await git.commit({ fs, dir, message: 'new page', author });
    const result = await git.push({ fs, http, dir, url, ref: branch, remoteRef: 'refs/heads/iso' });
    expect(result.ok).toBe(true);
    expect(await git.resolveRef({ fs, gitdir: repository.url, ref: 'refs/heads/iso' })).toBe(pushed);

    const shallow = path.join(work, 'iso-shallow');
    await git.clone({ fs, http, dir: shallow, url, ref: 'iso', singleBranch: true, depth: 1 });
    expect(await git.log({ fs, dir: shallow })).toHaveLength(1);
    expect(fs.readFileSync(path.join(shallow, '.git/shallow'), 'utf8').trim()).toBe(pushed);
    expect(fs.readFileSync(path.join(shallow, 'new.md'), 'utf8')).toBe('# New\n');
  });

  test('an update of a ref that moved since the client read it is refused (fetch first), and the ref is left as it is', async () => {
    const current = await git.resolveRef({ fs, gitdir: repository.url, ref: 'refs/heads/iso' });
    const content = await git.resolveRef({ fs, gitdir: repository.url, ref: CONTENT_REF });
    const pkt = (line: string) => `${(line.length + 4).toString(16).padStart(4, '0')}${line}`;
    const update = (old: string) =>
      fetch(`${url}/git-receive-pack`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-git-receive-pack-request' },
        body: `${pkt(`${old} ${content} refs/heads/iso\0 report-status\n`)}0000`,
      }).then((response) => response.text());
    const stale = await update(content); // the client believes iso is where the content branch is
    expect(stale).toContain('unpack ok');
    expect(stale).toContain('ng refs/heads/iso fetch first');
    expect(await git.resolveRef({ fs, gitdir: repository.url, ref: 'refs/heads/iso' })).toBe(current);
    // With the id it holds, the same update is applied (no pack needed: the object is there).
    expect(await update(current)).toContain('ok refs/heads/iso');
    expect(await git.resolveRef({ fs, gitdir: repository.url, ref: 'refs/heads/iso' })).toBe(content);
    await git.writeRef({ fs, gitdir: repository.url, ref: 'refs/heads/iso', value: current, force: true });
  });

  test.runIf(hasGit)('Git itself clones (also shallow), pushes and fetches', async () => {
    const dir = path.join(work, 'cli');
    await gitCli(['clone', '-q', '-b', 'iso', url, dir]);
    expect(fs.readFileSync(path.join(dir, 'new.md'), 'utf8')).toBe('# New\n');
    fs.writeFileSync(path.join(dir, 'cli.md'), 'from git\n');
    await gitCli(['add', 'cli.md'], dir);
    await gitCli(['commit', '-qm', 'from git'], dir);
    await gitCli(['push', '-q', 'origin', 'HEAD:refs/heads/cli'], dir);
    const head = (await gitCli(['rev-parse', 'HEAD'], dir)).stdout.trim();
    expect(await git.resolveRef({ fs, gitdir: repository.url, ref: 'refs/heads/cli' })).toBe(head);
    await gitCli(['fetch', '-q', 'origin'], dir);
    const remote = (await gitCli(['ls-remote', 'origin'], dir)).stdout;
    expect(remote).toContain(`${head}\trefs/heads/cli`);
    const shallow = path.join(work, 'cli-shallow');
    await gitCli(['clone', '-q', '--depth', '1', '-b', 'cli', url, shallow]);
    expect((await gitCli(['rev-list', '--count', 'HEAD'], shallow)).stdout.trim()).toBe('1');
    expect(fs.readFileSync(path.join(shallow, 'cli.md'), 'utf8')).toBe('from git\n');
  });
});
