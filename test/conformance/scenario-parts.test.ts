// The parts of the runner's scenario that stand alone (conformance/runner/scenario/context.ts): the page a group works on,
// and the hint printed when the implementation refused the runner's address. The whole scenario is proven against
// the reference server in conformance.test.ts.
import { describe, expect, test } from 'vitest';
import { addressHint, pickPage } from '../../conformance/runner/scenario/context.ts';
import { StepFailed } from '../../conformance/runner/session.ts';

describe('pickPage', () => {
  interface Page {
    id: string;
    title: string;
    type: string;
    pages?: Page[];
  }
  const page = (id: string, title: string, type = 'document', pages?: Page[]): Page => ({ id, title, type, ...(pages ? { pages } : {}) });

  test('the document page with the title, at any depth', () => {
    const tree = [page('a', 'Intro'), page('g', 'Group', 'group', [page('b', 'Other'), page('c', 'Guide')])];
    expect(pickPage(tree, 'Guide').id).toBe('c');
  });

  test('a page of another type with the title is passed over: the first document page, depth first', () => {
    const tree = [page('g', 'Guide', 'group', [page('b', 'Nested')]), page('c', 'Last')];
    expect(pickPage(tree, 'Guide').id).toBe('b');
  });

  test('no document page at all is a failed step', () => {
    expect(() => pickPage([page('l', 'Guide', 'link')], 'Guide')).toThrow(StepFailed);
    expect(() => pickPage(undefined, 'Guide')).toThrow('the content has no document page');
  });
});

describe('addressHint', () => {
  test('names the runner’s address and the host to allow, an IPv6 host without its brackets', () => {
    // The setting the README starts the reference server with, and no other.
    expect(addressHint('http://10.0.0.5:4100/site')).toContain('start it with ALLOW_PRIVATE_ADDRESSES=10.0.0.5)');
    expect(addressHint('http://10.0.0.5:4100/site')).not.toMatch(/ALLOW_PRIVATE_NETWORKS/);
    const v6 = addressHint('http://[fd00::1]:4100/site');
    expect(v6).toContain('the runner at http://[fd00::1]:4100/site');
    expect(v6).toContain('ALLOW_PRIVATE_ADDRESSES=fd00::1)');
  });
});
