// Builds the Express app from the contract: the validator checks every request (and response, unless turned off); a
// route per operation calls its handler (http/operation-route.ts), in a write transaction for anything but GET
// (http/route-rules.ts), or answers from the contract (http/example-answers.ts); HEAD goes to the GET's route
// (http/head.ts); every failure goes through one error writer (server/docs/code.md, "Code layout").
import { randomUUID } from 'node:crypto';
import * as OpenApiValidator from 'express-openapi-validator';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { type Caller, callerOfToken } from '../auth/caller.ts';
import { type AppContext, reading, type Scope } from '../context/context.ts';
import { accessLog } from '../http/access-log.ts';
import { chained } from '../http/chain.ts';
import { contractCheckedByBuild, contractOperations, expressPath, loadContract, type OpenApiDocument } from '../http/contract.ts';
import { cors } from '../http/cors.ts';
import { docsRoutes } from '../http/docs-page.ts';
import { DomainError, unauthorized } from '../common/errors.ts';
import { errorWriter } from '../http/errors.ts';
import type { Faults } from '../http/faults.ts';
import { installJsonAnswer } from '../speed/json-answer.ts';
import { checkRequestJson } from '../common/json-limits.ts';
import { ListPageCache } from '../http/list-page-cache.ts';
import { type AnyHandler, contractAnswerRoute, operationRoute, type OperationRoute, type RouteSetting } from '../http/operation-route.ts';
import { type ContractAnswer, contractAnswer, contractAnswerPlan, type ContractAnswerPlan, markedContract } from '../http/example-answers.ts';
import { integerParameters } from '../http/parameters.ts';
import { ANSWER_HEADERS } from '../http/headers.ts';
import { healthRoute } from '../http/health.ts';
import { withHead } from '../http/head.ts';
import { contractText, servedContract } from '../http/served-contract.ts';
import { bearerToken } from '../http/bearer-token.ts';
import { pendingOperations } from '../handlers/pending.ts';
import type { HandlerTable, OperationId } from '../handlers/types.ts';
import { jsonBody, validatorContentType } from '../http/request-body.ts';
import { textInputCheck } from '../http/text-input.ts';
import type { UsageRecorder } from '../http/usage-recorder.ts';
import { RouteIndex } from '../http/route-index.ts';
import { deprecationHeaders, deprecationsOf, type OperationDeprecations, usedDeprecations } from '../http/deprecations.ts';
import { openApiValidator, placedOperation } from '../speed/validator.ts';

declare module 'express-serve-static-core' {
  interface Request {
    id: string;
    caller?: Caller;
    /** Why the caller could not be looked up (the database is unreachable): answered once the validator is done. */
    callerFailure?: unknown;
  }
}

export interface AppOptions {
  /** Extra routes outside `/v1` (such as served files), registered before the 404 fallback. */
  extraRoutes?: (app: express.Express) => void;
  /** The contract to serve; the committed generated/openapi.yaml by default. */
  contract?: OpenApiDocument;
  /** Called when a request routed to an operation has been answered (tests record what they exercise). */
  onOperation?: (operationId: string, status: number, contentType: string | undefined) => void;
  /** Make every list page sent from memory again, and fail the request if it differs (see http/list-page-cache.ts). */
  verifyListPageCache?: boolean;
  /** The contract's checks, shared with the server's other apps (`contractChecks`); built for this app otherwise. */
  checks?: ContractChecks;
  /** Declared faults to answer with instead of the operation (the test harness's `server.faults`, http/faults.ts). */
  faults?: Faults;
  /** The operations to answer from the contract (`contractAnswerPlan`); made from the handlers otherwise. */
  contractAnswers?: ContractAnswerPlan;
  /** Records what each request for an operation used of the contract (the test harness's usage record). */
  usage?: UsageRecorder;
}

/**
 * Which operations are answered from the contract (those `handlers` has no handler for, and the pending ones),
 * refusing, when the setting is off, a table that does not implement the whole contract (http/example-answers.ts).
 */
export const planOf = (checks: ContractChecks, handlers: Partial<HandlerTable>, answerFromContract: boolean): ContractAnswerPlan =>
  contractAnswerPlan(checks.operations, handlers, pendingOperations, answerFromContract);

/** The kept list pages of the app of each context (for tests: their counts). */
const listPageCachesByContext = new WeakMap<AppContext, ListPageCache>();
export const listPageCacheIn = (ctx: AppContext): ListPageCache | undefined => listPageCachesByContext.get(ctx);

/**
 * The validator's copy of the contract (it annotates the document it is given), with HEAD beside each GET
 * (http/head.ts). Query parameters accept reserved
 * characters: `allowReserved: false` tells clients to percent-encode them, but JavaScript's encodeURIComponent,
 * which openapi-fetch and most clients use, leaves `!'()*` as they are, and a search for "(draft)" must not be a 400.
 */
