// The pages of the benches' large spaces (throughput.ts's memory run, bench.ts's revisions): their text and their
// grouping, one shape for both, so that what each measures is a space of the same kind.

/** A page's text in the benches' large spaces: about `bytes` of prose. */
export const pageText = (bytes = 2000) => 'Some documentation, in a sentence of words. '.repeat(Math.ceil(bytes / 44));

/**
 * The pages of the benches' large spaces: about `size` in groups (of 49 for sizes of about 100 and more), `page`
 * making the page `i` of group `g`, the `index`-th of the space. `perGroup` is the number of pages of each group.
 */
export function groupedPages<T>(size: number, page: (g: number, i: number, index: number) => T) {
  const count = Math.max(1, Math.round(size / 50));
  const perGroup = Math.max(1, Math.floor(size / count) - 1);
  const groups = Array.from({ length: count }, (_, g) => ({
    g,
    pages: Array.from({ length: perGroup }, (_, i) => page(g, i, g * perGroup + i)),
  }));
  return { groups, perGroup };
}
