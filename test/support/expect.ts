// Assertions on answers of the typed client.
import { expect } from 'vitest';

type Answer = { response: Response; data?: unknown; error?: unknown };

/** The answer is the error `status` with the envelope `{error: {code, message}}`, the message containing `mentions`. */
export function expectError(answer: Answer, status: number, ...mentions: string[]): string {
  const body = answer.error as { error?: { code?: number; message?: string } } | undefined;
  expect(answer.response.status, `expected ${status}, got ${answer.response.status}: ${JSON.stringify(answer.error ?? answer.data)}`).toBe(status);
  expect(body?.error?.code).toBe(status);
  const message = body?.error?.message ?? '';
  for (const mention of mentions) expect(message).toContain(mention);
  return message;
}

/** The answer is a success: returns its data, failing with the error body otherwise. */
export function ok<T>(answer: { response: Response; data?: T; error?: unknown }, status?: number): T {
  if (answer.error !== undefined || (status !== undefined && answer.response.status !== status)) {
    expect.fail(`expected ${status ?? 'success'}, got ${answer.response.status}: ${JSON.stringify(answer.error)}`);
  }
  return answer.data as T;
}