function validatorDocument(contract: OpenApiDocument): OpenApiDocument {
  const document = structuredClone(contract);
  const lenient = (parameter: { in?: string; allowReserved?: boolean }) => {
    if (parameter.in === 'query') parameter.allowReserved = true;
  };
  const components = document.components as { parameters?: Record<string, { in?: string }> } | undefined;
  Object.values(components?.parameters ?? {}).forEach(lenient);
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item)) (operation?.parameters ?? []).forEach(lenient);
  }
  return withHead(document);
}

/**
 * The media types of the request body a request's operation declares (`application/json`), or undefined when it
 * declares none or the request is for no operation of the contract (an unknown path or method, which answer 404 and
 * 405). A trailing slash is placed as the path without it, as Express and the validator route it.
 */
export function requestBodyTypes(contract: OpenApiDocument): (req: Request) => readonly string[] | undefined {
  const index = new RouteIndex(contract.paths);
  const types = new Map<object, readonly string[]>();
  for (const item of Object.values(contract.paths)) {
    for (const operation of Object.values(item)) {
      const content = (operation as { requestBody?: { content?: object } } | undefined)?.requestBody?.content;
      if (content) types.set(operation as object, Object.keys(content));
    }
  }
  return (req) => {
    const path = req.path.length > 1 && req.path.endsWith('/') ? req.path.slice(0, -1) : req.path;
    const match = index.find(path);
    if (!match || !match.methods.has(req.method)) return undefined;
    return types.get(contract.paths[match.template]?.[req.method.toLowerCase()]);
  };
}

/**
 * Whether the server reads a request's body: only for an operation whose contract declares a request body. The body
 * of any other request (an operation that takes none, an unknown path or method) is discarded unread.
 */
export function operationsTakingABody(bodyTypes: (req: Request) => readonly string[] | undefined): (req: Request) => boolean {
  return (req) => {
    // Nothing to read: the common case of a GET or a DELETE, decided without a lookup.
    if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) return false;
    return bodyTypes(req) !== undefined;
  };
}

/**
 * What an app builds from the contract and the configuration alone: the validator (its Ajv instances, its
 * preprocessed document and the checks it compiles on each operation's first request), the served contract, and the
 * request checks made from the contract. The apps of one server share them: a reset of the test harness's server
 * (server.ts) builds a new app on a new database, and building these again was most of its time. The validator's
 * token check reads the database of the app serving the request (`req.app`, Express's own).
 */
export interface ContractChecks {
  contract: OpenApiDocument;
  operations: ReturnType<typeof contractOperations>;
  /** The integer parameters of each operation, by operation id. */
  integers: Map<string, ReturnType<typeof integerParameters>>;
  validator: RequestHandler[];
  served: ReturnType<typeof servedContract>;
  /** The request body's media types the request's operation declares (`requestBodyTypes`). */
  bodyTypes: (req: Request) => readonly string[] | undefined;
  takesBody: (req: Request) => boolean;
  checkText: (req: Request) => void;
  /** The answer from the contract of an operation, made on first need. */
  contractAnswer: (operation: ContractChecks['operations'][number]) => ContractAnswer;
  /** The deprecations of each operation that has any, by operation id (http/deprecations.ts). */
  deprecations: Map<string, OperationDeprecations>;
}

/** The reader each app's token check uses (see `ContractChecks`). */
const readerOfApp = new WeakMap<object, Scope>();

export function contractChecks(config: AppContext['config'], log: AppContext['log'], contract?: OpenApiDocument): ContractChecks {
  const document = contract ?? loadContract();
  const build = config.speedupsOff.includes('validator-wrapper') ? (options: Parameters<typeof openApiValidator>[0]) => OpenApiValidator.middleware(options) : openApiValidator;
  const validator = build({
    apiSpec: validatorDocument(document) as never,
    // The committed contract, from the build's copy, was checked against the OpenAPI schema by the build.
    validateApiSpec: !(contract === undefined && contractCheckedByBuild()),
    validateRequests: { allowUnknownQueryParameters: false },
    validateResponses: config.validateResponses
      ? {
          onError: (error, body, req) => {
            log.error({ requestId: req.id, url: req.originalUrl, err: error, body }, 'response breaks the contract');
            throw error;
          },
        }
      : false,
    validateSecurity: {
      handlers: {
        BearerAuth: async (req) => {
          const token = bearerToken(req);
          if (!token) throw unauthorized();
          let caller: Caller | undefined;
          try {
            const reader = readerOfApp.get(req.app);
            if (!reader) throw new Error('the token check ran for an app createApp did not build');
            caller = await callerOfToken(reader, token);
          } catch (error) {
            // The validator answers any failure of a security handler with 401 or 500: a database that cannot be
            // reached is a 503 (with retry-after), answered by the error writer, not a wrong token.
            req.callerFailure = error;
            return true;
          }
          if (!caller) throw unauthorized('Authorization: the Bearer token is unknown');
          req.caller = caller;
          return true;
        },
      },
    },
    ignorePaths: (path: string) => !path.startsWith('/v1/'),
    validateFormats: true,
  });
  const operations = contractOperations(document);
  const answers = new Map<string, ContractAnswer>();
  const bodyTypes = requestBodyTypes(document);
  return {
    contract: document,
    operations,
    integers: new Map(operations.map((operation) => [operation.operationId, integerParameters(document, operation.path, operation.method)])),
    validator,
    served: servedContract(document, config.publicUrl, contract ? undefined : contractText()),
    bodyTypes,
    takesBody: operationsTakingABody(bodyTypes),
    checkText: textInputCheck(document),
    deprecations: deprecationsOf(document, { publicUrl: config.publicUrl, startedAt: Date.now() }),
    contractAnswer: (operation) => {
      let answer = answers.get(operation.operationId);
      if (!answer) answers.set(operation.operationId, (answer = contractAnswer(document, operation)));
      return answer;
    },
  };
}

