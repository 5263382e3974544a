import type { estypes } from '@elastic/elasticsearch';
import type { SearchTarget } from '../search-fields';

/**
 * Index layout: each kind of summary lives in a versioned index (`<prefix>_workflow_v1`, `_v2`, …)
 * reached through the alias `<prefix>_workflow` (`<prefix>_task` for tasks). Readers and writers use only
 * the alias, so a reindex builds the next version from the template and swaps the alias atomically.
 * Mappings follow Conductor's (reference §5.4); `dynamic: false` keeps unlisted summary fields
 * (taskToDomain keys) in `_source` without growing the mapping.
 */

export const DEFAULT_INDEX_PREFIX = 'baton';

export function aliasName(prefix: string, target: SearchTarget): string {
  return `${prefix}_${target}`;
}

/** Name of the n-th physical index behind the alias. */
export function versionedIndexName(prefix: string, target: SearchTarget, version: number): string {
  return `${aliasName(prefix, target)}_v${version}`;
}

export function templateName(prefix: string, target: SearchTarget): string {
  return `${aliasName(prefix, target)}_template`;
}

const keyword: estypes.MappingProperty = { type: 'keyword' };
const date: estypes.MappingProperty = { type: 'date', format: 'strict_date_optional_time||epoch_millis' };
const long: estypes.MappingProperty = { type: 'long' };
const integer: estypes.MappingProperty = { type: 'integer' };
const text: estypes.MappingProperty = { type: 'text' };
// Long reasons would exceed Lucene's term limit; beyond this they are kept in _source only.
const reason: estypes.MappingProperty = { type: 'keyword', ignore_above: 8191 };

export const WORKFLOW_MAPPINGS: estypes.MappingTypeMapping = {
  dynamic: false,
  properties: {
    workflowType: keyword,
    version: integer,
    workflowId: keyword,
    correlationId: keyword,
    startTime: date,
    updateTime: date,
    endTime: date,
    status: keyword,
    input: text,
    output: text,
    reasonForIncompletion: reason,
    executionTime: long,
    event: keyword,
    failedReferenceTaskNames: { type: 'text', index: false },
    failedTaskNames: keyword,
    priority: integer,
    inputSize: long,
    outputSize: long,
    createdBy: keyword,
    parentWorkflowId: keyword,
    taskToDomain: { type: 'object', enabled: false },
    externalInputPayloadStoragePath: { type: 'keyword', index: false },
  },
};

export const TASK_MAPPINGS: estypes.MappingTypeMapping = {
  dynamic: false,
  properties: {
    taskId: keyword,
    taskType: keyword,
    taskDefName: keyword,
    status: keyword,
    workflowId: keyword,
    workflowType: keyword,
    correlationId: keyword,
    scheduledTime: date,
    startTime: date,
    updateTime: date,
    endTime: date,
    domain: keyword,
    reasonForIncompletion: reason,
    executionTime: long,
    queueWaitTime: long,
    workflowPriority: integer,
    input: text,
    output: text,
  },
};

export const MAPPINGS: Record<SearchTarget, estypes.MappingTypeMapping> = { workflow: WORKFLOW_MAPPINGS, task: TASK_MAPPINGS };

/** The composable template every versioned index of a kind is created from. */
export function indexTemplate(prefix: string, target: SearchTarget, refreshInterval: string): estypes.IndicesPutIndexTemplateRequest {
  return {
    name: templateName(prefix, target),
    index_patterns: [`${aliasName(prefix, target)}_v*`],
    priority: 200,
    template: { settings: { index: { refresh_interval: refreshInterval } }, mappings: MAPPINGS[target] },
    _meta: { description: `Baton ${target} summaries`, managed_by: 'baton' },
  };
}
