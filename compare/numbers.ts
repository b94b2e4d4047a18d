// Numbers as a validator sees them, for comparing numeric constraints by the values they accept rather than by how
// they are written: exact fractions of their decimal spelling (`0.1` is 1/10), integers and `multipleOf` as steps,
// bounds snapped to what a step accepts, several `multipleOf` one step (their least common multiple). The rules, with
// examples: breaking/README.md ("How documents are compared", Numbers).

export interface Fraction {
  /** Numerator and denominator, reduced; the denominator is positive. */
  n: bigint;
  d: bigint;
}

function gcd(a: bigint, b: bigint): bigint {
  let x = a < 0n ? -a : a;
  let y = b < 0n ? -b : b;
  while (y !== 0n) [x, y] = [y, x % y];
  return x;
}

function reduce(n: bigint, d: bigint): Fraction {
  if (d < 0n) [n, d] = [-n, -d];
  const divisor = gcd(n, d) || 1n;
  return { n: n / divisor, d: d / divisor };
}

/** The exact value of a number as its shortest decimal spelling writes it; undefined for non-finite values. */
export function fraction(value: number): Fraction | undefined {
  if (!Number.isFinite(value)) return undefined;
  const [mantissa, exponentText] = value.toString().toLowerCase().split('e') as [string, string | undefined];
  const exponent = exponentText === undefined ? 0 : Number(exponentText);
  const negative = mantissa.startsWith('-');
  const [whole, decimals = ''] = mantissa.replace('-', '').split('.') as [string, string | undefined];
  let n = BigInt(`${whole}${decimals}`);
  let d = 10n ** BigInt(decimals.length);
  if (exponent > 0) n *= 10n ** BigInt(exponent);
  else if (exponent < 0) d *= 10n ** BigInt(-exponent);
  return reduce(negative ? -n : n, d);
}

export function compareFractions(a: Fraction, b: Fraction): number {
  const left = a.n * b.d;
  const right = b.n * a.d;
  return left < right ? -1 : left > right ? 1 : 0;
}

/** Whether `a` is a whole multiple of `b` (`b` not zero). */
export function isMultiple(a: Fraction, b: Fraction): boolean {
  return (a.n * b.d) % (a.d * b.n) === 0n;
}

function lcm(a: bigint, b: bigint): bigint {
  return (a / gcd(a, b)) * b;
}

/** The least common multiple of two positive fractions: lcm(a/b, c/d) = lcm(a, c) / gcd(b, d). */
function lcmFractions(a: Fraction, b: Fraction): Fraction {
  return reduce(lcm(a.n, b.n), gcd(a.d, b.d));
}

/**
 * The step of the values a schema accepts: every accepted number is a multiple of it. `integer` says whether only
 * integers are accepted; `multiples` are the schema's `multipleOf` values (each must hold). Undefined when numbers
 * are continuous (or a `multipleOf` is not a positive number).
 */
export function stepOf(integer: boolean, multiples: readonly unknown[]): Fraction | undefined {
  let step: Fraction | undefined = integer ? { n: 1n, d: 1n } : undefined;
  for (const multiple of multiples) {
    if (typeof multiple !== 'number' || !(multiple > 0)) return undefined;
    const exact = fraction(multiple);
    if (!exact) return undefined;
    step = step ? lcmFractions(step, exact) : exact;
  }
  return step;
}

export function isOne(step: Fraction | undefined): boolean {
  return step !== undefined && step.n === 1n && step.d === 1n;
}

function floorDivide(a: bigint, b: bigint): bigint {
  const quotient = a / b;
  return (a % b !== 0n && (a < 0n) !== (b < 0n)) ? quotient - 1n : quotient;
}

/**
 * The tightest bound of the accepted values that is itself accepted, when the values are a multiple of `step`:
 * the lowest accepted number for a lower bound, the highest for an upper one.
 */
export function snapBound(value: Fraction, exclusive: boolean, side: 'upper' | 'lower', step: Fraction): Fraction {
  // value / step = (value.n * step.d) / (value.d * step.n)
  const numerator = value.n * step.d;
  const denominator = value.d * step.n;
  const floor = floorDivide(numerator, denominator);
  const exact = floor * denominator === numerator;
  let multiple: bigint;
  if (side === 'lower') multiple = exact ? (exclusive ? floor + 1n : floor) : floor + 1n;
  else multiple = exact ? (exclusive ? floor - 1n : floor) : floor;
  return reduce(multiple * step.n, step.d);
}

export function showFraction(value: Fraction): string {
  return value.d === 1n ? value.n.toString() : String(Number(value.n) / Number(value.d));
}
