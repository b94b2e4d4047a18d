// The read-tracking view of an answer that the typed client's recording mode hands the consumer's code
// (recording.ts): a Proxy of each object and array of the JSON value that reports the pointer of every field read, as
// usage-fields.ts names the fields present (`*` for an array's items and a map's keys), and is the value otherwise.
import type { Contract, Schema } from '../contract/contract.ts';
import { type Shape, shapeOf } from './usage-fields.ts';

/** A field's place: its pointer, and the schema the contract declares there. */
interface Place {
  pointer: string;
  schema: Schema | undefined;
}

/** An object or array of the value, with its place and, once asked, what the contract declares there and its fields' places. */
interface Node extends Place {
  shape?: Shape;
  fields?: Map<string, Place>;
  items?: Place;
}

const INDEX = /^(0|[1-9]\d*)$/;

/**
 * `value` (a JSON value the client parsed, read against `schema`) seen through Proxies that call `read` with the
 * pointer of each field the code reads: a property got, or asked for with `in`, that the value has or the contract
 * declares there, at any depth, and each item of an array (`/items/*`). Whatever reads every field (JSON.stringify, a
 * spread, a deep equality) reads every field. A key neither present nor declared (`then`, `toJSON`, a symbol) is no
 * field. The same object is always the same view, so identity and equality hold as on the value.
 */
export function readView<T>(contract: Contract, value: T, schema: Schema | undefined, read: (pointer: string) => void): T {
  if (typeof value !== 'object' || value === null) return value;
  const nodes = new WeakMap<object, Node>();
  const views = new WeakMap<object, object>();
  const isView = new WeakSet<object>();

  const view = (target: object, place: Place): object => {
    let proxy = views.get(target);
    if (!proxy) {
      nodes.set(target, { ...place });
      proxy = new Proxy(target, handler);
      views.set(target, proxy);
      isView.add(proxy);
    }
    return proxy;
  };

  /** The place of `key` of `target`, when it is a field: an array's index, a key the object has or its schema declares. */
  const placeOf = (target: object, key: string): Place | undefined => {
    const node = nodes.get(target)!;
    node.shape ??= shapeOf(contract, node.schema);
    if (Array.isArray(target)) return INDEX.test(key) ? (node.items ??= { pointer: `${node.pointer}/*`, schema: node.shape.items() }) : undefined;
    const known = node.fields?.get(key);
    if (known) return known;
    const field = node.shape.field(key);
    if (!field.declared && !Object.hasOwn(target, key)) return undefined;
    const place = { pointer: `${node.pointer}/${field.segment}`, schema: field.schema };
    (node.fields ??= new Map()).set(key, place);
    return place;
  };

  /** A field's value as the code sees it: an object or array as its view, unless the value holds it frozen. */
  const seen = (target: object, key: string, value: unknown, place: Place): unknown => {
    if (typeof value !== 'object' || value === null || isView.has(value)) return value;
    const descriptor = Reflect.getOwnPropertyDescriptor(target, key);
    if (descriptor && !descriptor.configurable && !descriptor.writable) return value;
    return view(value, place);
  };

  const handler: ProxyHandler<object> = {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      const place = typeof key === 'string' ? placeOf(target, key) : undefined;
      if (!place) return value;
      read(place.pointer);
      return seen(target, key as string, value, place);
    },
    has(target, key) {
      const place = typeof key === 'string' ? placeOf(target, key) : undefined;
      if (place) read(place.pointer);
      return Reflect.has(target, key);
    },
    // Listing the keys reads no field; a descriptor's value is a view, so that what reads through it is seen.
    getOwnPropertyDescriptor(target, key) {
      const descriptor = Reflect.getOwnPropertyDescriptor(target, key);
      if (!descriptor || !('value' in descriptor) || !descriptor.configurable || typeof key !== 'string') return descriptor;
      const place = placeOf(target, key);
      return place ? { ...descriptor, value: seen(target, key, descriptor.value, place) } : descriptor;
    },
  };
  return view(value, { pointer: '', schema }) as T;
}
