import type { Client } from '@elastic/elasticsearch';
import { periodTemplateName, templateName } from '../../src/search/elasticsearch/es-mappings';

/**
 * Deletes every index of a test's prefix and its templates. ES 8 refuses wildcard deletes
 * (`action.destructive_requires_name`), so the indices (`_v1` and the period ones) are listed and named.
 */
export async function deleteTestIndices(admin: Client, prefix: string): Promise<void> {
  const found = await admin.indices.get({ index: `${prefix}_*`, allow_no_indices: true, ignore_unavailable: true });
  const names = Object.keys(found);
  if (names.length > 0) await admin.indices.delete({ index: names }, { ignore: [404] });
  for (const target of ['workflow', 'task'] as const) {
    await admin.indices.deleteIndexTemplate({ name: templateName(prefix, target) }, { ignore: [404] });
    await admin.indices.deleteIndexTemplate({ name: periodTemplateName(prefix, target) }, { ignore: [404] });
  }
}
