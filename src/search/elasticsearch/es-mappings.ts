import type { estypes } from '@elastic/elasticsearch';
import type { SearchTarget } from '../search-fields';

/**
 * Index layout: each kind of summary lives in a versioned index (`<prefix>_workflow_v1`, `_v2`, …)
 * reached through the alias `<prefix>_workflow` (`<prefix>_task` for tasks), and the executions whose id
 * carries its creation time in period indices behind the same alias (`<prefix>_workflow_2026.11`,
 * index-period.ts), which retention drops whole. Readers use only the alias; writers name the index.
 * Mappings follow Conductor's (es7-persistence/src/main/resources/mappings_docType_workflow.json and
 * mappings_docType_task.json); `dynamic: false` keeps unlisted summary fields (taskToDomain keys) in
 * `_source` without growing the mapping.
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

export function periodTemplateName(prefix: string, target: SearchTarget): string {
  return `${aliasName(prefix, target)}_period_template`;
}

/** Patterns every period index name of a target matches (`<alias>_2026.11`) and no versioned one (`_v1`) does: the year's first digit. */
export function periodIndexPatterns(prefix: string, target: SearchTarget): string[] {
  return [...'0123456789'].map((d) => `${aliasName(prefix, target)}_${d}*`);
}

/**
 * Lucene refuses a term over 32766 bytes, and with it the whole document: a longer value (a client's
 * correlation id, a failure reason) is kept in `_source` but not indexed. 8191 characters of up to
 * four UTF-8 bytes stay under the limit.
 */
const MAX_KEYWORD_CHARS = 8191;
const keyword: estypes.MappingProperty = { type: 'keyword', ignore_above: MAX_KEYWORD_CHARS };
const date: estypes.MappingProperty = { type: 'date', format: 'strict_date_optional_time||epoch_millis' };
const long: estypes.MappingProperty = { type: 'long' };
const integer: estypes.MappingProperty = { type: 'integer' };
const text: estypes.MappingProperty = { type: 'text' };

export const WORKFLOW_MAPPINGS: estypes.MappingTypeMapping = {
  dynamic: false,
  properties: {
    workflowType: keyword,
    version: long,
    workflowId: keyword,
    correlationId: keyword,
    startTime: date,
    updateTime: date,
    endTime: date,
    status: keyword,
    input: text,
    output: text,
    reasonForIncompletion: keyword,
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
    reasonForIncompletion: keyword,
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

/**
 * The template of the period indices (index-period.ts): Elasticsearch creates one at its first write,
 * already behind the read alias (not as its write index: every write names its index).
 */
export function periodIndexTemplate(prefix: string, target: SearchTarget, refreshInterval: string): estypes.IndicesPutIndexTemplateRequest {
  return {
    name: periodTemplateName(prefix, target),
    index_patterns: periodIndexPatterns(prefix, target),
    priority: 200,
    template: { settings: { index: { refresh_interval: refreshInterval } }, mappings: MAPPINGS[target], aliases: { [aliasName(prefix, target)]: {} } },
    _meta: { description: `Baton ${target} summaries by period`, managed_by: 'baton' },
  };
}
