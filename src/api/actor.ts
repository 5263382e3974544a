import type { IncomingMessage } from 'node:http';
import { principalOf } from '../auth/request-gate';

/** Who to record as createdBy/updatedBy: Orkes' `app:<application id>` of the caller's key; `anonymous` while auth is off. */
export const actorOf = (req: IncomingMessage): string => {
  const p = principalOf(req);
  return p ? `app:${p.applicationId}` : 'anonymous';
};
