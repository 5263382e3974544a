import { Errors } from '../model/named-errors';

// How large and how many definitions may be (BATON_MAX_DEFINITION_BYTES, BATON_MAX_DEFINITIONS): every
// replica keeps task definitions in memory and re-reads them, each execution snapshots its workflow
// definition, and each event is matched against every handler. Conductor has neither cap.

export interface DefinitionLimits {
  /** Largest definition, in bytes of its UTF-8 JSON. */
  maxBytes: number;
  /** Most definitions of one kind (workflow definitions count every version). */
  maxCount: number;
}

export const DEFAULT_DEFINITION_LIMITS: DefinitionLimits = { maxBytes: 1024 * 1024, maxCount: 10_000 };

export type DefinitionKind = 'WorkflowDef' | 'TaskDef' | 'EventHandler';

const PLURAL: Record<DefinitionKind, string> = { WorkflowDef: 'workflow definitions', TaskDef: 'task definitions', EventHandler: 'event handlers' };

/** 413 when the definition's JSON is larger than the limit. */
export function checkDefinitionSize(kind: DefinitionKind, name: string, def: unknown, limits: DefinitionLimits): void {
  const bytes = Buffer.byteLength(JSON.stringify(def), 'utf8');
  if (bytes > limits.maxBytes) throw Errors.DEFINITION_TOO_LARGE(kind, name, bytes, limits.maxBytes);
}

/** 400 when `existing` definitions of the kind leave no room for one more. */
export function checkDefinitionCount(kind: DefinitionKind, existing: number, limits: DefinitionLimits): void {
  if (existing >= limits.maxCount) throw Errors.DEFINITIONS_AT_LIMIT(limits.maxCount, PLURAL[kind]);
}

/**
 * Most records of each kind the API creates one request at a time (BATON_MAX_SCHEDULES, BATON_MAX_SECRETS,
 * BATON_MAX_SCHEMAS, BATON_MAX_APPLICATIONS): each is listed whole by its API, schedules are armed at every
 * start, and nothing else bounds them. Conductor has no such caps. Updating an existing record is always allowed.
 */
export interface RecordCaps {
  schedules: number;
  secrets: number;
  /** Counted per version, as workflow definitions are. */
  schemas: number;
  applications: number;
  /** Users, groups, grants and custom roles, each (BATON_MAX_AUTHORIZATION_RECORDS). */
  users: number;
  groups: number;
  grants: number;
  roles: number;
}

export const DEFAULT_RECORD_CAPS: RecordCaps = {
  schedules: 10_000,
  secrets: 10_000,
  schemas: 10_000,
  applications: 10_000,
  users: 10_000,
  groups: 10_000,
  grants: 10_000,
  roles: 10_000,
};

const CAP_OF: Record<keyof RecordCaps, { noun: string; setting: string }> = {
  schedules: { noun: 'schedules', setting: 'BATON_MAX_SCHEDULES' },
  secrets: { noun: 'secrets', setting: 'BATON_MAX_SECRETS' },
  schemas: { noun: 'schema versions', setting: 'BATON_MAX_SCHEMAS' },
  applications: { noun: 'applications', setting: 'BATON_MAX_APPLICATIONS' },
  users: { noun: 'users', setting: 'BATON_MAX_AUTHORIZATION_RECORDS' },
  groups: { noun: 'groups', setting: 'BATON_MAX_AUTHORIZATION_RECORDS' },
  grants: { noun: 'grants', setting: 'BATON_MAX_AUTHORIZATION_RECORDS' },
  roles: { noun: 'custom roles', setting: 'BATON_MAX_AUTHORIZATION_RECORDS' },
};

/** 400 when `existing` records of the kind leave no room for `adding` more. */
export function checkRecordCount(kind: keyof RecordCaps, existing: number, adding: number, cap: number): void {
  if (existing + adding > cap) throw Errors.RECORDS_AT_LIMIT(cap, CAP_OF[kind].noun, CAP_OF[kind].setting);
}
