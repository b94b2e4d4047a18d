// @ts-check
// What the rules read of the contract: its HTTP operations, as @typespec/http resolves them (route, parameters,
// body, responses), and how a message names one.
/** @import { Operation, Program } from "@typespec/compiler" */
/** @import { HttpOperation, HttpStatusCodesEntry } from "@typespec/http" */
import { listOperationsIn, listServices } from "@typespec/compiler";
import { getHttpOperation } from "@typespec/http";
import { getOperationId } from "@typespec/openapi";

/** @type {WeakMap<Program, HttpOperation[]>} */
const resolved = new WeakMap();

/**
 * The operations of the program's services (of its global namespace when it declares no service), as
 * `getAllHttpServices` lists them, resolved once per program for all the rules. Each is resolved by
 * `getHttpOperation`, which keeps its answer for the program (`getAllHttpServices` resolves every operation again on
 * each call). Template declarations are not operations; their instances are.
 * @param {Program} program
 * @returns {HttpOperation[]}
 */
export function httpOperations(program) {
  let operations = resolved.get(program);
  if (operations === undefined) {
    const global = program.getGlobalNamespaceType();
    const services = listServices(program).map((service) => service.type);
    // The diagnostics are the HTTP library's own (a route declared twice…): it reports them, not the rules.
    operations = (services.length > 0 ? services : [global])
      .flatMap((namespace) => listOperationsIn(namespace, { recursive: namespace !== global }))
      .map((operation) => getHttpOperation(program, operation)[0]);
    resolved.set(program, operations);
  }
  return operations;
}

/**
 * An operation as messages name it: its operation id where it has one (what the API's users and the other tools know
 * it by), else `Interface.operation`.
 * @param {Program} program
 * @param {Operation} operation
 */
export function operationName(program, operation) {
  const id = getOperationId(program, operation);
  if (id !== undefined) return id;
  return operation.interface ? `${operation.interface.name}.${operation.name}` : operation.name;
}

/**
 * Whether a response's status codes are success codes (2xx).
 * @param {HttpStatusCodesEntry} statusCodes
 */
export function isSuccess(statusCodes) {
  if (statusCodes === "*") return false;
  if (typeof statusCodes === "number") return statusCodes >= 200 && statusCodes < 300;
  return statusCodes.start >= 200 && statusCodes.end < 300;
}
