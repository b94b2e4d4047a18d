import { markdownLinks } from '../server/content/markdown.ts';
const text = 'Some documentation, in a sentence of words. '.repeat(46);
const md = process.env.REAL ? (await import('node:fs')).readFileSync(process.env.REAL, 'utf8') : `# Page 1-2\n\nGo on to [the next page](page-3).\n\n![A figure](f3.png)\n\n${text}`;
const N = Number(process.env.N ?? 500);
for (let i = 0; i < 50; i++) markdownLinks(md);
const t0 = process.hrtime.bigint();
for (let i = 0; i < N; i++) markdownLinks(md);
const ns = Number(process.hrtime.bigint() - t0) / N;
console.log(`${md.length} chars: ${(ns / 1e6).toFixed(3)} ms a page, ${(md.length / ns * 1e3).toFixed(2)} MB/s`);