/**
 * The app: Express's settings, the chain every request passes through, the server's own pages, the contract's chain
 * (body, limits, validator, dispatch), one route per operation, and the error mapping, in that order.
 */
export function createApp(ctx: AppContext, handlers: HandlerTable, options: AppOptions = {}): express.Express {
  const checks = options.checks ?? contractChecks(ctx.config, ctx.log, options.contract);
  const plan = options.contractAnswers ?? planOf(checks, handlers, ctx.config.answerFromContract);
  const app = expressApp(ctx.config);
  // Reads outside any transaction: GETs, the token check, and handlers that open their own transactions.
  const reader = reading(ctx);
  readerOfApp.set(app, reader);

  app.use(everyRequest(ctx, checks.contract, options.usage));
  serverPages(app, ctx, checks, plan);
  // Routes placed by the validator's route index, by `METHOD /path` (see `contractChain`).
  const placed = new Map<string, OperationRoute>();
  app.use(contractChain(ctx, checks, placed, options.usage));

  const setting: RouteSetting = { ctx, reader, listPageCache: listPageCacheOf(ctx, options.verifyListPageCache), faults: options.faults, onOperation: options.onOperation };
  for (const operation of checks.operations) {
    const integers = checks.integers.get(operation.operationId)!;
    const answering = plan.answered.has(operation.operationId)
      ? contractAnswerRoute(operation, checks.contractAnswer(operation), integers, setting)
      : operationRoute(operation, handlers[operation.operationId as OperationId] as unknown as AnyHandler, integers, setting);
    const route = withDeprecations(checks.deprecations.get(operation.operationId), answering);
    placed.set(`${operation.method.toUpperCase()} ${operation.path}`, route);
    // HEAD as the GET (http/head.ts): the validator placed it as the HEAD copy of the operation; Express's route for
    // GET answers HEAD too, for what the validator's own lookup placed.
    if (operation.method === 'get') placed.set(`HEAD ${operation.path}`, route);
    app[operation.method](expressPath(operation.path), route);
  }
  ctx.log.info(`routing ${new Set(checks.operations.map((operation) => operation.path)).size} paths, ${checks.operations.length} operations`);

  options.extraRoutes?.(app);
  errorMapping(app, ctx.log);
  return app;
}

/**
 * The route of an operation that has deprecations: its answer, whatever it is (an error too), carries the headers of
 * those the request used (http/deprecations.ts). Any other operation's route is the route itself.
 */
function withDeprecations(deprecations: OperationDeprecations | undefined, route: OperationRoute): OperationRoute {
  if (!deprecations) return route;
  return (req, res) => {
    const used = usedDeprecations(deprecations, req);
    if (used.length > 0) res.set(deprecationHeaders(used));
    return route(req, res);
  };
}

/** Express, set for the contract: paths matched letter for letter, no ETag, no X-Powered-By, its `res.json` ours. */
function expressApp(config: AppContext['config']): express.Express {
  const app = express();
  app.disable('x-powered-by');
  // Paths are the contract's, letter for letter: Express matches routes regardless of case by default, so `/V1/orgs`,
  // which the validator leaves alone (it checks paths under `/v1/` only), reached the handler without its token
  // checked or its request validated.
  app.set('case sensitive routing', true);
  app.set('etag', false);
  if (!config.speedupsOff.includes('json-answer')) installJsonAnswer(app);
  return app;
}

/**
 * What every request passes through first, in one layer of Express's router (server/http/chain.ts): the usage
 * recorder when there is one, its id and the headers every answer starts with (http/headers.ts), its access-log line
 * and CORS.
 */
