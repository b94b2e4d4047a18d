import type { UserRecord } from '../auth/caller.ts';
import { findUser } from '../auth/caller.ts';
import type { AppContext, Scope } from '../context/context.ts';
import type { Model } from '../common/contract.ts';

/** A user as the API shows it. `urls.location` is the user's address under `/v1/users` (not an operation). */
export function presentUser(ctx: AppContext, user: UserRecord): Model<'User'> {
  return {
    object: 'user',
    id: user.id,
    displayName: user.displayName,
    ...(user.email ? { email: user.email } : {}),
    ...(user.photoURL ? { photoURL: user.photoURL } : {}),
    urls: { location: ctx.urls.api(`/v1/users/${user.id}`) },
  };
}

/** The user with this id, as the API shows it; users are never deleted while referenced. */
export async function presentUserById(ctx: Scope, id: string): Promise<Model<'User'>> {
  const user = await findUser(ctx.db, id);
  if (!user) throw new Error(`user ${id} is referenced but does not exist`);
  return presentUser(ctx, user);
}
