// The path templates of the contract, found by segment: a map lookup per path segment, static segments before
// parameters (the order in which express-openapi-validator sorts its routes). The validator's wrapper
// (speed/validator.ts) places requests with it; the body check, CORS and the text checks find a request's operation
// with it.
interface Terminal {
  template: string;
  /** Names of the template's parameters, in order. */
  names: string[];
  methods: Set<string>;
}

interface IndexNode {
  statics: Map<string, IndexNode>;
  param?: IndexNode;
  terminal?: Terminal;
}

export interface RouteMatch {
  template: string;
  methods: Set<string>;
  /** The parameters, as they appear in the path (still percent-encoded). */
  params: { name: string; raw: string }[];
}

/** The path templates of a document, found by segment: `/v1/spaces/abc` finds `/v1/spaces/{spaceId}`. */
export class RouteIndex {
  private readonly root: IndexNode = { statics: new Map() };

  constructor(paths: Record<string, object>) {
    for (const [template, item] of Object.entries(paths)) {
      let node = this.root;
      const names: string[] = [];
      for (const segment of template.split('/')) {
        const param = /^\{([^{}]+)\}$/.exec(segment);
        if (param) {
          names.push(param[1]!);
          node = node.param ??= { statics: new Map() };
        } else if (segment.includes('{')) {
          // A parameter inside a segment: leave the whole template to the validator's own lookup.
          node = { statics: new Map() };
          break;
        } else {
          let next = node.statics.get(segment);
          if (!next) node.statics.set(segment, (next = { statics: new Map() }));
          node = next;
        }
      }
      const methods = new Set(Object.keys(item).map((method) => method.toUpperCase()));
      node.terminal = { template, names, methods };
    }
  }

  /** The template `path` matches, static segments winning over parameters at each segment; undefined when none. */
  find(path: string): RouteMatch | undefined {
    const segments = path.split('/');
    const raw: string[] = [];
    const walk = (node: IndexNode, at: number): Terminal | undefined => {
      if (at === segments.length) return node.terminal;
      const segment = segments[at]!;
      const next = node.statics.get(segment);
      const found = next && walk(next, at + 1);
      if (found) return found;
      if (!node.param || segment === '') return undefined;
      raw.push(segment);
      const viaParam = walk(node.param, at + 1);
      if (!viaParam) raw.pop();
      return viaParam;
    };
    const terminal = walk(this.root, 0);
    if (!terminal) return undefined;
    return {
      template: terminal.template,
      methods: terminal.methods,
      params: terminal.names.map((name, i) => ({ name, raw: raw[i]! })),
    };
  }
}