function everyRequest({ log, config }: AppContext, contract: OpenApiDocument, usage: UsageRecorder | undefined): RequestHandler {
  const handlers: RequestHandler[] = [
    ...(usage ? [usage.watch] : []),
    (req: Request, res: Response, next: NextFunction) => {
      req.id = randomUUID();
      res.set(ANSWER_HEADERS).set('x-request-id', req.id);
      next();
    },
    accessLog(log, config.logRequests),
  ];
  if (config.corsOrigins.length > 0) handlers.push(cors(contract, config.corsOrigins));
  return chained(...handlers);
}

/**
 * The server's own pages, outside the contract and without a token: its health, the contract it serves (with its own
 * address in `servers`, and the operations answered from the contract marked) and the interactive reference of that
 * contract.
 */
function serverPages(app: express.Express, ctx: AppContext, checks: ContractChecks, plan: ContractAnswerPlan): void {
  const { contract } = checks;
  const answered = checks.operations.filter((operation) => plan.answered.has(operation.operationId));
  const served =
    answered.length === 0
      ? checks.served
      : servedContract(markedContract(contract, plan, new Map(answered.map((operation) => [operation.operationId, checks.contractAnswer(operation)]))), ctx.config.publicUrl);
  app.get('/health', healthRoute(ctx, contract, [...plan.answered.keys()]));
  // The same for every caller: a cache may keep them, and asks again each time (the server may have restarted on another contract).
  app.get('/openapi.json', (_req: Request, res: Response) => {
    res.set('cache-control', 'no-cache').type('json').send(served.json());
  });
  app.get('/openapi.yaml', (_req: Request, res: Response) => {
    res.set('cache-control', 'no-cache').type('application/yaml; charset=utf-8').send(served.yaml());
  });
  docsRoutes(app, { title: String((contract.info as { title?: string } | undefined)?.title ?? 'API'), publicUrl: ctx.config.publicUrl });
}

/** List pages read again while the database is unchanged (http/list-page-cache.ts), by the store's count of changes. */
function listPageCacheOf(ctx: AppContext, verify: boolean | undefined): ListPageCache {
  const { store, config } = ctx;
  const listPageCache = new ListPageCache({
    changes: () => store.changeCount(),
    committedOnly: store.changesCommittedOnly,
    inTransaction: () => store.inTransaction,
    clockReads: () => ctx.clockReads(),
    bytes: config.listCacheMb * 1024 * 1024,
    verify,
  });
  listPageCachesByContext.set(ctx, listPageCache);
  return listPageCache;
}

/**
 * What a request for the contract's operations passes through, in one layer of Express's router: its body, the
 * limits on its text, the validator, then the dispatch. A request the validator's route index placed goes straight to
 * its operation's route (`placed`), with the path parameters the validator decoded (what its app.param callbacks give
 * Express's routes), instead of Express trying each route's pattern in turn; anything else goes through Express's
 * routes.
 */
function contractChain({ config }: AppContext, { bodyTypes, takesBody, checkText, validator }: ContractChecks, placed: Map<string, OperationRoute>, usage: UsageRecorder | undefined): RequestHandler {
  const json = jsonBody(config.bodyLimit, usage?.sent); // a body without a Content-Type is a 415 (http/request-body.ts)
  const contentType = validatorContentType(bodyTypes);
  return chained(
    // The body is read only for an operation that declares one: any other request's body is discarded unread,
    // whatever its type, encoding or size, so those operations never answer the 415, 413 or malformed-JSON 400 of
    // a body they would ignore (the contract declares 413 and 415 only where a body is taken).
    (req: Request, res: Response, next: NextFunction) => (takesBody(req) ? json(req, res, next) : next()),
    // Depth and property names, before the validator or anything else recurses on the body, and text both engines
    // store alike in the path, the query and the body (text.ts).
    (req: Request, _res: Response, next: NextFunction) => {
      checkText(req);
      checkRequestJson(req.body);
      next();
    },
    // The validator keeps what it builds per Content-Type: it is given one of the contract's (http/request-body.ts).
    contentType,
    ...validator,
    (req: Request, res: Response, next: NextFunction) => {
      if (req.callerFailure !== undefined) return next(req.callerFailure);
      usage?.accepted(req);
      const key = placedOperation(req);
      const route = key === undefined ? undefined : placed.get(key);
      if (!route) return next();
      req.params = (req as Request & { openapi: { pathParams: Record<string, string> } }).openapi.pathParams;
      return route(req, res);
    },
  );
}

/** A request no route took is a 404; every failure is answered by one error writer (http/errors.ts). */
function errorMapping(app: express.Express, log: AppContext['log']): void {
  app.use((req: Request) => {
    throw new DomainError('not-found', `No route ${req.method} ${req.path}`);
  });
  app.use(errorWriter(log));
}
